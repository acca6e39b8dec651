package io.streamrecon.pipeline.report;

import io.streamrecon.files.LocalFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;

/**
 * The HTML report of a warehouse as one self-contained page (inline CSS and SVG, nothing fetched):
 * counts and the nothing-lost identities, verdicts over event time, the most frequent differing
 * fields, detection latency, dead letters, late events and the most recent mismatches. Reads only
 * the columns it needs ({@link ReportReader}) and renders them ({@link ReportHtml}).
 */
public final class ReportPage {
  private ReportPage() {}

  /**
   * Reads the warehouse and writes the page to {@code out}, all at once through a fresh temporary
   * file in its folder ({@link LocalFiles#writeAtomically}), creating the folder when missing.
   *
   * @param runId the run to report, null for every run in the warehouse
   * @param since start of the event time reported (inclusive), null for open
   * @param until end of the event time reported (exclusive), null for open
   * @throws IllegalArgumentException when there is nothing to report
   */
  public static Path write(String warehouse, String runId, Instant since, Instant until, Path out)
      throws IOException {
    String html =
        ReportHtml.render(
            ReportReader.read(new ReportReader.Selection(warehouse, runId, since, until)));
    Files.createDirectories(out.toAbsolutePath().getParent());
    LocalFiles.writeAtomically(out, html.getBytes(StandardCharsets.UTF_8));
    return out;
  }
}
