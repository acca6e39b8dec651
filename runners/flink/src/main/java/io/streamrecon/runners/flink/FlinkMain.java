package io.streamrecon.runners.flink;

import io.streamrecon.pipeline.StreamRecon;
import java.util.ArrayList;
import java.util.List;

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
    List<String> all = new ArrayList<>();
    all.add("run");
    boolean hasRunner = false;
    for (String a : args) {
      hasRunner |= a.startsWith("--runner=");
      all.add(a);
    }
    if (!hasRunner) {
      all.add("--runner=FlinkRunner");
    }
    int code = StreamRecon.execute(all.toArray(new String[0]));
    // flink run calls main() inside its own JVM; exit only on failure so a successful job lets
    // the client finish normally.
    if (code != 0) {
      System.exit(code);
    }
  }
}
