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

  /**
   * Prefix of a Kafka partition's gauge of records between the reader's position and the latest
   * offset; labelled with {@link #labelled}.
   */
  public static final String KAFKA_RECORDS_BEHIND = "kafka_records_behind_latest";

  /** Prefix of a Kafka partition's gauge of its watermark, in epoch milliseconds. */
  public static final String KAFKA_WATERMARK_MILLIS = "kafka_watermark_millis";

  private MetricNames() {}

  /**
   * A metric name carrying labels, {@code base{key=value,...}} in the order given. Beam metrics
   * have a name only; exporters turn these pairs into series labels. Keys and values must not
   * contain {@code ,={}}: they are fixed words, sides, table and topic names, numbers.
   */
  public static String labelled(String base, String... keysAndValues) {
    if (keysAndValues.length % 2 != 0) {
      throw new IllegalArgumentException("labels come in key-value pairs: " + base);
    }
    StringBuilder b = new StringBuilder(base).append('{');
    for (int i = 0; i < keysAndValues.length; i += 2) {
      b.append(i == 0 ? "" : ",").append(keysAndValues[i]).append('=').append(keysAndValues[i + 1]);
    }
    return b.append('}').toString();
  }

  /** Counter of rows a Delta Lake commit added to a table (copies not stored again excluded). */
  public static String rowsCommitted(String table) {
    return "deltalake_rows_committed_" + table;
  }

  /** Distribution of the milliseconds one Delta Lake commit to a table took. */
  public static String commitMillis(String table) {
    return "deltalake_commit_millis_" + table;
  }

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
