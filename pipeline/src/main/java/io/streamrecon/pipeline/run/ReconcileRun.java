package io.streamrecon.pipeline.run;

import io.streamrecon.deltalake.DeltaLakeMaintenance;
import io.streamrecon.pipeline.DurationParser;
import io.streamrecon.pipeline.ReconcileOptions;
import io.streamrecon.pipeline.ReconcilePipeline;
import io.streamrecon.pipeline.ReconcilePipeline.WriterIdentity;
import io.streamrecon.pipeline.ReconcileSettings;
import io.streamrecon.pipeline.runner.JobIdentity;
import io.streamrecon.pipeline.runner.RunnerProfile;
import io.streamrecon.pipeline.runner.RunnerSupport;
import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.beam.runners.direct.DirectOptions;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the graph {@link ReconcilePipeline} builds: checks the inputs and the warehouse, lets the
 * runner's {@link RunnerSupport} tune the options (and, for an unbounded run, set up recovery),
 * starts the pipeline, logs progress, stops it on a signal and reads the summary.
 */
public final class ReconcileRun {
  private static final Logger LOG = LoggerFactory.getLogger(ReconcileRun.class);

  private ReconcileRun() {}

  /** A finished run: Beam's result and the counts. */
  public record FinishedRun(PipelineResult result, Summary summary) {}

  /**
   * Validates the options, checks inputs and warehouse, runs the pipeline and, for a bounded run,
   * waits for it. An unbounded run logs progress every {@code --progressInterval} until it is
   * cancelled.
   */
  public static FinishedRun run(ReconcileOptions options) {
    return run(options, ReconcileSettings.from(options));
  }

  /** As {@link #run(ReconcileOptions)}, with the settings already validated from the options. */
  public static FinishedRun run(ReconcileOptions options, ReconcileSettings settings) {
    Started started = begin(options, settings);
    ReconcileSettings s = started.settings();
    PipelineResult result = started.result();
    ScheduledExecutorService progress = startProgress(result, s);
    StopOnSignal stop = StopOnSignal.install(result);
    try {
      result.waitUntilFinish();
    } finally {
      stop.finished();
      if (progress != null) {
        progress.shutdownNow();
      }
    }
    if (s.bounded() && result.getState() == PipelineResult.State.DONE) {
      removeRowKeySidecars(s);
    }
    return new FinishedRun(result, Summary.of(result));
  }

  /**
   * Validates the options, checks inputs and warehouse, and starts the pipeline without waiting:
   * for unbounded (Kafka) runs that the caller stops with {@link PipelineResult#cancel}.
   */
  public static PipelineResult start(ReconcileOptions options) {
    return begin(options, ReconcileSettings.from(options)).result();
  }

  /** A started pipeline and the settings it runs with, its job identity resolved. */
  private record Started(PipelineResult result, ReconcileSettings settings) {}

  /**
   * The one job path: checks inputs and warehouse, resolves an unbounded run's job identity (which
   * fixes its run id), lets the runner tune the options and starts the graph with the settings.
   */
  private static Started begin(ReconcileOptions options, ReconcileSettings settings) {
    ReconcileSettings s = settings;
    if (s.streaming()) {
      options.setStreaming(true);
    }
    Preflight.check(options, s);
    Optional<RunnerSupport> support = RunnerSupport.find(options);
    WriterIdentity writer = WriterIdentity.perProcess(s.runId());
    if (!s.bounded()) {
      writer = prepareRecovery(options, s, support);
      s = s.withRunId(options.getRunId());
    }
    RulesArchive.save(s.warehouse(), s.rules());
    // The DirectRunner blocks in run() by default; start() must return while an unbounded run goes
    // on.
    options.as(DirectOptions.class).setBlockOnRun(false);
    support.ifPresent(r -> r.tune(options));
    Pipeline pipeline = ReconcilePipeline.build(Pipeline.create(options), s, writer);
    LOG.info(
        "run {}: source {}, target {}, warehouse {}, timeout {}, expiry {}, rules {}",
        s.runId(),
        s.source(),
        s.target(),
        s.warehouse(),
        DurationParser.format(s.timeout()),
        s.expiry(),
        s.rules().id() == null ? "none" : s.rules().id());
    return new Started(pipeline.run(), s);
  }

  /**
   * Lets the options' runner support ({@link RunnerSupport#tune}) adjust the options of a bounded
   * pipeline this class does not start itself: a replay's ({@link ReplayRun}).
   */
  static void tune(PipelineOptions options) {
    RunnerSupport.find(options).ifPresent(r -> r.tune(options));
  }

  /**
   * For a production run (the command line, the benchmark) on the DirectRunner: turns off its
   * immutability and encodability checks unless the user set them. They encode every element before
   * and after every step and clone it into the next bundle, to catch a DoFn that mutates its input
   * or a coder that does not round-trip, and make a run several times slower. Tests that run the
   * pipeline through this class keep them on. Other runners never make these checks.
   */
  public static void skipDirectRunnerChecks(PipelineOptions options) {
    if (!RunnerProfile.isDirectRunner(options)) {
      return;
    }
    DirectOptions direct = options.as(DirectOptions.class);
    if (!RunnerSupport.isExplicit(options, "enforceImmutability")) {
      direct.setEnforceImmutability(false);
    }
    if (!RunnerSupport.isExplicit(options, "enforceEncodability")) {
      direct.setEnforceEncodability(false);
    }
  }

  /**
   * For an unbounded run: refuses the DirectRunner unless state loss is accepted, finds or creates
   * the job's manifest (its run id goes into the options), and lets the runner's {@link
   * RunnerSupport} point its checkpoints at the job's root and restore the newest.
   */
  static WriterIdentity prepareRecovery(ReconcileOptions options, ReconcileSettings s) {
    return prepareRecovery(options, s, RunnerSupport.find(options));
  }

  private static WriterIdentity prepareRecovery(
      ReconcileOptions options, ReconcileSettings s, Optional<RunnerSupport> support) {
    if (s.runner().directRunner() && !options.getAllowStateLossOnCrash()) {
      throw new IllegalArgumentException(
          "an unbounded Kafka run on the DirectRunner keeps its state in memory only, so a crash"
              + " loses open entries: use --runner=SparkRunner (the default for Kafka) or"
              + " --runner=FlinkRunner (both embedded, and both restart from their checkpoints),"
              + " bound the run with --kafkaMaxRecords or --kafkaMaxReadTime, or pass"
              + " --allowStateLossOnCrash=true");
    }
    JobIdentity job = JobCheckpoints.prepare(options, s);
    options.setJobName(job.jobName());
    options.setRunId(job.runId());
    RunnerSupport.Recovery recovery = support.map(r -> r.configure(options, job)).orElse(null);
    if (recovery == null) {
      LOG.warn(
          "job {} (run {}): runner {} keeps no checkpoints here; a crash loses its open entries",
          job.jobName(),
          job.runId(),
          s.runner().runnerName() == null ? "?" : s.runner().runnerName());
      return WriterIdentity.perProcess(job.runId());
    }
    LOG.info(
        "job {} (run {}, {}): {}",
        job.jobName(),
        job.runId(),
        job.resumed() ? "resumed" : "first start",
        recovery.description());
    return recovery.restoresState()
        ? new WriterIdentity(job.runId(), recovery.stableInput())
        : WriterIdentity.perProcess(job.runId());
  }

  /**
   * A finished bounded run's row key sidecars (its large data files' keys, kept on storage instead
   * of in the commit's grouped pane) are no longer needed. Failing to remove them costs only disk:
   * VACUUM removes them later.
   */
  static void removeRowKeySidecars(ReconcileSettings s) {
    try {
      DeltaLakeMaintenance.removeRowKeySidecars(new Configuration(), s.warehouse(), s.runId());
    } catch (IOException | RuntimeException e) {
      LOG.warn("could not remove the row key sidecars of run {}; VACUUM will", s.runId(), e);
    }
  }

  private static ScheduledExecutorService startProgress(
      PipelineResult result, ReconcileSettings s) {
    long every = s.progressInterval().getMillis();
    if (every <= 0) {
      return null;
    }
    ScheduledExecutorService exec =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "streamrecon-progress");
              t.setDaemon(true);
              return t;
            });
    exec.scheduleAtFixedRate(
        () -> {
          try {
            LOG.info(Summary.of(result).progressLine());
          } catch (RuntimeException e) {
            LOG.debug("metrics not available yet", e);
          }
        },
        every,
        every,
        TimeUnit.MILLISECONDS);
    return exec;
  }
}
