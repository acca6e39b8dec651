package io.streamrecon.pipeline.run;

import io.streamrecon.pipeline.ReconcileSettings;
import io.streamrecon.pipeline.io.InputSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.beam.sdk.io.FileSystems;
import org.apache.beam.sdk.io.fs.EmptyMatchTreatment;
import org.apache.beam.sdk.io.fs.MatchResult;
import org.apache.beam.sdk.options.PipelineOptions;

/**
 * Checks made before a run starts, so that a mistyped path fails in a second with one clear line
 * rather than minutes later inside a runner: every file input matches at least one file, and a
 * local warehouse directory can be created and written.
 */
public final class Preflight {
  private Preflight() {}

  /** Fails with an {@link IllegalArgumentException} naming the option when a check fails. */
  public static void check(PipelineOptions options, ReconcileSettings s) {
    FileSystems.setDefaultPipelineOptions(options);
    checkInput("source", s.source());
    checkInput("target", s.target());
    checkWarehouse(s.warehouse());
  }

  private static void checkInput(String option, InputSpec spec) {
    if (spec.isKafka()) {
      return;
    }
    try {
      List<MatchResult> results =
          FileSystems.match(List.of(spec.filePattern()), EmptyMatchTreatment.ALLOW);
      MatchResult r = results.get(0);
      if (r.status() != MatchResult.Status.OK || r.metadata().isEmpty()) {
        throw new IllegalArgumentException(
            "--" + option + "=" + spec.filePattern() + ": no such file (nothing matches)");
      }
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "--" + option + "=" + spec.filePattern() + ": cannot list (" + e.getMessage() + ")");
    }
  }

  /** Local paths only: a Hadoop URI (s3a://, hdfs://) is checked by the first commit. */
  static void checkWarehouse(String warehouse) {
    Warehouse w = Warehouse.of(warehouse);
    if (!w.isLocal()) {
      return;
    }
    Path dir = w.localPath();
    try {
      Files.createDirectories(dir);
      Path probe = Files.createTempFile(dir, ".streamrecon-write-check", ".tmp");
      Files.delete(probe);
    } catch (IOException | SecurityException e) {
      throw new IllegalArgumentException(
          "--warehouse=" + warehouse + " is not writable (" + describe(e) + ")");
    }
  }

  private static String describe(Exception e) {
    String type = e.getClass().getSimpleName();
    return e.getMessage() == null ? type : type + ": " + e.getMessage();
  }
}
