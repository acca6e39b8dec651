package io.streamrecon.runners.spark;

import static org.junit.Assert.assertEquals;

import io.streamrecon.pipeline.runner.JobIdentity;
import org.apache.beam.runners.spark.SparkPipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** What {@link SparkRecovery} sets for an unbounded run, and what it leaves to the user. */
public class SparkRecoveryTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  /** A first start: each test records its own options in its own checkpoint root. */
  private JobIdentity job;

  @Before
  public void firstStart() throws Exception {
    job = new JobIdentity("job", "run-1", tmp.newFolder("job").toURI().toString(), false);
  }

  @Test
  public void checkpointsLiveUnderTheJobAndStatefulStreamsAreCheckpointedEveryBatch() {
    SparkPipelineOptions o =
        PipelineOptionsFactory.fromArgs("--runner=SparkRunner", "--batchIntervalMillis=5000")
            .as(SparkPipelineOptions.class);
    new SparkRecovery().configure(o, job);
    assertEquals(job.runnerDir("spark"), o.getCheckpointDir());
    // Spark's own default (-1) checkpoints a stateful stream every tenth batch only.
    assertEquals(5000L, (long) o.getCheckpointDurationMillis());
  }

  @Test
  public void anUnsetBatchIntervalIsOneTheSoakKeptPaceWith() {
    SparkPipelineOptions o =
        PipelineOptionsFactory.fromArgs("--runner=SparkRunner").as(SparkPipelineOptions.class);
    new SparkRecovery().configure(o, job);
    assertEquals(SparkRecovery.DEFAULT_BATCH_INTERVAL_MILLIS, (long) o.getBatchIntervalMillis());
    assertEquals(
        SparkRecovery.DEFAULT_BATCH_INTERVAL_MILLIS, (long) o.getCheckpointDurationMillis());
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
    new SparkRecovery().configure(o, job);
    assertEquals("/elsewhere", o.getCheckpointDir());
    assertEquals(2000L, (long) o.getBatchIntervalMillis());
    assertEquals(30000L, (long) o.getCheckpointDurationMillis());
  }
}
