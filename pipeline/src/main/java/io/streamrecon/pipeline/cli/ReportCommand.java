package io.streamrecon.pipeline.cli;

import io.streamrecon.pipeline.output.TerminalText;
import io.streamrecon.pipeline.report.ReportPage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code streamrecon report}: writes the HTML report of a warehouse ({@link ReportPage}), for a run
 * and an event-time window when given, and says where and how large.
 */
@Command(
    name = "report",
    description =
        "Write a self-contained HTML report of a warehouse (counts, verdicts over time, differing"
            + " fields, latency, dead letters, late events, recent mismatches).")
final class ReportCommand implements Callable<Integer> {
  @Mixin WarehouseOption warehouse;

  @Option(names = "--runId", description = "Only this run (default: every run in the warehouse)")
  String runId;

  @Option(
      names = "--since",
      description = "Event time from (inclusive): 2024-03-01T08:00:00Z or a UTC date 2024-03-01")
  String since;

  @Option(names = "--until", description = "Event time until (exclusive), same forms as --since")
  String until;

  @Option(
      names = "--out",
      defaultValue = "report.html",
      description = "Output HTML file (replaced if it exists; its folder is created)")
  String out;

  @Override
  public Integer call() throws IOException {
    Path outFile = outFile(out);
    Instant from = instant("--since", since);
    Instant to = instant("--until", until);
    if (from != null && to != null && !from.isBefore(to)) {
      throw new IllegalArgumentException("--since=" + since + " must be before --until=" + until);
    }
    long start = System.nanoTime();
    Path target = ReportPage.write(warehouse.location(), runId, from, to, outFile);
    System.out.printf(
        Locale.ROOT,
        "wrote %s (%,d bytes) in %.1f s%n",
        TerminalText.escape(target.toString()),
        Files.size(target),
        (System.nanoTime() - start) / 1e9);
    return 0;
  }

  /**
   * The file {@code --out} names. A name ending in a slash, or an existing folder, names a folder,
   * not the page: refused rather than guessing a file name inside it.
   *
   * @throws IllegalArgumentException one line naming {@code --out} and what it expects
   */
  static Path outFile(String value) {
    String expected = "give the HTML file to write, e.g. --out=report.html";
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("--out is empty: " + expected);
    }
    Path path;
    try {
      path = Path.of(value);
    } catch (InvalidPathException e) {
      throw new IllegalArgumentException("--out=" + value + " is not a file path: " + expected);
    }
    boolean folder = Files.isDirectory(path);
    if (folder || value.endsWith("/") || value.endsWith(java.io.File.separator)) {
      String base = value;
      while (base.endsWith("/") || base.endsWith(java.io.File.separator)) {
        base = base.substring(0, base.length() - 1);
      }
      throw new IllegalArgumentException(
          "--out="
              + value
              + (folder ? " is a folder" : " ends with a slash, which names a folder")
              + ": give the HTML file to write, e.g. --out="
              + (base.isEmpty() ? "" : base + "/")
              + "report.html");
    }
    // The folder is created when missing; an ancestor that is a file would fail with a bare path.
    for (Path p = path.toAbsolutePath().getParent(); p != null; p = p.getParent()) {
      if (Files.exists(p)) {
        if (!Files.isDirectory(p)) {
          throw new IllegalArgumentException(
              "--out=" + value + ": " + p + " is a file, not a folder: " + expected);
        }
        break;
      }
    }
    return path;
  }

  /** An ISO-8601 instant with offset, or a date (its UTC midnight); null when not given. */
  static Instant instant(String option, String value) {
    if (value == null || value.isBlank()) {
      return null;
    }
    try {
      return java.time.OffsetDateTime.parse(value).toInstant();
    } catch (DateTimeParseException notDateTime) {
      try {
        return LocalDate.parse(value).atStartOfDay(ZoneOffset.UTC).toInstant();
      } catch (DateTimeParseException notDate) {
        throw new IllegalArgumentException(
            option
                + "="
                + value
                + " is neither an ISO-8601 date-time with offset (2024-03-01T08:00:00Z) nor a"
                + " date (2024-03-01)");
      }
    }
  }
}
