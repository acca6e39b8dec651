package io.streamrecon.pipeline.testing;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.Assert.assertEquals;

import io.streamrecon.deltalake.DeltaLakeTables;
import io.streamrecon.deltalake.WarehouseTables;
import io.streamrecon.pipeline.cli.StreamRecon;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.fs.FileSystem;

/**
 * The {@code streamrecon} commands as the remote-warehouse tests run them in this JVM, and the
 * parts of their output that a run on another file system must print alike.
 */
public final class WarehouseCommands {
  private WarehouseCommands() {}

  /** Runs a command line in this JVM, asserts exit code 0 and returns what it printed. */
  public static String cli(String... args) {
    PrintStream old = System.out;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    int code;
    try {
      code = StreamRecon.execute(args);
    } finally {
      System.setOut(old);
    }
    String printed = out.toString(StandardCharsets.UTF_8);
    assertEquals(String.join(" ", args) + "\n" + printed, 0, code);
    return printed;
  }

  /**
   * The summary's lines that do not depend on arrival order: what was read and stored. (Whether a
   * resolved mismatch was reported before it resolved does.)
   */
  public static List<String> storedCounts(String summary) {
    return summary
        .lines()
        .filter(
            l ->
                l.startsWith("input")
                    || l.startsWith("blank")
                    || l.startsWith("dead")
                    || l.startsWith("raw events")
                    || l.startsWith("counts add up: input"))
        .map(l -> l.replaceAll(";.*", ""))
        .toList();
  }

  /**
   * What a run of {@code scenario} into the remote warehouse must show as one into the local: the
   * same final verdicts, dead letters and stored raw events, and {@code show}, {@code explain} and
   * {@code report} printing the same as on a local copy of the remote warehouse (made through
   * {@code remoteFs} into {@code scratch}). Returns the copy's path.
   */
  public static String assertReadsBackAsLocal(
      Scenario scenario, String local, String remote, FileSystem remoteFs, Path scratch)
      throws IOException {
    assertEquals(Scenario.finalView(local), Scenario.finalView(remote));
    scenario.assertExpected(remote);
    assertEquals(
        scenario.generator().badLines(),
        cli("show", "dead-letters", "--warehouse=" + remote).lines().count());
    assertEquals(
        DeltaLakeTables.readRows(local, WarehouseTables.RAW_EVENTS).size(),
        DeltaLakeTables.readRows(remote, WarehouseTables.RAW_EVENTS).size());

    String copy = scratch.resolve("copy-of-remote").toString();
    remoteFs.copyToLocalFile(
        false, new org.apache.hadoop.fs.Path(remote), new org.apache.hadoop.fs.Path(copy), true);
    for (String table : List.of("deltas", "dead-letters", "late-events")) {
      assertEquals(
          table,
          cli("show", table, "--warehouse=" + copy),
          cli("show", table, "--warehouse=" + remote));
    }
    String mismatch = scenario.generator().mismatchPaths().keySet().iterator().next();
    String explained = cli("explain", "--naturalId=" + mismatch, "--warehouse=" + remote);
    assertThat(explained, containsString("SOURCE event"));
    assertThat(explained, containsString("TARGET event"));
    assertEquals(
        cli("explain", "--naturalId=" + mismatch, "--warehouse=" + copy).replace(copy, "WH"),
        explained.replace(remote, "WH"));
    Path copyPage = scratch.resolve("copy.html");
    Path remotePage = scratch.resolve("remote.html");
    cli("report", "--warehouse=" + copy, "--out=" + copyPage);
    cli("report", "--warehouse=" + remote, "--out=" + remotePage);
    assertEquals(page(copyPage, copy), page(remotePage, remote));
    return copy;
  }

  /**
   * Compaction and vacuum on the remote warehouse (nothing old enough to delete yet) keep every row
   * readable: {@code deltas} as before, {@code raw_events} as many rows as the local copy.
   */
  public static void assertCompactAndVacuumKeepRows(String remote, String copy) {
    String deltasBefore = cli("show", "deltas", "--warehouse=" + remote);
    assertThat(cli("compact", "--warehouse=" + remote), containsString("deltas"));
    cli("vacuum", "--warehouse=" + remote, "--retain=1h", "--retainRawEvents=3650d");
    assertEquals(
        deltasBefore.lines().sorted().toList(),
        cli("show", "deltas", "--warehouse=" + remote).lines().sorted().toList());
    assertEquals(
        DeltaLakeTables.readRows(copy, WarehouseTables.RAW_EVENTS).size(),
        DeltaLakeTables.readRows(remote, WarehouseTables.RAW_EVENTS).size());
  }

  /** A report page without its location and the time it was made. */
  public static String page(Path file, String warehouse) throws IOException {
    return Files.readString(file)
        .replace(warehouse, "WH")
        .replaceAll("[0-9T:.-]+Z · all times UTC", "(made) · all times UTC");
  }
}
