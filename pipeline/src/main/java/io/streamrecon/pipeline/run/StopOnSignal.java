package io.streamrecon.pipeline.run;

import java.util.concurrent.TimeUnit;
import org.apache.beam.sdk.PipelineResult;
import org.joda.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stops a running pipeline when the JVM is asked to stop (SIGTERM, Ctrl-C): a shutdown hook cancels
 * the {@link PipelineResult} (the SparkRunner stops its streaming context, the FlinkRunner cancels
 * the job, the DirectRunner stops its executors) and waits a bounded time for it to end. A Delta
 * Lake commit in flight either completes (a commit is one atomic log entry) or never happens; its
 * data files are then unreferenced and VACUUM removes them, and the source offsets of the batch are
 * not committed, so a restart reads it again. If the runner does not end within {@link #GRACE}, a
 * watchdog halts the JVM so that a stop never takes longer than about 25 seconds.
 */
public final class StopOnSignal {
  private static final Logger LOG = LoggerFactory.getLogger(StopOnSignal.class);

  /** How long the hook waits for the runner to end after cancelling it. */
  static final Duration GRACE = Duration.standardSeconds(15);

  /** Extra time for other shutdown hooks (Spark's, Flink's) before the watchdog halts the JVM. */
  static final long HALT_AFTER_MILLIS = TimeUnit.SECONDS.toMillis(25);

  /** Exit status of a run stopped by a signal (128 + SIGTERM, as shells report it). */
  static final int STOPPED_STATUS = 143;

  private final Thread hook;
  private volatile boolean finished;

  private StopOnSignal(PipelineResult result) {
    this.hook = new Thread(() -> stop(result), "streamrecon-stop");
  }

  /** Installs the hook for {@code result}; call {@link #finished()} when the run has ended. */
  public static StopOnSignal install(PipelineResult result) {
    StopOnSignal s = new StopOnSignal(result);
    Runtime.getRuntime().addShutdownHook(s.hook);
    return s;
  }

  /** The run ended by itself: the hook is no longer needed. */
  public void finished() {
    finished = true;
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // The JVM is already shutting down: the hook sees `finished` and does nothing.
    }
  }

  private void stop(PipelineResult result) {
    System.err.println("streamrecon: stopping (signal received)");
    if (finished) {
      return; // the runner's own shutdown hook ended the run first
    }
    Thread watchdog =
        new Thread(
            () -> {
              try {
                Thread.sleep(HALT_AFTER_MILLIS);
              } catch (InterruptedException e) {
                return;
              }
              System.err.println("streamrecon: the runner did not stop in time; halting");
              Runtime.getRuntime().halt(STOPPED_STATUS);
            },
            "streamrecon-stop-watchdog");
    watchdog.setDaemon(true);
    watchdog.start();
    System.err.println("streamrecon: cancelling the pipeline");
    try {
      PipelineResult.State state = result.getState();
      if (state == null || !state.isTerminal()) {
        result.cancel();
        state = result.waitUntilFinish(GRACE);
      }
      System.err.println("streamrecon: pipeline stopped in state " + state);
    } catch (Exception | LinkageError e) {
      // Cancelling interrupts the runner's threads, which may surface as an error here.
      LOG.warn("cancelling the pipeline on shutdown: {}", e.toString());
    }
  }
}
