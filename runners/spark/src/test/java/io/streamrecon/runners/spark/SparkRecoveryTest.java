package io.streamrecon.runners.spark;

import static org.junit.Assert.assertEquals;

import io.streamrecon.pipeline.run.JobIdentity;
import org.apache.beam.runners.spark.SparkPipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.junit.Test;

/** What {@link SparkRecovery} sets for an unbounded run, and what it leaves to the user. */
public class SparkRecoveryTest {
  private static final JobIdentity JOB =
      new JobIdentity("job", "run-1", "file:///warehouse/_checkpoints/job", true);

  @Test
  public void checkpointsLiveUnderTheJobAndStatefulStreamsAreCheckpointedEveryBatch() {
    SparkPipelineOptions o =
        PipelineOptionsFactory.fromArgs("--runner=SparkRunner", "--batchIntervalMillis=5000")
            .as(SparkPipelineOptions.class);
    new SparkRecovery().configure(o, JOB);
    assertEquals(JOB.runnerDir("spark"), o.getCheckpointDir());
    // Spark's own default (-1) checkpoints a stateful stream every tenth batch only.
    assertEquals(5000L, (long) o.getCheckpointDurationMillis());
  }

  @Test
  public void anUnsetBatchIntervalIsOneTheSoakKeptPaceWith() {
    SparkPipelineOptions o =
        PipelineOptionsFactory.fromArgs("--runner=SparkRunner").as(SparkPipelineOptions.class);
    new SparkRecovery().configure(o, JOB);
    assertEquals(SparkRecovery.DEFAULT_BATCH_INTERVAL_MILLIS, (long) o.getBatchIntervalMillis());
    assertEquals(SparkRecovery.DEFAULT_BATCH_INTERVAL_MILLIS, (long) o.getCheckpointDurationMillis());
  }

  @Test
  public void optionsTheUserSetAreKept() {
    SparkPipelineOptions o =
        PipelineOptionsFactory.fromArgs(
                "--runner=SparkRunner",
                "--checkpointDir=/elsewhere",
                "--batchIntervalMillis=2000",
                "--checkpointDurationMillis=30000")
            .as(SparkPipelineOptions.class);
    new SparkRecovery().configure(o, JOB);
    assertEquals("/elsewhere", o.getCheckpointDir());
    assertEquals(2000L, (long) o.getBatchIntervalMillis());
    assertEquals(30000L, (long) o.getCheckpointDurationMillis());
  }
}
