package io.streamrecon.runners.spark;

import io.streamrecon.pipeline.cli.StreamRecon;
import io.streamrecon.runners.launch.QuietLogs;
import io.streamrecon.runners.launch.RunnerMain;

/**
 * Entry point for {@code spark-submit}: runs a reconciliation on Beam's classic SparkRunner. The
 * arguments are the options of {@code streamrecon run}; {@code --runner=SparkRunner} is added when
 * absent. The Spark master comes from spark-submit's {@code --master} (Beam's {@code --sparkMaster}
 * only applies when Spark was given none).
 */
public final class SparkMain {
  private SparkMain() {}

  /** Runs and exits with the run's code (0 = done and counts add up). */
  public static void main(String[] args) {
    QuietLogs.apply(args);
    System.exit(StreamRecon.execute(RunnerMain.runArgs(args, "SparkRunner")));
  }
}
