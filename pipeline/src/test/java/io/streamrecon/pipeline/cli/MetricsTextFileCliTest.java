package io.streamrecon.pipeline.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.not;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import io.streamrecon.deltalake.DeltaLakeTables;
import io.streamrecon.model.DeltaRecord;
import io.streamrecon.model.Status;
import io.streamrecon.pipeline.testing.Scenario;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * {@code run --metricsTextFile} on the shared scenario with the DirectRunner: the file a node
 * exporter's textfile collector reads holds the run's final series, equal to the tables.
 */
public class MetricsTextFileCliTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  private CliRun run(Path warehouse, String metricsFile) throws IOException {
    Path input = Files.createDirectories(tmp.getRoot().toPath().resolve("input"));
    Scenario scenario = Scenario.writeTo(input);
    List<String> args = new ArrayList<>(List.of("run", "--runner=DirectRunner"));
    args.addAll(scenario.arguments(warehouse.toString()));
    args.add("--metricsTextFile=" + metricsFile);
    return CliRun.execute(args.toArray(new String[0]));
  }

  @Test
  public void theFinalSeriesEqualTheTables() throws IOException {
    Path warehouse = tmp.getRoot().toPath().resolve("wh");
    Path file = tmp.getRoot().toPath().resolve("streamrecon.prom");
    Files.writeString(file, "left by an earlier run\n");

    CliRun r = run(warehouse, file.toString());

    assertEquals(r.err(), 0, r.code());
    String text = Files.readString(file);
    Map<String, Double> series = series(text);
    Map<Status, Long> rows = new HashMap<>();
    List<DeltaRecord> deltas = DeltaLakeTables.readDeltas(warehouse.toString());
    for (DeltaRecord d : deltas) {
      rows.merge(d.status(), 1L, Long::sum);
    }
    for (Status s : List.of(Status.MISMATCH, Status.MISSING_IN_TARGET, Status.MISSING_IN_SOURCE)) {
      String name =
          "streamrecon_verdicts_total{status=\"" + s.name().toLowerCase(Locale.ROOT) + "\"}";
      assertEquals(name, (double) rows.getOrDefault(s, 0L), series.get(name), 0);
    }
    assertTrue(rows.get(Status.MISMATCH) > 0);
    assertEquals(
        deltas.size(), series.get("streamrecon_rows_committed_total{table=\"deltas\"}"), 0);
    assertTrue(series.get("streamrecon_commit_duration_seconds_count{table=\"deltas\"}") >= 1);
    assertTrue(series.get("streamrecon_input_records_total{side=\"source\"}") > 0);
    assertFalse(text, text.contains("earlier run"));
    assertFalse(Files.exists(file.resolveSibling("streamrecon.prom.tmp")));
    // Names and fixed labels only: no path, payload or option value.
    assertThat(text, not(containsString(warehouse.toString())));
    assertThat(text, not(containsString("Lyon")));
  }

  @Test
  public void aFileTheCollectorWouldNotReadIsRefusedBeforeTheRun() throws IOException {
    Path warehouse = tmp.getRoot().toPath().resolve("wh");
    CliRun r = run(warehouse, tmp.getRoot().toPath().resolve("metrics.txt").toString());

    assertEquals(r.err(), StreamRecon.EXIT_USAGE, r.code());
    assertThat(r.err(), containsString("--metricsTextFile="));
    assertThat(r.err(), containsString("only files ending in .prom"));
    assertThat(r.err(), not(containsString("\tat ")));
    assertEquals("one line: " + r.err(), 1, r.err().strip().lines().count());
    assertFalse(Files.exists(warehouse));
  }

  /** Sample lines by name and labels. */
  private static Map<String, Double> series(String text) {
    Map<String, Double> series = new HashMap<>();
    for (String line : text.split("\n")) {
      if (!line.startsWith("#")) {
        int space = line.lastIndexOf(' ');
        series.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1)));
      }
    }
    return series;
  }
}
