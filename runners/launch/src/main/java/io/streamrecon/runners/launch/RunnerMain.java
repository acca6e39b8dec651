package io.streamrecon.runners.launch;

import java.util.ArrayList;
import java.util.List;

/**
 * The command line of a deployable jar's entry point ({@code SparkMain}, {@code FlinkMain}): the
 * user's arguments are the options of {@code streamrecon run}, and the jar's runner is added when
 * no {@code --runner} is given (so {@code --runner=DirectRunner} still works for a check).
 */
public final class RunnerMain {
  private RunnerMain() {}

  /** {@code run}, the arguments, and {@code --runner=runner} unless they name one. */
  public static String[] runArgs(String[] args, String runner) {
    List<String> all = new ArrayList<>();
    all.add("run");
    boolean hasRunner = false;
    for (String a : args) {
      hasRunner |= a.startsWith("--runner=");
      all.add(a);
    }
    if (!hasRunner) {
      all.add("--runner=" + runner);
    }
    return all.toArray(new String[0]);
  }
}
