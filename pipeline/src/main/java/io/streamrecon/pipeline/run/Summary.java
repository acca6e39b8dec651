package io.streamrecon.pipeline.run;

import io.streamrecon.model.MetricNames;
import io.streamrecon.model.Side;
import io.streamrecon.model.Status;
import io.streamrecon.pipeline.FailOnRules;
import io.streamrecon.transforms.Diff;
import io.streamrecon.transforms.pairing.PairEvents;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.metrics.MetricNameFilter;
import org.apache.beam.sdk.metrics.MetricQueryResults;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.MetricsFilter;

/**
 * The counts of a run (docs/design.md#nothing-lost) and the two identities they must satisfy:
 *
 * <pre>
 *   input  = blank lines + dead letters + raw events
 *   raw    = late + duplicate + superseded + events in verdicts
 * </pre>
 *
 * Input counts every line of a file (blank ones included) and every Kafka record; a blank line is
 * not an event and ends nowhere else, so it has its own count. Counts come from Beam metrics in the
 * namespace {@value MetricNames#NAMESPACE}: the pipeline's own counters ({@link MetricNames}:
 * input, blank lines, dead letters, raw events), those of {@code PairEvents}, and the raw events a
 * Delta Lake write recognised as copies of rows its job stored before (a replay after a restore;
 * shown, not part of the identities), and the payloads a MISMATCH needed that were deleted from
 * raw_events (its verdict is written without a diff; shown, not part of them).
 */
public record Summary(Map<String, Long> counts) implements FailOnRules.Counts {
  /**
   * Counter of raw events the raw_events write did not store again because the same job had stored
   * them (a replayed Kafka record); their pointers name the stored row. Kept by DeltaLakeIO.
   */
  public static final String RAW_EVENTS_RECOGNISED = "deltalake_copies_recognised_raw_events";

  /**
   * The counters PairEvents keeps, and Diff's count of pairing MISMATCHes that were MATCHes within
   * tolerance (docs/design.md#comparison-rules): pairing counted those as {@code mismatch}; the
   * summary moves them to match, so counts still add up.
   */
  public static final List<String> PAIRING =
      List.of(
          PairEvents.METRIC_MATCH,
          PairEvents.METRIC_MISMATCH,
          PairEvents.METRIC_MISSING_IN_TARGET,
          PairEvents.METRIC_MISSING_IN_SOURCE,
          PairEvents.METRIC_DUPLICATE,
          PairEvents.METRIC_SUPERSEDED,
          PairEvents.METRIC_LATE,
          PairEvents.METRIC_EVENTS_IN_VERDICTS,
          Diff.MATCH_WITHIN_TOLERANCE);

  public Summary {
    counts = Map.copyOf(counts);
  }

  /** Every counter name the summary reads. */
  public static List<String> counterNames() {
    List<String> names = new java.util.ArrayList<>();
    for (Side s : Side.values()) {
      names.add(MetricNames.input(s));
    }
    for (Side s : Side.values()) {
      names.add(MetricNames.blankLines(s));
    }
    for (Side s : Side.values()) {
      names.add(MetricNames.deadLetters(s));
    }
    names.add(MetricNames.RAW_EVENTS);
    names.add(RAW_EVENTS_RECOGNISED);
    names.addAll(PAIRING);
    names.add(MetricNames.PAYLOADS_DELETED);
    return names;
  }

  /** Reads the counters of a (possibly still running) pipeline; committed values when known. */
  public static Summary of(PipelineResult result) {
    Map<String, Long> counts = new LinkedHashMap<>();
    for (String name : counterNames()) {
      counts.put(name, 0L);
    }
    MetricQueryResults metrics =
        result
            .metrics()
            .queryMetrics(
                MetricsFilter.builder()
                    .addNameFilter(MetricNameFilter.inNamespace(MetricNames.NAMESPACE))
                    .build());
    for (MetricResult<Long> c : metrics.getCounters()) {
      String name = c.getName().getName();
      if (counts.containsKey(name)) {
        counts.merge(name, counterValue(c), Long::sum);
      }
    }
    return new Summary(counts);
  }

  /** A counter's committed value when the runner knows it, else its attempted value. */
  static long counterValue(MetricResult<Long> c) {
    try {
      Long committed = c.getCommitted();
      if (committed != null) {
        return committed;
      }
    } catch (UnsupportedOperationException e) {
      // Runners without committed metrics (Spark) report attempted values only.
    }
    Long attempted = c.getAttempted();
    return attempted == null ? 0 : attempted;
  }

  /** One counter, zero when absent. */
  public long get(String name) {
    return counts.getOrDefault(name, 0L);
  }

  /** MATCH verdicts: equal hashes, plus mismatches within tolerance. */
  public long match() {
    return get(PairEvents.METRIC_MATCH) + get(Diff.MATCH_WITHIN_TOLERANCE);
  }

  /** MISMATCH verdicts with differences under the rules. */
  public long mismatch() {
    return get(PairEvents.METRIC_MISMATCH) - get(Diff.MATCH_WITHIN_TOLERANCE);
  }

  /** MISSING_IN_TARGET verdicts. */
  public long missingInTarget() {
    return get(PairEvents.METRIC_MISSING_IN_TARGET);
  }

  /** MISSING_IN_SOURCE verdicts. */
  public long missingInSource() {
    return get(PairEvents.METRIC_MISSING_IN_SOURCE);
  }

  /** Raw events that arrived after their key's entry had closed. */
  public long late() {
    return get(PairEvents.METRIC_LATE);
  }

  /** Raw events equal by hash to one their side already sent (docs/design.md), dropped. */
  public long duplicate() {
    return get(PairEvents.METRIC_DUPLICATE);
  }

  /** Raw events dropped for a newer version of their natural id (docs/design.md). */
  public long superseded() {
    return get(PairEvents.METRIC_SUPERSEDED);
  }

  /** The verdicts the run reached, whatever their status: match + mismatch + both missing. */
  public long verdicts() {
    return match() + mismatch() + missingInTarget() + missingInSource();
  }

  /** The verdicts per status, in the order of {@link Status}. */
  public Map<Status, Long> verdictsByStatus() {
    Map<Status, Long> byStatus = new EnumMap<>(Status.class);
    byStatus.put(Status.MATCH, match());
    byStatus.put(Status.MISMATCH, mismatch());
    byStatus.put(Status.MISSING_IN_TARGET, missingInTarget());
    byStatus.put(Status.MISSING_IN_SOURCE, missingInSource());
    return byStatus;
  }

  /**
   * Every count {@link #format} prints, under the camel-case form of its label (docs/operations.md
   * lists them), in the order printed; the counts shown there only when not zero are always here.
   */
  public Map<String, Long> printedCounts() {
    Map<String, Long> c = new LinkedHashMap<>();
    c.put("inputSource", get(MetricNames.input(Side.SOURCE)));
    c.put("inputTarget", get(MetricNames.input(Side.TARGET)));
    c.put("blankLinesSource", get(MetricNames.blankLines(Side.SOURCE)));
    c.put("blankLinesTarget", get(MetricNames.blankLines(Side.TARGET)));
    c.put("deadLettersSource", get(MetricNames.deadLetters(Side.SOURCE)));
    c.put("deadLettersTarget", get(MetricNames.deadLetters(Side.TARGET)));
    c.put("rawEvents", raw());
    c.put("rawEventsReplayedCopies", get(RAW_EVENTS_RECOGNISED));
    c.put("match", match());
    c.put("matchWithinTolerance", get(Diff.MATCH_WITHIN_TOLERANCE));
    c.put("mismatch", mismatch());
    c.put("payloadsDeletedNotDiffed", get(MetricNames.PAYLOADS_DELETED));
    c.put("missingInTarget", missingInTarget());
    c.put("missingInSource", missingInSource());
    c.put("duplicate", duplicate());
    c.put("superseded", superseded());
    c.put("late", late());
    c.put("eventsInVerdicts", get(PairEvents.METRIC_EVENTS_IN_VERDICTS));
    return c;
  }

  /** Input lines or records over both sides. */
  public long input() {
    return get(MetricNames.input(Side.SOURCE)) + get(MetricNames.input(Side.TARGET));
  }

  /** Blank lines skipped over both sides. */
  public long blankLines() {
    return get(MetricNames.blankLines(Side.SOURCE)) + get(MetricNames.blankLines(Side.TARGET));
  }

  /** Dead letters over both sides. */
  public long deadLetters() {
    return get(MetricNames.deadLetters(Side.SOURCE)) + get(MetricNames.deadLetters(Side.TARGET));
  }

  /** Events stored in raw_events. */
  public long raw() {
    return get(MetricNames.RAW_EVENTS);
  }

  /** True when input = blank lines + dead letters + raw events. */
  public boolean inputAddsUp() {
    return input() == blankLines() + deadLetters() + raw();
  }

  /** Late + duplicate + superseded + events in verdicts: where every raw event must end. */
  private long accounted() {
    return get(PairEvents.METRIC_LATE)
        + get(PairEvents.METRIC_DUPLICATE)
        + get(PairEvents.METRIC_SUPERSEDED)
        + get(PairEvents.METRIC_EVENTS_IN_VERDICTS);
  }

  /** True when raw events = late + duplicate + superseded + events in verdicts. */
  public boolean rawAddsUp() {
    return raw() == accounted();
  }

  /** Both identities hold. */
  public boolean addsUp() {
    return inputAddsUp() && rawAddsUp();
  }

  /** A compact line for progress logs. */
  public String progressLine() {
    return String.format(
        Locale.ROOT,
        "progress: input %d, dead letters %d, raw events %d, match %d, mismatch %d,"
            + " missing in target %d, missing in source %d, late %d",
        input(),
        deadLetters(),
        raw(),
        match(),
        mismatch(),
        get(PairEvents.METRIC_MISSING_IN_TARGET),
        get(PairEvents.METRIC_MISSING_IN_SOURCE),
        get(PairEvents.METRIC_LATE));
  }

  /** The printed summary, ending with "counts add up" or a loud warning naming the gap. */
  public String format() {
    StringBuilder b = new StringBuilder();
    b.append("streamrecon summary\n");
    row(b, "input lines/records, source", get(MetricNames.input(Side.SOURCE)));
    row(b, "input lines/records, target", get(MetricNames.input(Side.TARGET)));
    row(b, "blank lines, source", get(MetricNames.blankLines(Side.SOURCE)));
    row(b, "blank lines, target", get(MetricNames.blankLines(Side.TARGET)));
    row(b, "dead letters, source", get(MetricNames.deadLetters(Side.SOURCE)));
    row(b, "dead letters, target", get(MetricNames.deadLetters(Side.TARGET)));
    row(b, "raw events", raw());
    if (get(RAW_EVENTS_RECOGNISED) > 0) {
      row(b, "  of which replayed copies", get(RAW_EVENTS_RECOGNISED));
    }
    row(b, "match", match());
    if (get(Diff.MATCH_WITHIN_TOLERANCE) > 0) {
      row(b, "  of which within tolerance", get(Diff.MATCH_WITHIN_TOLERANCE));
    }
    row(b, "mismatch", mismatch());
    if (get(MetricNames.PAYLOADS_DELETED) > 0) {
      // Their verdicts are written and counted as mismatches, with no diff: not a gap.
      row(b, "  payloads deleted, not diffed", get(MetricNames.PAYLOADS_DELETED));
    }
    row(b, "missing in target", get(PairEvents.METRIC_MISSING_IN_TARGET));
    row(b, "missing in source", get(PairEvents.METRIC_MISSING_IN_SOURCE));
    row(b, "duplicate", get(PairEvents.METRIC_DUPLICATE));
    row(b, "superseded", get(PairEvents.METRIC_SUPERSEDED));
    row(b, "late", get(PairEvents.METRIC_LATE));
    row(b, "events in verdicts", get(PairEvents.METRIC_EVENTS_IN_VERDICTS));
    if (addsUp()) {
      b.append("counts add up: input ")
          .append(input())
          .append(" = blank lines ")
          .append(blankLines())
          .append(" + dead letters ")
          .append(deadLetters())
          .append(" + raw events ")
          .append(raw())
          .append("; raw events = late + duplicate + superseded + events in verdicts\n");
    } else {
      b.append("!!!!!!!! WARNING: COUNTS DO NOT ADD UP !!!!!!!!\n");
      if (!inputAddsUp()) {
        b.append(
            String.format(
                Locale.ROOT,
                "!!! input %d != blank lines %d + dead letters %d + raw events %d (gap %d)%n",
                input(),
                blankLines(),
                deadLetters(),
                raw(),
                input() - blankLines() - deadLetters() - raw()));
      }
      if (!rawAddsUp()) {
        long accounted = accounted();
        b.append(
            String.format(
                Locale.ROOT,
                "!!! raw events %d != late + duplicate + superseded + events in verdicts %d"
                    + " (gap %d)%n",
                raw(),
                accounted,
                raw() - accounted));
      }
    }
    return b.toString();
  }

  private static void row(StringBuilder b, String label, long value) {
    b.append(String.format(Locale.ROOT, "  %-30s %,12d%n", label, value));
  }
}
