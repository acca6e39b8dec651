package io.streamrecon.pipeline.metrics;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.apache.beam.sdk.metrics.MetricQueryResults;

/**
 * The file of {@code --metricsTextFile}: a run's final series in the text exposition format, for
 * the textfile collector of Prometheus' node exporter. A batch run leaves nothing up to scrape, and
 * no Pushgateway is assumed; the collector reads every {@code *.prom} file of its directory on each
 * scrape, so the file is written whole under another name and then renamed over the old one.
 */
public final class PrometheusTextFile {
  /** The file name ending the textfile collector reads. */
  static final String SUFFIX = ".prom";

  private PrometheusTextFile() {}

  /**
   * The file of the option's value, {@code null} when blank; checked before the run.
   *
   * @throws IllegalArgumentException naming the option and what is valid
   */
  public static Path parse(String value) {
    if (value == null || value.isBlank()) {
      return null;
    }
    Path file;
    try {
      file = Path.of(value).toAbsolutePath();
    } catch (InvalidPathException e) {
      throw invalid(value, "not a file path");
    }
    if (!file.getFileName().toString().endsWith(SUFFIX)) {
      throw invalid(value, "the textfile collector reads only files ending in " + SUFFIX);
    }
    if (!Files.isDirectory(file.getParent())) {
      throw invalid(value, file.getParent() + " is not a directory");
    }
    if (Files.isDirectory(file)) {
      throw invalid(value, "a directory, not a file");
    }
    return file;
  }

  /** Writes the series of {@code metrics} to {@code file}, replacing it in one rename. */
  public static void write(Path file, MetricQueryResults metrics) throws IOException {
    Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
    Files.writeString(temporary, PrometheusSeries.render(metrics), StandardCharsets.UTF_8);
    Files.move(
        temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  private static IllegalArgumentException invalid(String value, String why) {
    return new IllegalArgumentException(
        "--metricsTextFile="
            + value
            + ": "
            + why
            + "; give a local file such as"
            + " /var/lib/node_exporter/textfile/streamrecon.prom");
  }
}
