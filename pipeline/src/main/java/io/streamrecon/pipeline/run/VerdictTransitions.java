package io.streamrecon.pipeline.run;

import io.streamrecon.deltalake.VerdictScan;
import io.streamrecon.model.Status;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * How a replay's final verdict per natural id compares with the final verdict the re-judged runs
 * gave it. A natural id's final verdict is, among its records of one side, the one no other record
 * supersedes whose latest event time (then detection time) is the latest. A natural id judged
 * without a record was a MATCH, unless that side wrote MATCH records too ({@code --emitMatches});
 * then it had no verdict ({@value #NONE}: all its events were duplicates or late).
 */
final class VerdictTransitions {
  /** The label of a natural id without a verdict. */
  static final String NONE = "NO_VERDICT";

  private final Set<String> supersededBefore = new HashSet<>();
  private final Set<String> supersededAfter = new HashSet<>();
  private final Map<String, Map<String, VerdictScan.Row>> allBefore = new HashMap<>();
  private final Map<String, Map<String, VerdictScan.Row>> allAfter = new HashMap<>();
  private boolean beforeEmittedMatches;
  private boolean afterEmittedMatches;

  private static final Comparator<VerdictScan.Row> LATEST =
      Comparator.comparing(
              VerdictScan.Row::latestEventTime, Comparator.nullsFirst(Comparator.naturalOrder()))
          .thenComparing(VerdictScan.Row::detectedAt)
          .thenComparing(VerdictScan.Row::verdictId);

  /** A record of a re-judged run. */
  void addBefore(VerdictScan.Row row) {
    add(row, allBefore, supersededBefore);
    if (row.status() == Status.MATCH && row.supersedes() == null) {
      beforeEmittedMatches = true;
    }
  }

  /** A record of the replay. */
  void addAfter(VerdictScan.Row row) {
    add(row, allAfter, supersededAfter);
  }

  /** Whether the replay wrote plain MATCH records ({@code --emitMatches}). */
  void afterEmitsMatches(boolean emits) {
    afterEmittedMatches = emits;
  }

  private static void add(
      VerdictScan.Row row, Map<String, Map<String, VerdictScan.Row>> all, Set<String> superseded) {
    // Keyed by verdict id: the same verdict written by two runs counts once.
    all.computeIfAbsent(row.naturalId(), k -> new HashMap<>()).put(row.verdictId(), row);
    if (row.supersedes() != null) {
      superseded.add(row.naturalId() + '\u0000' + row.supersedes());
    }
  }

  private static Map<String, String> finals(
      Map<String, Map<String, VerdictScan.Row>> all, Set<String> superseded) {
    Map<String, String> result = new HashMap<>();
    for (Map.Entry<String, Map<String, VerdictScan.Row>> e : all.entrySet()) {
      VerdictScan.Row last = null;
      for (VerdictScan.Row r : e.getValue().values()) {
        if (superseded.contains(e.getKey() + '\u0000' + r.verdictId())) {
          continue;
        }
        if (last == null || LATEST.compare(r, last) > 0) {
          last = r;
        }
      }
      if (last == null) {
        // A cycle of supersedes cannot happen; take the latest record all the same.
        last = e.getValue().values().stream().max(LATEST).orElseThrow();
      }
      result.put(e.getKey(), last.status().name());
    }
    return result;
  }

  /**
   * The transitions, {@code "BEFORE → AFTER"} or {@code "STATUS unchanged"} to the number of
   * natural ids, sorted by label.
   *
   * @param naturalIds the distinct natural ids the replay judged; those without a record on either
   *     side count as unchanged, when it is known (else -1)
   */
  Map<String, Long> count(long naturalIds) {
    Map<String, String> was = finals(allBefore, supersededBefore);
    Map<String, String> is = finals(allAfter, supersededAfter);
    Set<String> ids = new HashSet<>(was.keySet());
    ids.addAll(is.keySet());
    String beforeDefault = beforeEmittedMatches ? NONE : Status.MATCH.name();
    String afterDefault = afterEmittedMatches ? NONE : Status.MATCH.name();
    Map<String, Long> counts = new TreeMap<>();
    for (String id : ids) {
      counts.merge(
          label(was.getOrDefault(id, beforeDefault), is.getOrDefault(id, afterDefault)),
          1L,
          Long::sum);
    }
    long rest = naturalIds - ids.size();
    if (naturalIds >= 0 && rest > 0) {
      counts.merge(label(beforeDefault, afterDefault), rest, Long::sum);
    }
    return counts;
  }

  static String label(String before, String after) {
    return before.equals(after) ? before + " unchanged" : before + " → " + after;
  }
}
