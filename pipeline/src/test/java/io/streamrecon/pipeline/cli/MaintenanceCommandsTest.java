package io.streamrecon.pipeline.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.not;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import io.streamrecon.deltalake.DeltaLakeTables;
import io.streamrecon.deltalake.WarehouseTables;
import java.io.File;
import java.nio.file.Files;
import java.util.HashSet;
import java.util.List;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * {@code compact} and {@code vacuum} on tables a real run wrote, and {@code explain} after them.
 */
public class MaintenanceCommandsTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  private static CliRun execute(String... args) {
    return CliRun.execute(args);
  }

  private void run(String warehouse, String prefix) throws Exception {
    File source = tmp.newFile(prefix + "-s.jsonl");
    File target = tmp.newFile(prefix + "-t.jsonl");
    Files.writeString(
        source.toPath(),
        "{\"id\":\""
            + prefix
            + "1\",\"eventTime\":\"2024-03-01T08:00:00Z\",\"v\":1}\n"
            + "{\"id\":\""
            + prefix
            + "2\",\"eventTime\":\"2024-03-01T08:00:01Z\",\"v\":2}\n");
    Files.writeString(
        target.toPath(),
        "{\"id\":\"" + prefix + "1\",\"eventTime\":\"2024-03-01T08:00:02Z\",\"v\":9}\n");
    CliRun r =
        execute("run", "--source=" + source, "--target=" + target, "--warehouse=" + warehouse);
    assertEquals(r.err(), 0, r.code());
  }

  @Test
  public void compactThenExpireRawEventsThenExplainSaysExpired() throws Exception {
    String warehouse = tmp.newFolder("wh").getPath();
    run(warehouse, "a");
    run(warehouse, "b");
    List<?> deltasBefore = DeltaLakeTables.readDeltas(warehouse);
    CliRun explainBefore = execute("explain", "--naturalId=a1", "--warehouse=" + warehouse);
    assertEquals(explainBefore.err(), 0, explainBefore.code());

    CliRun compact = execute("compact", "--warehouse=" + warehouse, "--targetFileSize=1MB");
    assertEquals(compact.err(), 0, compact.code());
    assertThat(compact.out(), containsString("rewritten into 2 file(s)"));
    assertEquals(new HashSet<>(deltasBefore), new HashSet<>(DeltaLakeTables.readDeltas(warehouse)));
    CliRun explainAfter = execute("explain", "--naturalId=a1", "--warehouse=" + warehouse);
    // Same payloads, verdicts and diff; only the data file of each row changed.
    assertEquals(
        explainBefore
            .out()
            .replaceAll("stored in raw_events/\\S+ row \\d+", "")
            .replaceAll("(table version|deltas at) \\d+", ""),
        explainAfter
            .out()
            .replaceAll("stored in raw_events/\\S+ row \\d+", "")
            .replaceAll("(table version|deltas at) \\d+", ""));

    CliRun tooShort =
        execute("vacuum", "--warehouse=" + warehouse, "--retainRawEvents=1h", "--timeout=10m");
    assertEquals(StreamRecon.EXIT_USAGE, tooShort.code());
    assertThat(tooShort.err(), containsString("--retainRawEvents=1h is too short"));
    assertThat(tooShort.err(), not(containsString("\tat ")));

    // The events are from 2024: a 30-day retention removes them all.
    CliRun vacuum =
        execute("vacuum", "--warehouse=" + warehouse, "--retain=7d", "--retainRawEvents=30d");
    assertEquals(vacuum.err(), 0, vacuum.code());
    assertThat(vacuum.out(), containsString("raw_events: removed 2 partition(s)"));
    assertEquals(0, DeltaLakeTables.readRows(warehouse, WarehouseTables.RAW_EVENTS).size());

    CliRun expired = execute("explain", "--naturalId=a1", "--warehouse=" + warehouse);
    assertEquals(expired.err(), 0, expired.code());
    assertThat(expired.out(), containsString("0 stored event(s)"));
    assertThat(expired.out(), containsString("MISMATCH"));
    assertThat(expired.out(), containsString("SOURCE event v"));
    assertThat(expired.out(), containsString("expired, no longer stored in raw_events"));
    assertThat(
        expired.out(), containsString("diff: the raw events of this natural id have expired"));
  }

  @Test
  public void badArguments() throws Exception {
    String warehouse = tmp.newFolder("wh").getPath();
    CliRun size = execute("compact", "--warehouse=" + warehouse, "--targetFileSize=big");
    assertEquals(StreamRecon.EXIT_USAGE, size.code());
    assertThat(size.err(), containsString("--targetFileSize=big is not a size"));
    CliRun table = execute("compact", "--warehouse=" + warehouse, "--table=nope");
    assertEquals(StreamRecon.EXIT_USAGE, table.code());
    assertThat(table.err(), containsString("--table=nope is not a table"));
    CliRun retain = execute("vacuum", "--warehouse=" + warehouse, "--retain=5m");
    assertEquals(StreamRecon.EXIT_USAGE, retain.code());
    assertThat(retain.err(), containsString("use at least 1h"));
    assertEquals(128L << 20, MaintenanceCommands.parseSize("t", "128MB"));
    assertEquals(1L << 30, MaintenanceCommands.parseSize("t", "1g"));
    assertThrows(IllegalArgumentException.class, () -> MaintenanceCommands.parseSize("t", "0"));
  }

  @Test
  public void aNaturalIdFileIsReadUpToItsLimit() throws Exception {
    File ids = tmp.newFile("ids.txt");
    try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(ids, "rw")) {
      f.setLength(MaintenanceCommands.Forget.NATURAL_ID_FILE_LIMIT + 1L); // sparse: no disk used
    }
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> MaintenanceCommands.Forget.naturalIds(null, ids.getPath()));
    assertEquals(
        "--naturalIdFile=" + ids + ": the file is larger than the limit of 64 MiB", e.getMessage());
    Files.writeString(ids.toPath(), "a\n\n b \r\nc\n");
    assertEquals(
        "ids are exact: only line breaks and blank lines go",
        List.of("a", " b ", "c"),
        List.copyOf(MaintenanceCommands.Forget.naturalIds(null, ids.getPath())));
  }
}
