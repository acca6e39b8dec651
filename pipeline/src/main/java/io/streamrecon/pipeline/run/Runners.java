package io.streamrecon.pipeline.run;

import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.StreamingOptions;

/**
 * Which runner the options name, by the runner's simple name: this module has no compile
 * dependency on the Spark or Flink runner, and Beam's default runner (none set) is the DirectRunner.
 */
public final class Runners {
  private Runners() {}

  public static boolean isDirect(PipelineOptions options) {
    return options.getRunner() == null || simpleName(options).equals("DirectRunner");
  }

  public static boolean isSpark(PipelineOptions options) {
    return simpleName(options).contains("SparkRunner");
  }

  /** The SparkRunner in batch mode (not streaming). */
  public static boolean isSparkBatch(PipelineOptions options) {
    return isSpark(options) && !options.as(StreamingOptions.class).isStreaming();
  }

  private static String simpleName(PipelineOptions options) {
    return options.getRunner() == null ? "" : options.getRunner().getSimpleName();
  }
}
