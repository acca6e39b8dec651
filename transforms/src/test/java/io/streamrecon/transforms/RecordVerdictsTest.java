package io.streamrecon.transforms;

import static io.streamrecon.transforms.DiffTest.mismatch;
import static io.streamrecon.transforms.DiffTest.ref;
import static io.streamrecon.transforms.DiffTest.withoutDetectedAt;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.instanceOf;
import static org.junit.Assert.assertThrows;

import io.streamrecon.model.DeltaRecord;
import io.streamrecon.model.Side;
import io.streamrecon.model.Status;
import io.streamrecon.model.Verdict;
import java.util.List;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.values.PCollection;
import org.joda.time.Instant;
import org.junit.Rule;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.JUnit4;

@RunWith(JUnit4.class)
public class RecordVerdictsTest {
  @Rule public final transient TestPipeline pipeline = TestPipeline.create();

  @Test
  public void recordsVerdictsWithoutDifferences() {
    String hash = "c".repeat(64);
    Verdict match =
        Verdict.of(
            "m",
            Status.MATCH,
            ref(Side.SOURCE, "m", hash, 1),
            ref(Side.TARGET, "m", hash, 2),
            null);
    Verdict missingInTarget =
        Verdict.of("s", Status.MISSING_IN_TARGET, ref(Side.SOURCE, "s", hash, 3), null, null);
    Verdict missingInSource =
        Verdict.of(
            "t", Status.MISSING_IN_SOURCE, null, ref(Side.TARGET, "t", hash, 4), "d".repeat(64));
    PCollection<DeltaRecord> records =
        pipeline
            .apply(
                Create.of(match, missingInTarget, missingInSource)
                    .withCoder(ModelCoders.VerdictCoder.of()))
            .apply("RecordVerdicts", RecordVerdicts.create().withRunId("run-9"));
    Instant zero = new Instant(0);
    PAssert.that(withoutDetectedAt(records))
        .containsInAnyOrder(
            new DeltaRecord(
                match.verdictId(),
                null,
                "m",
                Status.MATCH,
                List.of(),
                hash,
                hash,
                match.source().eventTime(),
                match.target().eventTime(),
                match.source().pointer(),
                match.target().pointer(),
                zero,
                "run-9"),
            new DeltaRecord(
                missingInTarget.verdictId(),
                null,
                "s",
                Status.MISSING_IN_TARGET,
                List.of(),
                hash,
                null,
                missingInTarget.source().eventTime(),
                null,
                missingInTarget.source().pointer(),
                null,
                zero,
                "run-9"),
            new DeltaRecord(
                missingInSource.verdictId(),
                "d".repeat(64),
                "t",
                Status.MISSING_IN_SOURCE,
                List.of(),
                null,
                hash,
                null,
                missingInSource.target().eventTime(),
                null,
                missingInSource.target().pointer(),
                zero,
                "run-9"));
    pipeline.run().waitUntilFinish();
  }

  @Test
  public void everyRecordNamesTheRulesItWasJudgedBy() {
    String hash = "c".repeat(64);
    String rulesId = "1".repeat(64);
    Verdict missing =
        Verdict.of("s", Status.MISSING_IN_TARGET, ref(Side.SOURCE, "s", hash, 3), null, null);
    PCollection<DeltaRecord> records =
        pipeline
            .apply(Create.of(missing).withCoder(ModelCoders.VerdictCoder.of()))
            .apply("RecordVerdicts", RecordVerdicts.create().withRunId("r").withRulesId(rulesId));
    PAssert.that(withoutDetectedAt(records))
        .containsInAnyOrder(
            DeltaRecord.of(
                missing, Status.MISSING_IN_TARGET, List.of(), new Instant(0), "r", rulesId));
    pipeline.run().waitUntilFinish();
    assertThrows(
        IllegalArgumentException.class, () -> RecordVerdicts.create().withRulesId("not-a-hash"));
  }

  @Test
  public void aMismatchIsAWiringDefect() {
    Verdict verdict = mismatch("k");
    pipeline
        .apply(Create.of(verdict).withCoder(ModelCoders.VerdictCoder.of()))
        .apply("RecordVerdicts", RecordVerdicts.create().withRunId("run-9"));
    Pipeline.PipelineExecutionException e =
        assertThrows(Pipeline.PipelineExecutionException.class, () -> pipeline.run());
    assertThat(e.getCause(), instanceOf(IllegalArgumentException.class));
    assertThat(
        e.getCause().getMessage(),
        containsString("RecordVerdicts got MISMATCH verdict " + verdict.verdictId()));
  }

  @Test
  public void runIdIsRequired() {
    assertThat(
        assertThrows(IllegalArgumentException.class, () -> RecordVerdicts.create().withRunId(null))
            .getMessage(),
        containsString("runId must be a non-blank string"));
    PCollection<Verdict> input = pipeline.apply(Create.empty(ModelCoders.VerdictCoder.of()));
    assertThat(
        assertThrows(
                IllegalArgumentException.class,
                () -> input.apply("RecordVerdicts", RecordVerdicts.create()))
            .getMessage(),
        containsString("RecordVerdicts: runId is required; call withRunId(..)"));
    pipeline.enableAbandonedNodeEnforcement(false);
  }
}
