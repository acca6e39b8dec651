package io.streamrecon.runners.flink;

import io.streamrecon.pipeline.cli.StreamRecon;
import io.streamrecon.runners.launch.QuietLogs;
import io.streamrecon.runners.launch.RunnerMain;

/**
 * Entry point for {@code flink run}: runs a reconciliation on Beam's FlinkRunner. The arguments are
 * the options of {@code streamrecon run}; {@code --runner=FlinkRunner} is added when absent. With
 * Beam's default {@code --flinkMaster=[auto]} the job goes to the cluster {@code flink run}
 * targets.
 */
public final class FlinkMain {
  private FlinkMain() {}

  /** Runs and exits with the run's code (0 = done and counts add up). */
  public static void main(String[] args) {
    QuietLogs.apply(args);
    int code = StreamRecon.execute(RunnerMain.runArgs(args, "FlinkRunner"));
    // flink run calls main() inside its own JVM; exit only on failure so a successful job lets
    // the client finish normally.
    if (code != 0) {
      System.exit(code);
    }
  }
}
