package io.streamrecon.pipeline.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Small helpers for tests that run parts in their own processes: java, polling, log tails. */
public final class ChildProcesses {
  private ChildProcesses() {}

  /** The java executable of this JVM. */
  public static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /**
   * This JVM's class path (under surefire a manifest-only jar that lists every entry), with {@code
   * first} entries before it.
   */
  public static String classPath(Path... first) {
    List<String> parts = new ArrayList<>();
    for (Path p : first) {
      parts.add(p.toString());
    }
    parts.add(System.getProperty("java.class.path"));
    return String.join(java.io.File.pathSeparator, parts);
  }

  /** Starts {@code command} with stdout and stderr appended to {@code log}. */
  public static Process start(List<String> command, Path log) throws IOException {
    return start(command, log, java.util.Map.of());
  }

  /** Starts {@code command} with {@code env} added to this JVM's environment. */
  public static Process start(List<String> command, Path log, java.util.Map<String, String> env)
      throws IOException {
    Files.createDirectories(log.getParent());
    ProcessBuilder pb =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    pb.environment().putAll(env);
    return pb.start();
  }

  /**
   * SIGTERM, then waits up to {@code seconds} for the process to end; returns its exit code, or
   * fails (after a SIGKILL) when it did not stop in time.
   */
  public static int stop(Process p, long seconds) throws InterruptedException {
    p.destroy();
    if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
      kill(p);
      throw new AssertionError("the process did not stop within " + seconds + " s of SIGTERM");
    }
    return p.exitValue();
  }

  /** SIGKILL, then waits until the process is gone. */
  public static void kill(Process p) {
    if (p == null) {
      return;
    }
    p.destroyForcibly();
    try {
      p.waitFor(60, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Polls {@code condition} every 500 ms until it holds; fails with {@code what} and the tail of
   * {@code log} at the deadline, or at once when {@code process} died.
   */
  public static void await(
      String what, long timeoutSeconds, Process process, Path log, BooleanSupplier condition)
      throws InterruptedException {
    await(what, timeoutSeconds, process, log, condition, () -> "");
  }

  /**
   * As {@link #await(String, long, Process, Path, BooleanSupplier)}; at the deadline the failure
   * also says what {@code state} describes (what was seen instead of the condition).
   */
  public static void await(
      String what,
      long timeoutSeconds,
      Process process,
      Path log,
      BooleanSupplier condition,
      java.util.function.Supplier<String> state)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
    while (true) {
      if (condition.getAsBoolean()) {
        return;
      }
      if (process != null && !process.isAlive()) {
        throw new AssertionError(
            "process exited with "
                + process.exitValue()
                + " while waiting for "
                + what
                + "\n"
                + tail(log, 40));
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "not reached within "
                + timeoutSeconds
                + " s: "
                + what
                + "\n"
                + state.get()
                + "\n"
                + tail(log, 40));
      }
      // Polling a condition on another process: there is nothing to block on.
      TimeUnit.MILLISECONDS.sleep(500);
    }
  }

  /** The last {@code n} lines of a log file, for failure messages. */
  public static String tail(Path log, int n) {
    if (log == null || !Files.exists(log)) {
      return "(no log)";
    }
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return "--- "
          + log
          + " (last "
          + n
          + " lines) ---\n"
          + String.join("\n", lines.subList(Math.max(0, lines.size() - n), lines.size()));
    } catch (IOException e) {
      return "(log unreadable: " + e + ")";
    }
  }
}
