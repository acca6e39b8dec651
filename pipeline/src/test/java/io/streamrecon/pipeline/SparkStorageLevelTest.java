package io.streamrecon.pipeline;

import static org.junit.Assert.assertEquals;

import io.streamrecon.pipeline.ReconcilePipeline.SparkStorageOptions;
import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.PipelineRunner;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.junit.Test;

/**
 * On the SparkRunner the pipeline persists serialized (issue 9, point 5); elsewhere it leaves the
 * option alone, and an explicit level is kept. That the option is the Spark runner's own is shown
 * by {@code SparkRunnerScenarioTest}, which runs with both views registered.
 */
public class SparkStorageLevelTest {
  /** Only its simple name matters. */
  abstract static class FakeSparkRunner extends PipelineRunner<PipelineResult> {}

  private static String levelAfter(Class<? extends PipelineRunner<?>> runner, String... args) {
    PipelineOptions o = PipelineOptionsFactory.fromArgs(args).withValidation().create();
    o.setRunner(runner);
    ReconcilePipeline.preferSerializedSparkStorage(o);
    return o.as(SparkStorageOptions.class).getStorageLevel();
  }

  @Test
  public void sparkPersistsSerializedAndSpillable() {
    assertEquals("MEMORY_AND_DISK_SER", levelAfter(FakeSparkRunner.class));
  }

  @Test
  public void anExplicitLevelIsKept() {
    PipelineOptionsFactory.register(SparkStorageOptions.class);
    assertEquals("DISK_ONLY", levelAfter(FakeSparkRunner.class, "--storageLevel=DISK_ONLY"));
  }

  @Test
  public void otherRunnersAreLeftAlone() {
    assertEquals("MEMORY_ONLY", levelAfter(DirectRunner.class));
  }
}
