package io.streamrecon.bench;

/**
 * Final verdict counts of one run, plus the events it counted as duplicates and as late.
 *
 * @param match final MATCH verdicts
 * @param mismatch final MISMATCH verdicts
 * @param missingInTarget final MISSING_IN_TARGET verdicts
 * @param missingInSource final MISSING_IN_SOURCE verdicts
 * @param duplicates events recognised as redeliveries
 * @param late events past the watermark
 */
public record VerdictCounts(
    long match,
    long mismatch,
    long missingInTarget,
    long missingInSource,
    long duplicates,
    long late) {

  /** Final verdicts of all kinds. */
  public long verdicts() {
    return match + mismatch + missingInTarget + missingInSource;
  }

  /** {@code m=.. mm=.. mit=.. mis=.. dup=.. late=..}, for logs and the report. */
  public String brief() {
    return "match="
        + match
        + " mismatch="
        + mismatch
        + " missingInTarget="
        + missingInTarget
        + " missingInSource="
        + missingInSource
        + " duplicates="
        + duplicates
        + " late="
        + late;
  }
}
