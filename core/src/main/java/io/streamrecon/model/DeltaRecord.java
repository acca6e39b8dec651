package io.streamrecon.model;

import java.util.List;
import java.util.Objects;
import org.joda.time.Instant;

/**
 * A difference record (docs/design.md#deltarecord), one row of the {@code deltas} table. Fields of
 * a missing side are {@code null}; {@code differences} is empty unless the status is {@link
 * Status#MISMATCH}. {@code rulesId} names the comparison rules the record was judged by
 * (docs/design.md#comparison-rules), {@code null} for a run without a rules file.
 */
public record DeltaRecord(
    String verdictId,
    String supersedes,
    String naturalId,
    Status status,
    List<Difference> differences,
    String sourceHash,
    String targetHash,
    Instant sourceEventTime,
    Instant targetEventTime,
    Pointer sourcePointer,
    Pointer targetPointer,
    Instant detectedAt,
    String runId,
    String rulesId) {
  public DeltaRecord {
    Objects.requireNonNull(verdictId, "verdictId");
    Objects.requireNonNull(naturalId, "naturalId");
    Objects.requireNonNull(status, "status");
    differences = List.copyOf(Objects.requireNonNull(differences, "differences"));
    Objects.requireNonNull(detectedAt, "detectedAt");
    Objects.requireNonNull(runId, "runId");
  }

  /** A record judged without comparison rules ({@code rulesId} null). */
  public DeltaRecord(
      String verdictId,
      String supersedes,
      String naturalId,
      Status status,
      List<Difference> differences,
      String sourceHash,
      String targetHash,
      Instant sourceEventTime,
      Instant targetEventTime,
      Pointer sourcePointer,
      Pointer targetPointer,
      Instant detectedAt,
      String runId) {
    this(
        verdictId,
        supersedes,
        naturalId,
        status,
        differences,
        sourceHash,
        targetHash,
        sourceEventTime,
        targetEventTime,
        sourcePointer,
        targetPointer,
        detectedAt,
        runId,
        null);
  }

  /** The record for a verdict without comparison rules. */
  public static DeltaRecord of(
      Verdict verdict, List<Difference> differences, Instant detectedAt, String runId) {
    return of(verdict, verdict.status(), differences, detectedAt, runId, null);
  }

  /**
   * The record for a verdict that needs no diff (MATCH, MISSING_*), or with a computed diff, with
   * the status decided after the diff (a MISMATCH within tolerance becomes a MATCH; its verdictId
   * stays the pairing verdict's, see docs/comparison-rules.md#decisions).
   */
  public static DeltaRecord of(
      Verdict verdict,
      Status status,
      List<Difference> differences,
      Instant detectedAt,
      String runId,
      String rulesId) {
    EventRef s = verdict.source();
    EventRef t = verdict.target();
    return new DeltaRecord(
        verdict.verdictId(),
        verdict.supersedes(),
        verdict.naturalId(),
        status,
        differences,
        s == null ? null : s.sha256(),
        t == null ? null : t.sha256(),
        s == null ? null : s.eventTime(),
        t == null ? null : t.eventTime(),
        s == null ? null : s.pointer(),
        t == null ? null : t.pointer(),
        detectedAt,
        runId,
        rulesId);
  }
}
