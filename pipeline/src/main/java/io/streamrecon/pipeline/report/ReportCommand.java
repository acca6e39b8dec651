package io.streamrecon.pipeline.report;

import io.streamrecon.pipeline.cli.WarehouseOption;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
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
 * {@code streamrecon report}: writes one self-contained HTML page (inline CSS and SVG, nothing
 * fetched) that summarises a warehouse: counts and the nothing-lost identities, verdicts over
 * event time, the most frequent differing fields, detection latency, dead letters, late events and
 * the most recent mismatches. Reads only the columns it needs.
 */
@Command(
    name = "report",
    description =
        "Write a self-contained HTML report of a warehouse (counts, verdicts over time, differing"
            + " fields, latency, dead letters, late events, recent mismatches).")
public final class ReportCommand implements Callable<Integer> {
  @Mixin WarehouseOption warehouse;

  @Option(names = "--runId", description = "Only this run (default: every run in the warehouse)")
  String runId;

  @Option(
      names = "--since",
      description = "Event time from (inclusive): 2024-03-01T08:00:00Z or a UTC date 2024-03-01")
  String since;

  @Option(names = "--until", description = "Event time until (exclusive), same forms as --since")
  String until;

  @Option(names = "--out", defaultValue = "report.html", description = "Output HTML file")
  String out;

  @Override
  public Integer call() throws IOException {
    Instant from = instant("--since", since);
    Instant to = instant("--until", until);
    if (from != null && to != null && !from.isBefore(to)) {
      throw new IllegalArgumentException(
          "--since=" + since + " must be before --until=" + until);
    }
    long start = System.nanoTime();
    Path target = write(new ReportReader.Selection(warehouse.location(), runId, from, to), Path.of(out));
    System.out.printf(
        Locale.ROOT,
        "wrote %s (%,d bytes) in %.1f s%n",
        target,
        Files.size(target),
        (System.nanoTime() - start) / 1e9);
    return 0;
  }

  /** Reads the warehouse and writes the page to {@code out} (through a temporary file). */
  static Path write(ReportReader.Selection selection, Path out) throws IOException {
    String html = ReportHtml.render(ReportReader.read(selection));
    Path dir = out.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    // A sibling, not createTempFile: that one is owner-only, and a report is meant to be shared.
    Path tmp = dir.resolve("." + out.getFileName() + ".tmp");
    try {
      Files.writeString(tmp, html, StandardCharsets.UTF_8);
      Files.move(tmp, out, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(tmp);
    }
    return out;
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
