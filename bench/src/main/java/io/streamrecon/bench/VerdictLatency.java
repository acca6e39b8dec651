package io.streamrecon.bench;

import io.streamrecon.model.Status;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Verdict latency of the soak: how long after a verdict was due it became visible in the {@code
 * deltas} table. Pure computation over the producer's primitive arrays, indexed by the id's ordinal
 * ({@link SoakProducer#ordinalOf}), so a million ids cost a few arrays, not a map of boxed values.
 *
 * <ul>
 *   <li>{@code MATCH} and {@code MISMATCH}: the commit time of the verdict's row minus the later of
 *       the pair's two Kafka append times (the pair was complete in Kafka from then on).
 *   <li>{@code MISSING_IN_TARGET} and {@code MISSING_IN_SOURCE}: the commit time minus {@code t0 +
 *       timeout}, {@code t0} the event time the producer gave the id: how long past the moment the
 *       entry was due to expire. Negative would mean a verdict before its due time.
 * </ul>
 *
 * <p>Only the last verdict of a natural id counts: the one in the latest commit version (within one
 * version, the one recorded last). Earlier ones are counted as {@link Summary#replaced}; with
 * distinct ids and no new versions there are none.
 *
 * <p>Times are epoch milliseconds; {@link #NONE} (0) in an input array means no time is known (the
 * event was not sent, or its send was not acknowledged).
 */
final class VerdictLatency {
  static final long NONE = 0;

  private static final Status[] STATUSES = Status.values();

  private final long[] sourceAppendMillis;
  private final long[] targetAppendMillis;
  private final long[] eventTimeMillis;
  private final long timeoutMillis;

  /** Per ordinal: 0 = no verdict yet, else the last verdict's status ordinal + 1. */
  private final byte[] lastStatus;

  private final long[] lastVersion;
  private final long[] lastCommitMillis;
  private long replaced;

  VerdictLatency(
      long[] sourceAppendMillis,
      long[] targetAppendMillis,
      long[] eventTimeMillis,
      long timeoutMillis) {
    int n = sourceAppendMillis.length;
    if (targetAppendMillis.length != n || eventTimeMillis.length != n) {
      throw new IllegalArgumentException("the time arrays must have one length");
    }
    this.sourceAppendMillis = sourceAppendMillis;
    this.targetAppendMillis = targetAppendMillis;
    this.eventTimeMillis = eventTimeMillis;
    this.timeoutMillis = timeoutMillis;
    this.lastStatus = new byte[n];
    this.lastVersion = new long[n];
    this.lastCommitMillis = new long[n];
  }

  /**
   * A verdict row of the id with this ordinal, in the commit of {@code commitVersion} stamped
   * {@code commitMillis}.
   */
  void record(int ordinal, Status status, long commitVersion, long commitMillis) {
    if (lastStatus[ordinal] != 0) {
      replaced++;
      if (commitVersion < lastVersion[ordinal]) {
        return;
      }
    }
    lastStatus[ordinal] = (byte) (status.ordinal() + 1);
    lastVersion[ordinal] = commitVersion;
    lastCommitMillis[ordinal] = commitMillis;
  }

  /** Latency percentiles per status of the last verdicts recorded so far. */
  Summary summarize() {
    long[][] samples = new long[STATUSES.length][];
    int[] counts = new int[STATUSES.length];
    for (int s = 0; s < STATUSES.length; s++) {
      samples[s] = new long[16];
    }
    long withoutTime = 0;
    for (int i = 0; i < lastStatus.length; i++) {
      if (lastStatus[i] == 0) {
        continue;
      }
      int s = lastStatus[i] - 1;
      long due = dueMillis(STATUSES[s], i);
      if (due == NONE) {
        withoutTime++;
        continue;
      }
      if (counts[s] == samples[s].length) {
        samples[s] = Arrays.copyOf(samples[s], samples[s].length * 2);
      }
      samples[s][counts[s]++] = lastCommitMillis[i] - due;
    }
    Map<Status, Percentiles> byStatus = new EnumMap<>(Status.class);
    for (int s = 0; s < STATUSES.length; s++) {
      byStatus.put(STATUSES[s], Percentiles.of(samples[s], counts[s]));
    }
    return new Summary(byStatus, replaced, withoutTime);
  }

  /** When the verdict was due, or {@link #NONE} when a time it needs is unknown. */
  private long dueMillis(Status status, int i) {
    return switch (status) {
      case MATCH, MISMATCH ->
          sourceAppendMillis[i] == NONE || targetAppendMillis[i] == NONE
              ? NONE
              : Math.max(sourceAppendMillis[i], targetAppendMillis[i]);
      case MISSING_IN_TARGET, MISSING_IN_SOURCE ->
          eventTimeMillis[i] == NONE ? NONE : eventTimeMillis[i] + timeoutMillis;
    };
  }

  /**
   * Nearest-rank percentiles (the smallest sample with at least p% of the samples at or below it),
   * in milliseconds; all 0 when {@code count} is 0.
   */
  record Percentiles(int count, long p50, long p95, long p99, long max) {
    /** Of the first {@code n} entries of {@code samples}, which it sorts in place. */
    static Percentiles of(long[] samples, int n) {
      if (n == 0) {
        return new Percentiles(0, 0, 0, 0, 0);
      }
      Arrays.sort(samples, 0, n);
      return new Percentiles(
          n, rank(samples, n, 50), rank(samples, n, 95), rank(samples, n, 99), samples[n - 1]);
    }

    private static long rank(long[] sorted, int n, int percent) {
      int rank = (int) Math.ceil(percent / 100.0 * n);
      return sorted[Math.max(rank, 1) - 1];
    }
  }

  /**
   * @param byStatus percentiles of each status's last verdicts (count 0 where there were none)
   * @param replaced verdicts that a later verdict of the same id displaced
   * @param withoutTime last verdicts left out because a time they need is unknown
   */
  record Summary(Map<Status, Percentiles> byStatus, long replaced, long withoutTime) {
    /** A markdown table, one row per status, then a line on what was left out. */
    List<String> markdown() {
      List<String> lines = new ArrayList<>();
      lines.add("| verdict | measured from | count | p50 ms | p95 ms | p99 ms | max ms |");
      lines.add("|---|---|---:|---:|---:|---:|---:|");
      for (Map.Entry<Status, Percentiles> e : byStatus.entrySet()) {
        Percentiles p = e.getValue();
        String from =
            e.getKey() == Status.MATCH || e.getKey() == Status.MISMATCH
                ? "later Kafka append time of the pair"
                : "event time + timeout";
        lines.add(
            p.count() == 0
                ? String.format(Locale.ROOT, "| %s | %s | 0 | – | – | – | – |", e.getKey(), from)
                : String.format(
                    Locale.ROOT,
                    "| %s | %s | %,d | %,d | %,d | %,d | %,d |",
                    e.getKey(),
                    from,
                    p.count(),
                    p.p50(),
                    p.p95(),
                    p.p99(),
                    p.max()));
      }
      lines.add(
          String.format(
              Locale.ROOT,
              "(last verdict per natural id only: %,d earlier verdicts replaced; %,d left out for"
                  + " want of an append or event time)",
              replaced,
              withoutTime));
      return lines;
    }
  }
}
