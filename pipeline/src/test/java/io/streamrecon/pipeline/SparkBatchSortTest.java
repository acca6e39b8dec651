package io.streamrecon.pipeline;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.PipelineRunner;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;

/**
 * On the SparkRunner in batch the pipeline makes Spark's sorters spill every 100k elements, so
 * that the sort before PairEvents does not hold every pointer of the run (issue 9, point 5). It
 * does so through the system property Spark reads when the runner makes its context; streaming,
 * other runners and a value the user set are left alone.
 */
public class SparkBatchSortTest {
  /** Only its simple name matters. */
  abstract static class FakeSparkRunner extends PipelineRunner<PipelineResult> {}

  private String saved;

  @Before
  public void clearProperty() {
    saved = System.clearProperty(ReconcilePipeline.SPARK_SPILL_THRESHOLD);
  }

  @After
  public void restoreProperty() {
    if (saved == null) {
      System.clearProperty(ReconcilePipeline.SPARK_SPILL_THRESHOLD);
    } else {
      System.setProperty(ReconcilePipeline.SPARK_SPILL_THRESHOLD, saved);
    }
  }

  private static String thresholdAfter(Class<? extends PipelineRunner<?>> runner, String... args) {
    PipelineOptions o = PipelineOptionsFactory.fromArgs(args).create();
    o.setRunner(runner);
    ReconcilePipeline.boundSparkBatchSort(o);
    return System.getProperty(ReconcilePipeline.SPARK_SPILL_THRESHOLD);
  }

  @Test
  public void sparkBatchSpillsEvery25kElements() {
    assertEquals("25000", thresholdAfter(FakeSparkRunner.class));
  }

  @Test
  public void sparkStreamingIsLeftAlone() {
    assertNull(thresholdAfter(FakeSparkRunner.class, "--streaming=true"));
  }

  @Test
  public void otherRunnersAreLeftAlone() {
    assertNull(thresholdAfter(DirectRunner.class));
  }

  @Test
  public void aValueTheUserSetIsKept() {
    System.setProperty(ReconcilePipeline.SPARK_SPILL_THRESHOLD, "5000");
    assertEquals("5000", thresholdAfter(FakeSparkRunner.class));
  }
}
