package io.streamrecon.pipeline;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.List;
import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.PipelineRunner;
import org.apache.beam.sdk.options.ExperimentalOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.junit.Test;

/**
 * On the SparkRunner in batch the pipeline turns on the experiment that lets the runner stream a
 * splittable DoFn's output, so reading a file does not hold its lines (issue 9, point 5; the
 * runner-level check is runners/spark SparkBatchFileReadTest). Streaming and other runners are
 * left alone, and the experiment is not added twice.
 */
public class SparkBatchReadsTest {
  /** Only its simple name matters. */
  abstract static class FakeSparkRunner extends PipelineRunner<PipelineResult> {}

  private static ExperimentalOptions after(
      Class<? extends PipelineRunner<?>> runner, String... args) {
    ExperimentalOptions o = PipelineOptionsFactory.fromArgs(args).as(ExperimentalOptions.class);
    o.setRunner(runner);
    ReconcilePipeline.streamSparkBatchReads(o);
    return o;
  }

  private static boolean hasIt(ExperimentalOptions o) {
    return ExperimentalOptions.hasExperiment(o, ReconcilePipeline.SPARK_SDF_BOUNDED_OUTPUT);
  }

  @Test
  public void sparkBatchStreamsSplittableOutput() {
    assertTrue(hasIt(after(FakeSparkRunner.class)));
  }

  @Test
  public void sparkStreamingAndOtherRunnersAreLeftAlone() {
    assertFalse(hasIt(after(FakeSparkRunner.class, "--streaming=true")));
    assertFalse(hasIt(after(DirectRunner.class)));
  }

  @Test
  public void otherExperimentsAreKeptAndNoneIsAddedTwice() {
    ExperimentalOptions o =
        after(
            FakeSparkRunner.class,
            "--experiments=" + ReconcilePipeline.SPARK_SDF_BOUNDED_OUTPUT + ",other");
    assertEquals(List.of(ReconcilePipeline.SPARK_SDF_BOUNDED_OUTPUT, "other"), o.getExperiments());
  }
}
