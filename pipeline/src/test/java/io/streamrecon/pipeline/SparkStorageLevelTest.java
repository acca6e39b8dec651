package io.streamrecon.pipeline;

import static org.junit.Assert.assertEquals;

import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.PipelineRunner;
import org.apache.beam.sdk.options.Default;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.junit.Test;

/**
 * On the SparkRunner in batch the pipeline persists to local disk only (issue 9, point 5); in
 * streaming and on other runners it leaves the option alone, and an explicit level is kept. The Spark runner is not on this module's class
 * path, so a stand-in interface plays its options here; {@code SparkRunnerScenarioTest} runs the
 * same code against the real {@code SparkCommonPipelineOptions}.
 */
public class SparkStorageLevelTest {
  /** Only its simple name matters. */
  abstract static class FakeSparkRunner extends PipelineRunner<PipelineResult> {}

  /** The Spark runner's storageLevel, as SparkCommonPipelineOptions declares it. */
  public interface StandInSparkOptions extends PipelineOptions {
    @Default.String("MEMORY_ONLY")
    String getStorageLevel();

    void setStorageLevel(String value);
  }

  private static String levelAfter(Class<? extends PipelineRunner<?>> runner, String... args) {
    PipelineOptionsFactory.register(StandInSparkOptions.class);
    PipelineOptions o = PipelineOptionsFactory.fromArgs(args).create();
    o.setRunner(runner);
    ReconcilePipeline.boundSparkBatchStorage(o, StandInSparkOptions.class.getName());
    return o.as(StandInSparkOptions.class).getStorageLevel();
  }

  @Test
  public void sparkBatchPersistsToDiskOnly() {
    assertEquals("DISK_ONLY", levelAfter(FakeSparkRunner.class));
  }

  @Test
  public void sparkStreamingIsLeftAlone() {
    assertEquals("MEMORY_ONLY", levelAfter(FakeSparkRunner.class, "--streaming=true"));
  }

  @Test
  public void anExplicitLevelIsKept() {
    assertEquals(
        "MEMORY_AND_DISK_SER",
        levelAfter(FakeSparkRunner.class, "--storageLevel=MEMORY_AND_DISK_SER"));
  }

  @Test
  public void otherRunnersAreLeftAlone() {
    assertEquals("MEMORY_ONLY", levelAfter(DirectRunner.class));
  }

  @Test
  public void withoutSparkOnTheClassPathNothingHappens() {
    PipelineOptions o = PipelineOptionsFactory.create();
    o.setRunner(FakeSparkRunner.class);
    ReconcilePipeline.boundSparkBatchStorage(o); // the real interface: not found, no error
    assertEquals(FakeSparkRunner.class, o.getRunner());
  }
}
