package io.streamrecon.pipeline.runner;

import java.util.Iterator;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.transforms.display.DisplayData;

/**
 * What one runner needs from a run: its {@link RunnerProfile} (the runner-specific choices of the
 * settings and the graph), options tuned for how that runner executes it, and, for an unbounded
 * run, keeping its state across a crash. Runner modules register an implementation in {@code
 * META-INF/services}; a run consults the one that {@link #handles} the options. A runner with none
 * registered runs untuned and keeps no checkpoints.
 */
public interface RunnerSupport {

  /** True when the options select this implementation's runner. */
  boolean handles(PipelineOptions options);

  /**
   * The runner's choices for a run that is {@code streaming} (unbounded input, or {@code
   * --streaming}) or not; {@link RunnerProfile#untuned} unless the runner needs others.
   */
  default RunnerProfile profile(PipelineOptions options, boolean streaming) {
    return RunnerProfile.untuned(options);
  }

  /**
   * Adjusts the options for this runner before the pipeline is created, for bounded and unbounded
   * runs alike. Options the user set explicitly are kept.
   */
  default void tune(PipelineOptions options) {}

  /**
   * For an unbounded run: points the runner's checkpoints at {@link JobIdentity#runnerDir} and
   * arranges that a restart restores from the newest completed one. Options the user set explicitly
   * are kept.
   */
  Recovery configure(PipelineOptions options, JobIdentity job);

  /**
   * The registered support for the options' runner, if any. A registered support whose runner is
   * not on the class path (a runner module's jar next to another runner) cannot link, and cannot be
   * the one the options select either: it is passed over.
   */
  static Optional<RunnerSupport> find(PipelineOptions options) {
    Iterator<RunnerSupport> supports = ServiceLoader.load(RunnerSupport.class).iterator();
    // The loader moves past a provider that fails; the bound only guards against one that doesn't.
    for (int failures = 0; failures < 100; ) {
      try {
        if (!supports.hasNext()) {
          break;
        }
        RunnerSupport r = supports.next();
        if (r.handles(options)) {
          return Optional.of(r);
        }
      } catch (ServiceConfigurationError | LinkageError e) {
        failures++; // its runner's classes are missing
      }
    }
    return Optional.empty();
  }

  /**
   * True when the user set the option (on the command line or with a setter): Beam's display data
   * lists set options only, not defaults. What implementations use to keep them.
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
