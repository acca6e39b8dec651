package io.streamrecon.pipeline.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.not;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import io.streamrecon.deltalake.DeltaLakeMaintenance;
import io.streamrecon.deltalake.DeltaLakeTables;
import io.streamrecon.deltalake.WarehouseTables;
import io.streamrecon.model.DeadLetter;
import io.streamrecon.model.DeltaRecord;
import io.streamrecon.model.Difference;
import io.streamrecon.model.Status;
import io.streamrecon.pipeline.records.ErasureRecords;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * {@code forget} on a warehouse a run of the samples wrote: two ids (one with a MISMATCH, one only
 * in a dead letter) erased from every table, the other ids untouched, a second run erases nothing,
 * {@code explain} says the id was erased, and a vacuum deletes the files that still held them.
 */
public class ForgetCommandTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  private static CliRun execute(String... args) {
    return CliRun.execute(args);
  }

  /** Rows per natural id of every table with a natural_id column, and each id's rows as text. */
  private static Map<String, List<String>> rowsPerId(String warehouse) {
    Map<String, List<String>> rows = new HashMap<>();
    for (String table :
        List.of(WarehouseTables.RAW_EVENTS, WarehouseTables.DELTAS, WarehouseTables.LATE_EVENTS)) {
      for (Map<String, Object> r : DeltaLakeTables.readRows(warehouse, table)) {
        rows.computeIfAbsent((String) r.get("natural_id"), k -> new ArrayList<>())
            .add(table + " " + r);
      }
    }
    return rows;
  }

  /** natural ids of the rows of every Parquet file on storage under raw_events, listed or not. */
  private static List<String> idsInRawEventFilesOnStorage(String warehouse) throws IOException {
    List<String> ids = new ArrayList<>();
    List<Path> files;
    try (Stream<Path> walk = Files.walk(Path.of(warehouse, WarehouseTables.RAW_EVENTS))) {
      files =
          walk.filter(p -> p.toString().endsWith(".parquet"))
              .filter(p -> !p.toString().contains("_delta_log"))
              .toList();
    }
    for (Path f : files) {
      try (ParquetReader<Group> reader =
          ParquetReader.builder(new GroupReadSupport(), new org.apache.hadoop.fs.Path(f.toUri()))
              .withConf(new Configuration())
              .build()) {
        for (Group g = reader.read(); g != null; g = reader.read()) {
          ids.add(g.getString("natural_id", 0));
        }
      }
    }
    return ids;
  }

  @Test
  public void forgetTwoIdsOfTheSamplesThenExplainThenVacuum() throws Exception {
    File samples = tmp.newFolder("samples");
    CliRun gen = execute("samples", "--out=" + samples, "--ids=60");
    assertEquals(gen.err(), 0, gen.code());
    String warehouse = tmp.newFolder("wh").getPath();
    CliRun run =
        execute(
            "run",
            "--source=" + samples + "/source.jsonl",
            "--target=" + samples + "/target.jsonl",
            "--warehouse=" + warehouse);
    assertEquals(run.err(), 0, run.code());

    DeltaRecord mismatch =
        DeltaLakeTables.readDeltas(warehouse).stream()
            .filter(d -> d.status() == Status.MISMATCH)
            .filter(d -> d.differences().stream().anyMatch(x -> x.source() != null))
            .min(java.util.Comparator.comparing(DeltaRecord::naturalId))
            .orElseThrow();
    String mismatchId = mismatch.naturalId();
    // A bad line of the samples: valid JSON with an id and no event time, so a dead letter only.
    String deadLetterId = "ord-bad-3";
    assertTrue(
        DeltaLakeTables.readDeadLetters(warehouse).stream()
            .anyMatch(d -> new String(d.raw(), StandardCharsets.UTF_8).contains(deadLetterId)));
    Map<String, List<String>> before = rowsPerId(warehouse);
    assertThat(before.get(mismatchId).size(), greaterThan(2));
    int rawRows = DeltaLakeTables.findRawEvents(warehouse, mismatchId).size();
    assertThat(rawRows, greaterThan(1));
    List<DeadLetter> deadBefore = DeltaLakeTables.readDeadLetters(warehouse);
    assertTrue(idsInRawEventFilesOnStorage(warehouse).contains(mismatchId));

    File idFile = tmp.newFile("ids.txt");
    Files.writeString(idFile.toPath(), "\n" + deadLetterId + "\n");
    CliRun forget =
        execute(
            "forget",
            "--warehouse=" + warehouse,
            "--naturalId=" + mismatchId,
            "--naturalIdFile=" + idFile);
    assertEquals(forget.err(), 0, forget.code());
    assertThat(forget.out(), containsString("forget: 2 natural id(s)"));
    assertThat(
        forget.out(),
        matchesPattern(
            "(?s).*raw_events: "
                + rawRows
                + " row\\(s\\) removed; \\d+ file\\(s\\)"
                + " rewritten into \\d+ in version \\d+.*"));
    assertThat(forget.out(), containsString("difference value(s) cleared, rows kept"));
    assertThat(forget.out(), containsString("dead_letters: 1 raw input(s) cleared, rows kept"));
    assertThat(forget.out(), containsString("record: "));

    // Every other id's rows exactly as before; the erased ids keep only their verdicts.
    Map<String, List<String>> after = rowsPerId(warehouse);
    for (Map.Entry<String, List<String>> e : before.entrySet()) {
      if (!e.getKey().equals(mismatchId)) {
        assertEquals(e.getKey(), e.getValue().size(), after.get(e.getKey()).size());
        assertEquals(e.getKey(), Set.copyOf(e.getValue()), Set.copyOf(after.get(e.getKey())));
      }
    }
    assertTrue(DeltaLakeTables.findRawEvents(warehouse, mismatchId).isEmpty());
    List<DeltaRecord> erased =
        DeltaLakeTables.readDeltas(warehouse).stream()
            .filter(d -> d.naturalId().equals(mismatchId))
            .toList();
    assertFalse(erased.isEmpty());
    for (DeltaRecord d : erased) {
      for (Difference x : d.differences()) {
        assertNull(x.source());
        assertNull(x.target());
      }
    }
    DeltaRecord kept =
        erased.stream()
            .filter(d -> d.verdictId().equals(mismatch.verdictId()))
            .findFirst()
            .orElseThrow();
    assertEquals(mismatch.status(), kept.status());
    assertEquals(mismatch.sourceHash(), kept.sourceHash());
    assertEquals(mismatch.sourcePointer(), kept.sourcePointer());
    assertEquals(mismatch.differences().size(), kept.differences().size());
    List<DeadLetter> deadAfter = DeltaLakeTables.readDeadLetters(warehouse);
    assertEquals(deadBefore.size(), deadAfter.size());
    for (DeadLetter d : deadAfter) {
      String raw = new String(d.raw(), StandardCharsets.UTF_8);
      assertThat(raw, not(containsString(deadLetterId)));
    }
    // A bad line that does not parse cannot be told to hold an id: it stays as it was.
    assertTrue(
        deadAfter.stream()
            .anyMatch(d -> new String(d.raw(), StandardCharsets.UTF_8).contains("ord-bad-1")));

    // Again: nothing left, nothing committed, no record; both ids named as not found, which
    // --allowMissing accepts.
    Map<String, Long> versions = new HashMap<>();
    for (String t : WarehouseTables.TABLES) {
      versions.put(t, DeltaLakeTables.tableVersion(warehouse, t));
    }
    CliRun again =
        execute(
            "forget", "--warehouse=" + warehouse, "--naturalId=" + mismatchId + "," + deadLetterId);
    assertEquals(again.err(), StreamRecon.EXIT_COUNTS, again.code());
    assertThat(again.out(), containsString("raw_events: nothing to erase"));
    assertThat(again.out(), containsString("deltas: nothing to erase"));
    assertThat(again.out(), containsString("nothing erased"));
    assertThat(again.err(), containsString("2 of 2 natural id(s) not found in any table"));
    CliRun allowed =
        execute(
            "forget",
            "--warehouse=" + warehouse,
            "--naturalId=" + mismatchId + "," + deadLetterId,
            "--allowMissing");
    assertEquals(allowed.err(), 0, allowed.code());
    assertEquals("", allowed.err());
    assertThat(allowed.out(), containsString("not found in any table: 2 natural id(s)"));
    for (String t : WarehouseTables.TABLES) {
      assertEquals(t, (long) versions.get(t), DeltaLakeTables.tableVersion(warehouse, t));
    }
    try (Stream<Path> records = Files.list(Path.of(warehouse, ErasureRecords.DIR))) {
      // Hadoop's local file system writes a .crc file beside it.
      assertEquals(1, records.filter(p -> !p.getFileName().toString().startsWith(".")).count());
    }

    CliRun explain = execute("explain", "--naturalId=" + mismatchId, "--warehouse=" + warehouse);
    assertEquals(explain.err(), 0, explain.code());
    assertThat(explain.out(), containsString("natural id " + mismatchId + " was erased at "));
    assertThat(explain.out(), containsString("0 stored event(s)"));
    assertThat(explain.out(), containsString("MISMATCH"));
    assertThat(explain.out(), containsString(": erased at "));
    assertThat(explain.out(), not(containsString("removed by retention")));
    assertThat(
        explain.out(), containsString("diff: none, the payloads of this natural id were erased"));
    for (Difference x : mismatch.differences()) {
      if (x.source() != null && x.source().length() > 3) {
        assertThat(explain.out(), not(containsString(x.source())));
      }
    }
    try (Stream<Path> records = Files.list(Path.of(warehouse, ErasureRecords.DIR))) {
      Path record =
          records.filter(p -> p.getFileName().toString().endsWith(".json")).findFirst().get();
      String json = Files.readString(record);
      assertThat(json, containsString("\"state\" : \"done\""));
      assertThat(json, containsString("\"" + mismatchId + "\""));
      assertThat(json, containsString("\"raw_events\" : {"));
    }
    // An erasure stopped between its commits and its end leaves its first record: explain says
    // it may be partial.
    ErasureRecords.write(
        warehouse,
        "erasure-stopped",
        "2026-01-01T00:00:00Z",
        ErasureRecords.STARTED,
        List.of("ord-00004"),
        List.of("/id"),
        List.of());
    CliRun stopped = execute("explain", "--naturalId=ord-00004", "--warehouse=" + warehouse);
    assertEquals(stopped.err(), 0, stopped.code());
    assertThat(
        stopped.out(),
        containsString("an erasure started at 2026-01-01T00:00:00Z did not record its end"));
    CliRun onlyDeadLetter =
        execute("explain", "--naturalId=" + deadLetterId, "--warehouse=" + warehouse);
    assertEquals(onlyDeadLetter.err(), 0, onlyDeadLetter.code());
    assertThat(onlyDeadLetter.out(), containsString("was erased at"));

    // The rewritten files' originals still hold the rows (time travel) until a vacuum past the
    // retention deletes them.
    assertTrue(idsInRawEventFilesOnStorage(warehouse).contains(mismatchId));
    Instant later = Instant.now().plus(Duration.standardDays(8));
    for (String t : WarehouseTables.TABLES) {
      DeltaLakeMaintenance.vacuum(
          new Configuration(), warehouse, t, Duration.standardDays(7), later);
    }
    List<String> left = idsInRawEventFilesOnStorage(warehouse);
    assertFalse(left.contains(mismatchId));
    assertFalse(left.isEmpty());
  }

  @Test
  public void forgetNeedsIdsAndSaysWhichOption() throws Exception {
    String warehouse = tmp.newFolder("wh").getPath();
    CliRun none = execute("forget", "--warehouse=" + warehouse);
    assertEquals(StreamRecon.EXIT_USAGE, none.code());
    assertThat(none.err(), containsString("--naturalId=ID[,ID...] or --naturalIdFile=FILE"));
    CliRun noFile =
        execute("forget", "--warehouse=" + warehouse, "--naturalIdFile=" + tmp.getRoot() + "/no");
    assertEquals(StreamRecon.EXIT_USAGE, noFile.code());
    assertThat(noFile.err(), containsString("is not a file"));
    CliRun badKey = execute("forget", "--warehouse=" + warehouse, "--naturalId=a", "--keyField=id");
    assertEquals(StreamRecon.EXIT_USAGE, badKey.code());
    assertThat(badKey.err(), containsString("--keyField=id"));
  }

  /** Writes one event per id to both sides and runs them into a new warehouse. */
  private String warehouseHolding(String... ids) throws Exception {
    StringBuilder lines = new StringBuilder();
    for (String id : ids) {
      lines
          .append("{\"id\":")
          .append(MaintenanceCommands.Forget.quoted(id))
          .append(",\"eventTime\":\"2024-03-01T08:00:00Z\",\"amount\":1}\n");
    }
    Path source = tmp.newFile().toPath();
    Files.writeString(source, lines);
    String warehouse = tmp.newFolder().getPath();
    CliRun run =
        execute(
            "run",
            "--runner=DirectRunner",
            "--source=" + source,
            "--target=" + source,
            "--warehouse=" + warehouse);
    assertEquals(run.err(), 0, run.code());
    return warehouse;
  }

  /** The natural ids of the rows of raw_events. */
  private static List<String> rawEventIds(String warehouse) {
    return DeltaLakeTables.readRows(warehouse, WarehouseTables.RAW_EVENTS).stream()
        .map(r -> (String) r.get("natural_id"))
        .sorted()
        .toList();
  }

  @Test
  public void idsAreMatchedExactlyAsGivenAndAsWrittenInTheFile() throws Exception {
    String warehouse = warehouseHolding(" pad", "pad", "tail ", "tail");
    File idFile = tmp.newFile("ids.txt");
    // Windows line ends and an empty line: only the terminator is removed, the empty line skipped.
    Files.writeString(idFile.toPath(), "tail \r\n\r\n");
    CliRun forget =
        execute(
            "forget", "--warehouse=" + warehouse, "--naturalId= pad", "--naturalIdFile=" + idFile);
    assertEquals(forget.err(), 0, forget.code());
    assertEquals(
        "each side of the other ids stays",
        List.of("pad", "pad", "tail", "tail"),
        rawEventIds(warehouse));
    assertThat(forget.out(), containsString("forget: 2 natural id(s)"));
    assertThat(forget.out(), containsString("erased: 2 natural id(s)"));
  }

  @Test
  public void anIdNoTableHoldsIsNamedAndFailsTheCommandAfterTheOthersAreErased() throws Exception {
    String warehouse = warehouseHolding("ord-1", "ord-2");
    CliRun forget =
        execute("forget", "--warehouse=" + warehouse, "--naturalId=ord-1,ord-404, ord-2");
    assertEquals(forget.err(), StreamRecon.EXIT_COUNTS, forget.code());
    assertEquals(
        "one line: " + forget.err(),
        "streamrecon: forget: 2 of 3 natural id(s) not found in any table (already erased, never"
            + " stored, or not written exactly as stored): \"ord-404\", \" ord-2\"; the others"
            + " were erased; --allowMissing accepts that",
        forget.err().strip());
    assertThat(forget.out(), containsString("erased: 1 natural id(s); record: "));
    assertThat(
        forget.out(),
        containsString("not found in any table: 2 natural id(s):\n  \"ord-404\"\n  \" ord-2\"\n"));
    assertEquals("ord-1 is erased all the same", List.of("ord-2", "ord-2"), rawEventIds(warehouse));

    CliRun allowed =
        execute(
            "forget", "--warehouse=" + warehouse, "--naturalId=ord-2,ord-405", "--allowMissing");
    assertEquals(allowed.err(), 0, allowed.code());
    assertThat(
        allowed.out(), containsString("not found in any table: 1 natural id(s):\n  \"ord-405\""));
    assertEquals(List.of(), rawEventIds(warehouse));
  }
}
