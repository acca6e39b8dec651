package io.streamrecon.pipeline;

import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.PipelineRunner;
import org.apache.beam.sdk.options.PipelineOptions;

/**
 * A runner whose registered support ({@link FakeSparkSupport}) makes the Spark runner's choices, so
 * that the Spark-specific settings and graph can be checked without Spark on the test class path.
 * It builds graphs ({@code Pipeline.create} needs {@link #fromOptions}) and never runs one.
 */
public final class FakeSparkRunner extends PipelineRunner<PipelineResult> {
  /** Called by Beam when a pipeline is created with this runner. */
  public static FakeSparkRunner fromOptions(PipelineOptions options) {
    return new FakeSparkRunner();
  }

  @Override
  public PipelineResult run(Pipeline pipeline) {
    throw new UnsupportedOperationException("graph checks only");
  }
}
