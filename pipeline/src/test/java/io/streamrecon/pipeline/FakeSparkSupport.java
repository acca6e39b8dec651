package io.streamrecon.pipeline;

import io.streamrecon.pipeline.io.ReadKafka;
import io.streamrecon.pipeline.runner.JobIdentity;
import io.streamrecon.pipeline.runner.RunnerProfile;
import io.streamrecon.pipeline.runner.RunnerSupport;
import io.streamrecon.transforms.deltalake.DeltaLakeIO;
import org.apache.beam.sdk.options.PipelineOptions;

/**
 * The support of {@link FakeSparkRunner}, registered for the tests: its profile makes the choices
 * the Spark runner module's support makes (that module's tests compare the two), so that the
 * settings and graph of Spark streaming can be checked without Spark on the class path.
 */
public final class FakeSparkSupport implements RunnerSupport {
  @Override
  public boolean handles(PipelineOptions options) {
    return options.getRunner() == FakeSparkRunner.class;
  }

  @Override
  public RunnerProfile profile(PipelineOptions options, boolean streaming) {
    RunnerProfile batch =
        RunnerProfile.untuned(options).withKafkaSplits(ReadKafka.Splits.ONE_SPLIT);
    if (!streaming) {
      return batch;
    }
    return batch
        .withPairingBuckets(4096)
        .withCommitInterval(DeltaLakeIO.COMMIT_EACH_MICRO_BATCH)
        .withRawEventsCommitEachMicroBatch()
        .withParsedInputsAsOneCollection()
        .withPolledWatermark();
  }

  @Override
  public Recovery configure(PipelineOptions options, JobIdentity job) {
    throw new UnsupportedOperationException("graph and settings checks only");
  }
}
