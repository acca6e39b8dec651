package io.streamrecon.runners.spark;

import io.streamrecon.pipeline.testing.Scenario;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import org.apache.beam.sdk.PipelineResult;

/** What the Spark streaming tests share: stopping a job, and its verdicts so far against a goal. */
final class SparkStreamingJobs {
  private SparkStreamingJobs() {}

  /**
   * Cancels the streaming job. Stopping the streaming context interrupts its job generator, which
   * may then report the interrupt of a Kafka metadata call as the job's error; only that is
   * tolerated.
   */
  static void stop(PipelineResult result) throws java.io.IOException {
    try {
      result.cancel();
    } catch (RuntimeException e) {
      Throwable t = e;
      while (t.getCause() != null && !(t instanceof InterruptedException)) {
        t = t.getCause();
      }
      if (!(t instanceof InterruptedException)) {
        throw e;
      }
    }
  }

  /** The final verdict per id written so far ({@link Scenario#finalView}), empty before any. */
  static Set<String> currentView(Path wh) {
    return Files.isDirectory(wh.resolve("deltas").resolve("_delta_log"))
        ? Scenario.finalView(wh)
        : Set.of();
  }

  /** The verdicts still missing from {@code wh} and those it has beyond {@code expected}. */
  static String difference(Set<String> expected, Path wh) {
    Set<String> now = currentView(wh);
    Set<String> missing = new TreeSet<>(expected);
    missing.removeAll(now);
    Set<String> extra = new TreeSet<>(now);
    extra.removeAll(expected);
    return "missing " + missing + ", unexpected " + extra;
  }
}
