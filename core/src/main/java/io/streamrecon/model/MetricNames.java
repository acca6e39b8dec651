package io.streamrecon.model;

import java.util.Locale;

/**
 * The Beam metrics namespace of every streamrecon counter, and the names of the counters the
 * pipeline keeps for a run's summary. The counters of a transform that keeps its own (pairing,
 * diff, the Delta Lake writers) are named next to it.
 */
public final class MetricNames {
  /** The metrics namespace of every streamrecon counter. */
  public static final String NAMESPACE = "streamrecon";

  /** Counter of events stored in raw_events (counted on the pointers the write returns). */
  public static final String RAW_EVENTS = "summary_raw_events";

  /**
   * Counter of payloads a verdict needed that were deleted from raw_events (one per side): their
   * verdicts are written with a {@code *_PAYLOAD_DELETED} difference instead of a diff.
   */
  public static final String PAYLOADS_DELETED = "summary_payloads_deleted";

  private MetricNames() {}

  /** Counter of input lines or records read for a side. */
  public static String input(Side side) {
    return "summary_input_" + lower(side);
  }

  /** Counter of blank lines skipped in a side's JSON Lines files. */
  public static String blankLines(Side side) {
    return "summary_blank_lines_" + lower(side);
  }

  /** Counter of dead letters for a side. */
  public static String deadLetters(Side side) {
    return "summary_dead_letters_" + lower(side);
  }

  private static String lower(Side side) {
    return side.name().toLowerCase(Locale.ROOT);
  }
}
