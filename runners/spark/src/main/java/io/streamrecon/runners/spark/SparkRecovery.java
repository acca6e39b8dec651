package io.streamrecon.runners.spark;

import io.streamrecon.pipeline.JobIdentity;
import io.streamrecon.pipeline.RunnerRecovery;
import org.apache.beam.runners.spark.SparkPipelineOptions;
import org.apache.beam.runners.spark.SparkRunner;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.transforms.display.DisplayData;

/**
 * Makes an unbounded run on the classic SparkRunner recoverable: its checkpoint directory defaults
 * to {@code <checkpoint root>/spark} (Beam's own default is {@code /tmp/<random job name>}, so a
 * restarted job would never find it), from which {@code JavaStreamingContext.getOrCreate} restores
 * the streaming context, state and Kafka read positions included. On recovery Spark deserializes
 * the first start's graph and options; the job manifest's check of state-shaping options is what
 * keeps a changed option from being silently ignored.
 */
public final class SparkRecovery implements RunnerRecovery {

  @Override
  public boolean handles(PipelineOptions options) {
    return options.getRunner() != null && SparkRunner.class.isAssignableFrom(options.getRunner());
  }

  @Override
  public Recovery configure(PipelineOptions options, JobIdentity job) {
    SparkPipelineOptions spark = options.as(SparkPipelineOptions.class);
    boolean given =
        DisplayData.from(options).items().stream().anyMatch(i -> i.getKey().equals("checkpointDir"));
    if (!given) {
      spark.setCheckpointDir(job.runnerDir("spark"));
    }
    return new Recovery(
        true,
        false,
        "SparkRunner, streaming context checkpointed under "
            + spark.getCheckpointDir()
            + (job.resumed() ? "; restoring it if present" : ""));
  }
}
