package io.streamrecon.pipeline.report;

import io.streamrecon.model.Status;
import java.util.List;
import java.util.Map;

/**
 * Everything the report shows, aggregated from the tables: small enough to render whatever the
 * table sizes were (the reader keeps no row beyond the 20 most recent mismatches).
 *
 * @param selection what was read, in words (warehouse, run, event-time window)
 * @param runs counts per run, from raw_events, dead_letters, deltas and late_events
 * @param totals the same counts over every selected run
 * @param finalVerdicts verdicts in the window that no later verdict supersedes, per status
 * @param supersededVerdicts verdict rows in the window that a later verdict replaced
 * @param timeline verdicts per event-time bucket and status
 * @param fields differing fields over final MISMATCH records, most frequent first
 * @param mismatchRecords final MISMATCH records in the window (the base of the field counts)
 * @param latency detection latency (or data age, for batch runs)
 * @param deadLetters dead letters grouped by stage and error, most frequent first
 * @param latePerHour late events per hour of event time (epoch millis of the hour → count)
 * @param recentMismatches the most recent final MISMATCH records, newest first
 */
record ReportData(
    String warehouse,
    String selection,
    String generatedAt,
    List<RunCounts> runs,
    RunCounts totals,
    Map<Status, Long> finalVerdicts,
    long supersededVerdicts,
    Timeline timeline,
    List<FieldStat> fields,
    long mismatchRecords,
    Latency latency,
    List<DeadLetterGroup> deadLetters,
    Map<Long, Long> latePerHour,
    List<Mismatch> recentMismatches) {

  /**
   * Row counts of one run (or of all selected runs). {@code verdictEvents} counts the raw events
   * the stored verdicts account for, as PairEvents counts them: 2 for a first MATCH or MISMATCH of
   * a pair, 1 for a MISSING_* or for a verdict that supersedes another (only the new version is
   * new).
   */
  record RunCounts(
      String runId,
      long rawSource,
      long rawTarget,
      long deadSource,
      long deadTarget,
      long deltaRows,
      long verdictEvents,
      long late) {
    long raw() {
      return rawSource + rawTarget;
    }

    long dead() {
      return deadSource + deadTarget;
    }

    /** Input as the tables record it: every input is a raw event or a dead letter. */
    long input() {
      return raw() + dead();
    }

    /** Raw events neither late nor behind a stored verdict: MATCH pairs, duplicates, superseded. */
    long eventsWithoutStoredVerdict() {
      return raw() - late - verdictEvents;
    }

    RunCounts plus(RunCounts o) {
      return new RunCounts(
          runId,
          rawSource + o.rawSource,
          rawTarget + o.rawTarget,
          deadSource + o.deadSource,
          deadTarget + o.deadTarget,
          deltaRows + o.deltaRows,
          verdictEvents + o.verdictEvents,
          late + o.late);
    }
  }

  /** Verdict counts per bucket: {@code counts[bucket][status ordinal]}. */
  record Timeline(TimeBuckets.Unit unit, long firstBucket, long[][] counts) {
    int size() {
      return counts.length;
    }
  }

  /**
   * One collapsed path: in how many MISMATCH records it differs, how many differences, and one
   * example (values truncated).
   */
  record FieldStat(
      String path,
      long records,
      long differences,
      String exampleKind,
      String exampleSource,
      String exampleTarget,
      String exampleNaturalId) {}

  /**
   * Percentiles of detectedAt − the later event time, in milliseconds, over {@code count} verdicts;
   * {@code streaming} false means no selected run looked like a streaming run, and the figures are
   * then the data's age at detection.
   */
  record Latency(
      boolean streaming, long count, long p50, long p90, long p99, long max, String basis) {}

  /** Dead letters with one stage and error text. */
  record DeadLetterGroup(String stage, String error, long count, String side, String example) {}

  /** A MISMATCH record as the table of recent ones shows it (values already truncated). */
  record Mismatch(
      String naturalId,
      long detectedAt,
      long eventTime,
      String runId,
      List<Diff> differences,
      int totalDifferences) {}

  /** One difference, values truncated. */
  record Diff(String path, String kind, String source, String target) {}
}
