package io.streamrecon.transforms;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.not;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import io.streamrecon.json.ComparisonRules;
import io.streamrecon.model.DeltaRecord;
import io.streamrecon.model.Difference;
import io.streamrecon.model.DifferenceKind;
import io.streamrecon.model.EventRef;
import io.streamrecon.model.PayloadPair;
import io.streamrecon.model.Pointer;
import io.streamrecon.model.Side;
import io.streamrecon.model.Status;
import io.streamrecon.model.Verdict;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.metrics.MetricNameFilter;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.MetricsFilter;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TypeDescriptor;
import org.joda.time.Instant;
import org.junit.Rule;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.JUnit4;

@RunWith(JUnit4.class)
public class DiffTest {
  @Rule public final transient TestPipeline pipeline = TestPipeline.create();

  private static final Instant T = Instant.parse("2026-01-01T00:00:00Z");
  private static final String SOURCE_HASH = "a".repeat(64);
  private static final String TARGET_HASH = "b".repeat(64);

  static EventRef ref(Side side, String id, String hash, long row) {
    return new EventRef(
        side,
        id,
        T.plus(row),
        hash,
        new Pointer(
            3,
            "side="
                + side
                + "/event_date=2026-01-01/part-00000000-0000-0000-0000-00000000000"
                + row
                + ".snappy.parquet",
            row,
            side,
            id,
            hash));
  }

  static Verdict mismatch(String id) {
    return Verdict.of(
        id,
        Status.MISMATCH,
        ref(Side.SOURCE, id, SOURCE_HASH, 1),
        ref(Side.TARGET, id, TARGET_HASH, 2),
        null);
  }

  private static PayloadPair pair(Verdict verdict, String source, String target) {
    return new PayloadPair(
        verdict, source.getBytes(StandardCharsets.UTF_8), target.getBytes(StandardCharsets.UTF_8));
  }

  /** detectedAt is "now"; compare everything else exactly. */
  static PCollection<DeltaRecord> withoutDetectedAt(PCollection<DeltaRecord> records) {
    return records
        .apply(
            "WithoutDetectedAt",
            MapElements.into(TypeDescriptor.of(DeltaRecord.class))
                .via(
                    r ->
                        new DeltaRecord(
                            r.verdictId(),
                            r.supersedes(),
                            r.naturalId(),
                            r.status(),
                            r.differences(),
                            r.sourceHash(),
                            r.targetHash(),
                            r.sourceEventTime(),
                            r.targetEventTime(),
                            r.sourcePointer(),
                            r.targetPointer(),
                            new Instant(0),
                            r.runId(),
                            r.rulesId())))
        .setCoder(ModelCoders.DeltaRecordCoder.of());
  }

  @Test
  public void diffsBothPayloadsIntoADeltaRecord() {
    Verdict first = mismatch("order-1");
    Verdict second = mismatch("order-2");
    PCollection<DeltaRecord> records =
        pipeline
            .apply(
                Create.of(
                        pair(
                            first,
                            "{\"id\":\"order-1\",\"lines\":[{\"qty\":1},{\"qty\":2}],"
                                + "\"total\":3.0}",
                            "{\"total\":3,\"id\":\"order-1\",\"lines\":[{\"qty\":1},{\"qty\":5}],"
                                + "\"note\":\"x\"}"),
                        pair(
                            second,
                            "{\"id\":\"order-2\",\"a/b\":{\"m~n\":true}}",
                            "{\"id\":\"order-2\",\"a/b\":[]}"))
                    .withCoder(ModelCoders.PayloadPairCoder.of()))
            .apply("Diff", Diff.create().withRunId("run-7"));
    PAssert.that(withoutDetectedAt(records))
        .containsInAnyOrder(
            DeltaRecord.of(
                first,
                List.of(
                    new Difference("/lines/1/qty", DifferenceKind.CHANGED, "2", "5"),
                    new Difference("/note", DifferenceKind.ONLY_IN_TARGET, null, "\"x\"")),
                new Instant(0),
                "run-7"),
            DeltaRecord.of(
                second,
                List.of(new Difference("/a~1b", DifferenceKind.CHANGED, "{\"m~n\":true}", "[]")),
                new Instant(0),
                "run-7"));
    pipeline.run().waitUntilFinish();
  }

  @Test
  public void ignoredFieldsAreNotDifferencesAndAnEmptyDiffIsCounted() {
    Verdict onlyIgnored = mismatch("k1");
    Verdict alsoReal = mismatch("k2");
    PCollection<DeltaRecord> records =
        pipeline
            .apply(
                Create.of(
                        pair(
                            onlyIgnored,
                            "{\"id\":\"k1\",\"meta\":{\"at\":1},\"arr\":[0,1]}",
                            "{\"id\":\"k1\",\"meta\":{\"at\":2},\"arr\":[9,1]}"),
                        pair(
                            alsoReal,
                            "{\"id\":\"k2\",\"meta\":{\"at\":1},\"v\":1}",
                            "{\"id\":\"k2\",\"meta\":{\"at\":2},\"v\":2}"))
                    .withCoder(ModelCoders.PayloadPairCoder.of()))
            .apply(
                "Diff",
                Diff.create().withIgnoreFields(List.of("/meta/at", "/arr/0")).withRunId("run-7"));
    PAssert.that(withoutDetectedAt(records))
        .containsInAnyOrder(
            DeltaRecord.of(onlyIgnored, List.of(), new Instant(0), "run-7"),
            DeltaRecord.of(
                alsoReal,
                List.of(new Difference("/v", DifferenceKind.CHANGED, "1", "2")),
                new Instant(0),
                "run-7"));
    PipelineResult result = pipeline.run();
    result.waitUntilFinish();
    long emptyDiffs = 0;
    for (MetricResult<Long> c :
        result
            .metrics()
            .queryMetrics(
                MetricsFilter.builder()
                    .addNameFilter(MetricNameFilter.named("streamrecon", "empty_diffs"))
                    .build())
            .getCounters()) {
      emptyDiffs += c.getAttempted();
    }
    assertEquals(1, emptyDiffs);
  }

  private static long counter(PipelineResult result, String name) {
    long sum = 0;
    for (MetricResult<Long> c :
        result
            .metrics()
            .queryMetrics(
                MetricsFilter.builder()
                    .addNameFilter(MetricNameFilter.named("streamrecon", name))
                    .build())
            .getCounters()) {
      sum += c.getAttempted();
    }
    return sum;
  }

  private static final String TOLERANCE_RULES =
      "{\"tolerance\":{\"/amount\":{\"abs\":0.01}},"
          + "\"normalize\":{\"/email\":[\"lowercase\"]}}";

  @Test
  public void aMismatchWithinToleranceIsAMatchKeepingItsVerdictIdAndCounted() {
    ComparisonRules rules = ComparisonRules.parse(TOLERANCE_RULES.getBytes(StandardCharsets.UTF_8));
    Verdict within = mismatch("k1");
    Verdict resolving =
        Verdict.of(
            "k2",
            Status.MISMATCH,
            ref(Side.SOURCE, "k2", SOURCE_HASH, 1),
            ref(Side.TARGET, "k2", TARGET_HASH, 2),
            "e".repeat(64));
    Verdict outside = mismatch("k3");
    PCollection<DeltaRecord> records =
        pipeline
            .apply(
                Create.of(
                        pair(
                            within,
                            "{\"amount\":10.00,\"email\":\"A@X\"}",
                            "{\"amount\":10.01,\"email\":\"a@x\"}"),
                        pair(resolving, "{\"amount\":1}", "{\"amount\":1.005}"),
                        pair(
                            outside,
                            "{\"amount\":10,\"email\":\"A@X\"}",
                            "{\"amount\":10.02,\"email\":\"b@x\"}"))
                    .withCoder(ModelCoders.PayloadPairCoder.of()))
            .apply("Diff", Diff.create().withRules(rules).withRunId("run-7"));
    PAssert.that(withoutDetectedAt(records))
        .containsInAnyOrder(
            // k1 is not written: a MATCH that supersedes nothing, as for hash MATCHes.
            DeltaRecord.of(resolving, Status.MATCH, List.of(), new Instant(0), "run-7", rules.id()),
            DeltaRecord.of(
                outside,
                Status.MISMATCH,
                List.of(
                    new Difference("/amount", DifferenceKind.CHANGED, "10", "10.02"),
                    new Difference("/email", DifferenceKind.CHANGED, "\"A@X\"", "\"b@x\"")),
                new Instant(0),
                "run-7",
                rules.id()));
    PipelineResult result = pipeline.run();
    result.waitUntilFinish();
    assertEquals(2, counter(result, Diff.MATCH_WITHIN_TOLERANCE));
    assertEquals(0, counter(result, "empty_diffs"));
  }

  @Test
  public void withEmitMatchesAMatchWithinToleranceIsWrittenWithThePairingVerdictId() {
    ComparisonRules rules = ComparisonRules.parse(TOLERANCE_RULES.getBytes(StandardCharsets.UTF_8));
    Verdict within = mismatch("k1");
    PCollection<DeltaRecord> records =
        pipeline
            .apply(
                Create.of(pair(within, "{\"amount\":10.00}", "{\"amount\":10.01}"))
                    .withCoder(ModelCoders.PayloadPairCoder.of()))
            .apply("Diff", Diff.create().withRules(rules).withEmitMatches(true).withRunId("r"));
    DeltaRecord expected =
        DeltaRecord.of(within, Status.MATCH, List.of(), new Instant(0), "r", rules.id());
    assertEquals(
        Verdict.idOf("k1", Status.MISMATCH, SOURCE_HASH, TARGET_HASH), expected.verdictId());
    PAssert.that(withoutDetectedAt(records)).containsInAnyOrder(expected);
    pipeline.run().waitUntilFinish();
  }

  @Test
  public void aStoredPayloadThatDoesNotParseFailsNamingTheRowNotThePayload() {
    Verdict verdict = mismatch("k");
    pipeline
        .apply(
            Create.of(pair(verdict, "{\"id\":\"k\"}", "{\"id\":\"SECRET-4111\""))
                .withCoder(ModelCoders.PayloadPairCoder.of()))
        .apply("Diff", Diff.create().withRunId("run-7"));
    Pipeline.PipelineExecutionException e =
        assertThrows(Pipeline.PipelineExecutionException.class, () -> pipeline.run());
    assertThat(e.getCause(), instanceOf(IllegalStateException.class));
    assertThat(
        e.getCause().getMessage(),
        containsString(
            "stored target payload of verdict "
                + verdict.verdictId()
                + " at "
                + verdict.target().pointer().describe()
                + " does not parse: truncated JSON"));
    assertThat(e.getCause().getMessage(), not(containsString("SECRET")));
  }

  @Test
  public void settingsAreValidated() {
    assertThat(
        assertThrows(IllegalArgumentException.class, () -> Diff.create().withRunId(" "))
            .getMessage(),
        containsString("runId must be a non-blank string"));
    assertThat(
        assertThrows(
                IllegalArgumentException.class,
                () -> Diff.create().withIgnoreFields(List.of("meta")))
            .getMessage(),
        containsString("ignoreFields: 'meta' is not a JSON Pointer"));
    PCollection<PayloadPair> input =
        pipeline.apply(Create.empty(ModelCoders.PayloadPairCoder.of()));
    assertThat(
        assertThrows(IllegalArgumentException.class, () -> input.apply("Diff", Diff.create()))
            .getMessage(),
        containsString("Diff: runId is required; call withRunId(..)"));
    pipeline.enableAbandonedNodeEnforcement(false);
  }

  /**
   * A payload deleted from raw_events before the fetch: the verdict is written as it was judged,
   * with one difference per deleted side at the document's root and no values; nothing is diffed.
   */
  @Test
  public void aDeletedPayloadWritesTheVerdictWithAPayloadDeletedDifference() {
    Verdict sourceGone = mismatch("gone-1");
    Verdict bothGone = mismatch("gone-2");
    PCollection<DeltaRecord> records =
        pipeline
            .apply(
                Create.of(
                        new PayloadPair(
                            sourceGone,
                            null,
                            "{\"id\":\"gone-1\"}".getBytes(StandardCharsets.UTF_8)),
                        new PayloadPair(bothGone, null, null))
                    .withCoder(ModelCoders.PayloadPairCoder.of()))
            .apply("Diff", Diff.create().withRunId("run-7"));
    PAssert.that(withoutDetectedAt(records))
        .containsInAnyOrder(
            DeltaRecord.of(
                sourceGone,
                List.of(new Difference("", DifferenceKind.SOURCE_PAYLOAD_DELETED, null, null)),
                new Instant(0),
                "run-7"),
            DeltaRecord.of(
                bothGone,
                List.of(
                    new Difference("", DifferenceKind.SOURCE_PAYLOAD_DELETED, null, null),
                    new Difference("", DifferenceKind.TARGET_PAYLOAD_DELETED, null, null)),
                new Instant(0),
                "run-7"));
    PipelineResult result = pipeline.run();
    result.waitUntilFinish();
    long diffed = 0;
    for (MetricResult<Long> c :
        result
            .metrics()
            .queryMetrics(
                MetricsFilter.builder()
                    .addNameFilter(MetricNameFilter.named("streamrecon", Diff.PAIRS_DIFFED))
                    .build())
            .getCounters()) {
      diffed += c.getAttempted();
    }
    assertEquals("nothing diffed", 0, diffed);
  }
}
