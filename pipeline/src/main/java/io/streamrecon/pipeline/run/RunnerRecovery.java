package io.streamrecon.pipeline.run;

import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.transforms.display.DisplayData;

/**
 * How one runner keeps an unbounded run's state across a crash. Runner modules register an
 * implementation in {@code META-INF/services}; {@link ReconcilePipeline#start} calls the one that
 * {@link #handles} the options before the pipeline is built.
 */
public interface RunnerRecovery {

  /** True when the options select this implementation's runner. */
  boolean handles(PipelineOptions options);

  /**
   * Points the runner's checkpoints at {@link JobIdentity#runnerDir} and arranges that a restart
   * restores from the newest completed one. Options the user set explicitly are kept.
   */
  Recovery configure(PipelineOptions options, JobIdentity job);

  /**
   * True when the user set the option (on the command line or with a setter): Beam's display
   * data lists set options only, not defaults. What {@link #configure} uses to keep them.
   */
  static boolean isExplicit(PipelineOptions options, String name) {
    return DisplayData.from(options).items().stream().anyMatch(i -> i.getKey().equals(name));
  }

  /**
   * What the runner guarantees after {@link #configure}.
   *
   * @param restoresState true when a restarted process continues from checkpointed state, so the
   *     Delta Lake writers may keep their transaction ids across processes
   * @param stableInput true when the runner supports {@code @RequiresStableInput} (Flink)
   * @param description one line for the log, e.g. where the checkpoints are and what is restored
   */
  record Recovery(boolean restoresState, boolean stableInput, String description) {}
}
