package io.streamrecon.pipeline.runner;

import org.apache.beam.sdk.options.PipelineOptions;

/**
 * A registered runner support whose runner is not on the class path, as a runner module's jar is
 * next to another runner: asking it anything fails to link. Registered for the tests, so that every
 * run of them shows such a support is passed over.
 */
public final class UnlinkableRunnerSupport implements RunnerSupport {
  @Override
  public boolean handles(PipelineOptions options) {
    throw new NoClassDefFoundError("org/example/runners/MissingRunner");
  }

  @Override
  public Recovery configure(PipelineOptions options, JobIdentity job) {
    throw new NoClassDefFoundError("org/example/runners/MissingRunner");
  }
}
