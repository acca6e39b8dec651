package io.streamrecon.transforms;

import io.streamrecon.model.DeltaRecord;
import io.streamrecon.model.Status;
import io.streamrecon.model.Verdict;
import java.util.List;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.PCollection;
import org.joda.time.Instant;

/**
 * Turns verdicts that need no diff (MATCH, MISSING_IN_TARGET, MISSING_IN_SOURCE) into {@link
 * DeltaRecord}s with no differences.
 *
 * <p>A MISMATCH verdict is rejected with an {@link IllegalArgumentException}: recording it here
 * would silently write a mismatch without its differences. MISMATCHes go through payload fetch and
 * {@link Diff}; one arriving here is a wiring defect, not bad input.
 */
public final class RecordVerdicts
    extends PTransform<PCollection<Verdict>, PCollection<DeltaRecord>> {
  private static final long serialVersionUID = 1L;

  private final String runId;
  private final String rulesId;

  private RecordVerdicts(String runId, String rulesId) {
    this.runId = runId;
    this.rulesId = rulesId;
  }

  /** A run id must be set with {@link #withRunId}. */
  public static RecordVerdicts create() {
    return new RecordVerdicts(null, null);
  }

  /**
   * The id of the comparison rules the verdicts were judged by ({@code ComparisonRules#id()}),
   * written to every record; null (the default) for a run without rules.
   */
  public RecordVerdicts withRulesId(String rulesId) {
    if (rulesId != null && !rulesId.matches("[0-9a-f]{64}")) {
      throw new IllegalArgumentException("rulesId must be null or a lower-case hex SHA-256");
    }
    return new RecordVerdicts(runId, rulesId);
  }

  /** The run that records the verdicts, written to every record. Required. */
  public RecordVerdicts withRunId(String runId) {
    if (runId == null || runId.isBlank()) {
      throw new IllegalArgumentException("runId must be a non-blank string");
    }
    return new RecordVerdicts(runId, rulesId);
  }

  @Override
  public PCollection<DeltaRecord> expand(PCollection<Verdict> input) {
    if (runId == null) {
      throw new IllegalArgumentException("RecordVerdicts: runId is required; call withRunId(..)");
    }
    return input
        .apply("ToDeltaRecords", ParDo.of(new RecordFn(runId, rulesId)))
        .setCoder(ModelCoders.DeltaRecordCoder.of());
  }

  /** One record per verdict, no differences. */
  static final class RecordFn extends DoFn<Verdict, DeltaRecord> {
    private static final long serialVersionUID = 1L;

    private final String runId;
    private final String rulesId;

    RecordFn(String runId, String rulesId) {
      this.runId = runId;
      this.rulesId = rulesId;
    }

    @ProcessElement
    public void processElement(@Element Verdict verdict, OutputReceiver<DeltaRecord> out) {
      if (verdict.status() == Status.MISMATCH) {
        throw new IllegalArgumentException(
            "RecordVerdicts got MISMATCH verdict "
                + verdict.verdictId()
                + "; mismatches need their differences and go through Diff");
      }
      out.output(
          DeltaRecord.of(verdict, verdict.status(), List.of(), Instant.now(), runId, rulesId));
    }
  }
}
