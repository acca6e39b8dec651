package io.streamrecon.pipeline;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.hasItems;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.streamrecon.model.EventRef;
import io.streamrecon.model.Pointer;
import io.streamrecon.model.Side;
import io.streamrecon.model.Status;
import io.streamrecon.model.Verdict;
import io.streamrecon.transforms.ModelCoders;
import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.runners.TransformHierarchy;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PValue;
import org.joda.time.Instant;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class ReconcilePipelineTest {
  @Rule public final transient TemporaryFolder tmp = new TemporaryFolder();
  @Rule public final transient TestPipeline p = TestPipeline.create();

  /** The graph of a run on two files: bounded. */
  private Pipeline filesGraph() throws Exception {
    File f = tmp.newFile("x.jsonl");
    ReconcileOptions options =
        PipelineOptionsFactory.fromArgs(
                "--source=" + f, "--target=" + f, "--warehouse=" + tmp.newFolder("wh"))
            .as(ReconcileOptions.class);
    return ReconcilePipeline.build(Pipeline.create(options), options);
  }

  @Test
  public void graphHasTheNamedStepsOfSpecSection1() throws Exception {
    Pipeline pipeline = filesGraph();
    List<String> names = new ArrayList<>();
    pipeline.traverseTopologically(
        new Pipeline.PipelineVisitor.Defaults() {
          @Override
          public CompositeBehavior enterCompositeTransform(TransformHierarchy.Node node) {
            if (node.getEnclosingNode() != null && node.getEnclosingNode().isRootNode()) {
              names.add(node.getFullName());
            }
            return CompositeBehavior.ENTER_TRANSFORM;
          }

          @Override
          public void visitPrimitiveTransform(TransformHierarchy.Node node) {
            if (node.getEnclosingNode() != null && node.getEnclosingNode().isRootNode()) {
              names.add(node.getFullName());
            }
          }
        });
    assertThat(
        names,
        hasItems(
            "ReadSource",
            "ReadTarget",
            "MergeSides",
            "ParseEvents",
            "CountDeadLetters",
            "WriteDeadLetters",
            "WriteRawEvents",
            "CountRawEvents",
            "PairEvents",
            "FetchPayloads",
            "DiffPayloads",
            "SelectReportedVerdicts",
            "RecordVerdicts",
            "MergeDeltaRecords",
            "WriteDeltas",
            "WriteLateEvents"));
  }

  /** The graph of a streaming run on two Kafka topics on the SparkRunner. */
  private Pipeline sparkStreamingGraph() throws Exception {
    ReconcileOptions options =
        PipelineOptionsFactory.fromArgs(
                "--source=kafka://localhost:9092/a",
                "--target=kafka://localhost:9092/b",
                "--warehouse=" + tmp.newFolder("wh"),
                // Event-time expiry there needs the runner module's watermark source; the parse
                // and write steps checked here are the same for either expiry.
                "--expiry=processing")
            .as(ReconcileOptions.class);
    options.setRunner(FakeSparkRunner.class);
    assertTrue(ReconcileSettings.from(options).runner().parsedInputsAsOneCollection());
    return ReconcilePipeline.build(Pipeline.create(options), options);
  }

  /**
   * The classic SparkRunner persists the whole output of a step with more than one consumed output:
   * in batch to {@code --storageLevel}, in streaming serialized in memory for each micro-batch,
   * decoded again for each output. In a bounded run or on Spark streaming no such step may carry
   * payloads: with ParseEvents' events in one, every payload was coded, persisted and read back
   * before it reached the writer.
   */
  @Test
  public void inABoundedRunNoStepWithSeveralOutputsCarriesPayloads() throws Exception {
    assertNoStepWithSeveralOutputsCarriesPayloads(filesGraph());
  }

  @Test
  public void onSparkStreamingNoStepWithSeveralOutputsCarriesPayloads() throws Exception {
    assertNoStepWithSeveralOutputsCarriesPayloads(sparkStreamingGraph());
  }

  private static void assertNoStepWithSeveralOutputsCarriesPayloads(Pipeline pipeline) {
    Set<Class<?>> payloadCoders =
        Set.of(
            ModelCoders.RawInputCoder.class,
            ModelCoders.EventCoder.class,
            ModelCoders.ParsedInputCoder.class,
            ModelCoders.PayloadPairCoder.class);
    List<String> offenders = new ArrayList<>();
    List<String> multiOutput = new ArrayList<>();
    pipeline.traverseTopologically(
        new Pipeline.PipelineVisitor.Defaults() {
          @Override
          public void visitPrimitiveTransform(TransformHierarchy.Node node) {
            if (node.getOutputs().size() < 2) {
              return;
            }
            multiOutput.add(node.getFullName());
            for (PValue out : node.getOutputs().values()) {
              if (out instanceof PCollection<?> pc
                  && payloadCoders.contains(pc.getCoder().getClass())) {
                offenders.add(node.getFullName() + " -> " + pc.getName());
              }
            }
          }
        });
    assertEquals(List.of(), offenders);
    // The check had something to look at: PairEvents and the raw_events writer have two or more.
    assertThat(multiOutput, hasItems(startsWith("PairEvents/"), startsWith("WriteRawEvents/")));
  }

  @Test
  public void reportsMissingAlwaysAndMatchesOnlyWhenAskedOrSuperseding() {
    Verdict missing = Verdict.of("a", Status.MISSING_IN_TARGET, ref(Side.SOURCE, "a"), null, null);
    Verdict match =
        Verdict.of("b", Status.MATCH, ref(Side.SOURCE, "b"), ref(Side.TARGET, "b"), null);
    Verdict resolved =
        Verdict.of("c", Status.MATCH, ref(Side.SOURCE, "c"), ref(Side.TARGET, "c"), "f".repeat(64));
    PCollection<Verdict> verdicts =
        p.apply(Create.of(missing, match, resolved).withCoder(ModelCoders.VerdictCoder.of()));
    PAssert.that(
            verdicts
                .apply("Default", ParDo.of(new SelectReportedFn(false)))
                .setCoder(ModelCoders.VerdictCoder.of()))
        .containsInAnyOrder(missing, resolved);
    PAssert.that(
            verdicts
                .apply("EmitMatches", ParDo.of(new SelectReportedFn(true)))
                .setCoder(ModelCoders.VerdictCoder.of()))
        .containsInAnyOrder(missing, match, resolved);
    p.run().waitUntilFinish();
  }

  private static EventRef ref(Side side, String id) {
    String hash = (side == Side.SOURCE ? "a" : "b").repeat(64);
    return new EventRef(
        side, id, new Instant(0), hash, new Pointer(0, "f.parquet", 0, side, id, hash));
  }
}
