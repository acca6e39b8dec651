package io.streamrecon.runners.spark;

import io.streamrecon.pipeline.StreamRecon;
import java.util.ArrayList;
import java.util.List;

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
    List<String> all = new ArrayList<>();
    all.add("run");
    boolean hasRunner = false;
    for (String a : args) {
      hasRunner |= a.startsWith("--runner=");
      all.add(a);
    }
    if (!hasRunner) {
      all.add("--runner=SparkRunner");
    }
    System.exit(StreamRecon.execute(all.toArray(new String[0])));
  }
}
