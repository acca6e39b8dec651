package io.streamrecon.pipeline.run;

import io.streamrecon.model.Side;
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
 * The counts of a run (SPEC §7) and the two identities they must satisfy:
 *
 * <pre>
 *   input  = blank lines + dead letters + raw events
 *   raw    = late + duplicate + superseded + events in verdicts
 * </pre>
 *
 * Input counts every line of a file (blank ones included) and every Kafka record; a blank line is
 * not an event and ends nowhere else, so it has its own count. Counts come from Beam metrics in the
 * namespace {@value #NAMESPACE}: the pipeline's own counters (input, blank lines, dead letters, raw
 * events), those of {@code PairEvents}, and the raw events a Delta Lake write recognised as copies
 * of rows its job stored before (a replay after a restore; shown, not part of the identities).
 */
public record Summary(Map<String, Long> counts) {
  /** The metrics namespace of every streamrecon counter. */
  public static final String NAMESPACE = "streamrecon";

  /** Counter of events stored in raw_events (counted on the pointers the write returns). */
  public static final String RAW_EVENTS = "summary_raw_events";

  /**
   * Counter of Diff: pairing MISMATCHes that were MATCHes within tolerance (SPEC §3a). Pairing
   * counted them as {@code mismatch}; the summary moves them to match, so counts still add up.
   */
  public static final String MATCH_WITHIN_TOLERANCE = "match_within_tolerance";

  /**
   * Counter of raw events the raw_events write did not store again because the same job had stored
   * them (a replayed Kafka record); their pointers name the stored row. Kept by DeltaLakeIO.
   */
  public static final String RAW_EVENTS_RECOGNISED = "deltalake_copies_recognised_raw_events";

  /** The counters PairEvents keeps (CONTRACTS.md), and Diff's tolerance counter. */
  public static final List<String> PAIRING =
      List.of(
          "match",
          "mismatch",
          "missing_in_target",
          "missing_in_source",
          "duplicate",
          "superseded",
          "late",
          "events_in_verdicts",
          MATCH_WITHIN_TOLERANCE);

  public Summary {
    counts = Map.copyOf(counts);
  }

  /** Counter of input lines or records read for a side. */
  public static String inputCounter(Side side) {
    return "summary_input_" + side.name().toLowerCase(Locale.ROOT);
  }

  /** Counter of blank lines skipped in a side's JSON Lines files. */
  public static String blankLineCounter(Side side) {
    return "summary_blank_lines_" + side.name().toLowerCase(Locale.ROOT);
  }

  /** Counter of dead letters for a side. */
  public static String deadLetterCounter(Side side) {
    return "summary_dead_letters_" + side.name().toLowerCase(Locale.ROOT);
  }

  /** Every counter name the summary reads. */
  public static List<String> counterNames() {
    List<String> names = new java.util.ArrayList<>();
    for (Side s : Side.values()) {
      names.add(inputCounter(s));
    }
    for (Side s : Side.values()) {
      names.add(blankLineCounter(s));
    }
    for (Side s : Side.values()) {
      names.add(deadLetterCounter(s));
    }
    names.add(RAW_EVENTS);
    names.add(RAW_EVENTS_RECOGNISED);
    names.addAll(PAIRING);
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
                    .addNameFilter(MetricNameFilter.inNamespace(NAMESPACE))
                    .build());
    for (MetricResult<Long> c : metrics.getCounters()) {
      String name = c.getName().getName();
      if (counts.containsKey(name)) {
        counts.merge(name, value(c), Long::sum);
      }
    }
    return new Summary(counts);
  }

  private static long value(MetricResult<Long> c) {
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
    return get("match") + get(MATCH_WITHIN_TOLERANCE);
  }

  /** MISMATCH verdicts with differences under the rules. */
  public long mismatch() {
    return get("mismatch") - get(MATCH_WITHIN_TOLERANCE);
  }

  /** Input lines or records over both sides. */
  public long input() {
    return get(inputCounter(Side.SOURCE)) + get(inputCounter(Side.TARGET));
  }

  /** Blank lines skipped over both sides. */
  public long blankLines() {
    return get(blankLineCounter(Side.SOURCE)) + get(blankLineCounter(Side.TARGET));
  }

  /** Dead letters over both sides. */
  public long deadLetters() {
    return get(deadLetterCounter(Side.SOURCE)) + get(deadLetterCounter(Side.TARGET));
  }

  /** Events stored in raw_events. */
  public long raw() {
    return get(RAW_EVENTS);
  }

  /** True when input = blank lines + dead letters + raw events. */
  public boolean inputAddsUp() {
    return input() == blankLines() + deadLetters() + raw();
  }

  /** True when raw events = late + duplicate + superseded + events in verdicts. */
  public boolean rawAddsUp() {
    return raw()
        == get("late") + get("duplicate") + get("superseded") + get("events_in_verdicts");
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
        get("missing_in_target"),
        get("missing_in_source"),
        get("late"));
  }

  /** The printed summary, ending with "counts add up" or a loud warning naming the gap. */
  public String format() {
    StringBuilder b = new StringBuilder();
    b.append("streamrecon summary\n");
    row(b, "input lines/records, source", get(inputCounter(Side.SOURCE)));
    row(b, "input lines/records, target", get(inputCounter(Side.TARGET)));
    row(b, "blank lines, source", get(blankLineCounter(Side.SOURCE)));
    row(b, "blank lines, target", get(blankLineCounter(Side.TARGET)));
    row(b, "dead letters, source", get(deadLetterCounter(Side.SOURCE)));
    row(b, "dead letters, target", get(deadLetterCounter(Side.TARGET)));
    row(b, "raw events", raw());
    if (get(RAW_EVENTS_RECOGNISED) > 0) {
      row(b, "  of which replayed copies", get(RAW_EVENTS_RECOGNISED));
    }
    row(b, "match", match());
    if (get(MATCH_WITHIN_TOLERANCE) > 0) {
      row(b, "  of which within tolerance", get(MATCH_WITHIN_TOLERANCE));
    }
    row(b, "mismatch", mismatch());
    row(b, "missing in target", get("missing_in_target"));
    row(b, "missing in source", get("missing_in_source"));
    row(b, "duplicate", get("duplicate"));
    row(b, "superseded", get("superseded"));
    row(b, "late", get("late"));
    row(b, "events in verdicts", get("events_in_verdicts"));
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
        long accounted =
            get("late") + get("duplicate") + get("superseded") + get("events_in_verdicts");
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
