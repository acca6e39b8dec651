package io.streamrecon.pipeline.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.not;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import io.streamrecon.deltalake.DeltaLakeTables;
import io.streamrecon.deltalake.WarehouseOwnership;
import io.streamrecon.deltalake.WarehouseTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.commons.io.FileUtils;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * A run writes only into a new, empty or streamrecon warehouse, and maintenance touches only the
 * tables streamrecon wrote: a folder that merely holds {@code raw_events/} and {@code deltas/}
 * stays byte for byte as it was.
 */
public class WarehouseRecognitionTest {
  private static final Path RELEASE =
      Paths.get("../storage/src/test/resources/warehouses/release-0.1.0");
  private static final String EVENT =
      "{\"id\":\"o-1\",\"eventTime\":\"2024-03-01T08:00:00Z\",\"amount\":1}\n";
  private static final FileTime TWO_DAYS_AGO =
      FileTime.fromMillis(System.currentTimeMillis() - 2L * 24 * 3600 * 1000);

  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  private static CliRun execute(String... args) {
    return CliRun.execute(args);
  }

  private static void assertRefused(CliRun r, String expected) {
    assertEquals(r.err(), StreamRecon.EXIT_USAGE, r.code());
    assertThat(r.err(), containsString(expected));
    assertThat(r.err(), not(containsString("\tat ")));
    // Hadoop's first use in a JVM may warn of its native library; the command line silences it.
    assertEquals(
        "one line: " + r.err(),
        1,
        r.err().strip().lines().filter(l -> !l.contains("NativeCodeLoader")).count());
  }

  /** Every file under {@code dir}, hidden ones too, with a digest of its bytes and its mtime. */
  private static Map<String, String> listing(Path dir) throws Exception {
    Map<String, String> files = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) walk::iterator) {
        String key = dir.relativize(p).toString();
        if (Files.isDirectory(p)) {
          files.put(key + "/", "dir");
        } else {
          byte[] digest = MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(p));
          files.put(key, HexFormat.of().formatHex(digest) + " " + Files.getLastModifiedTime(p));
        }
      }
    }
    return files;
  }

  private String[] runInto(Path warehouse) throws Exception {
    Path input = tmp.newFolder().toPath().resolve("in.jsonl");
    Files.writeString(input, EVENT);
    return new String[] {
      "run",
      "--runner=DirectRunner",
      "--source=" + input,
      "--target=" + input,
      "--warehouse=" + warehouse
    };
  }

  /**
   * The release's tables with every mark of streamrecon in their logs renamed: Delta tables some
   * other job wrote, with the same schemas; plus a file no commit references, two days old.
   */
  private Path foreignDeltaWarehouse() throws Exception {
    Path dir = tmp.newFolder("foreign-delta").toPath();
    for (String table : List.of("raw_events", "deltas", "dead_letters")) {
      FileUtils.copyDirectory(RELEASE.resolve(table).toFile(), dir.resolve(table).toFile());
      try (Stream<Path> log = Files.list(dir.resolve(table).resolve("_delta_log"))) {
        for (Path commit : (Iterable<Path>) log::iterator) {
          Files.writeString(commit, Files.readString(commit).replace("streamrecon", "orderjob"));
        }
      }
    }
    Path stray = dir.resolve("dead_letters").resolve("part-kept-by-the-user.snappy.parquet");
    try (Stream<Path> files = Files.list(RELEASE.resolve("dead_letters"))) {
      Path first =
          files
              .filter(p -> p.getFileName().toString().startsWith("part-"))
              .findFirst()
              .orElseThrow();
      Files.copy(first, stray);
    }
    Files.setLastModifiedTime(stray, TWO_DAYS_AGO);
    return dir;
  }

  @Test
  public void aRunRefusesAFolderWhoseTableFoldersAreNotOurs() throws Exception {
    Path dir = tmp.newFolder("foreign").toPath();
    Files.createDirectories(dir.resolve("raw_events"));
    Files.createDirectories(dir.resolve("deltas/2024"));
    Files.writeString(dir.resolve("raw_events/orders.csv"), "id,amount\n1,2\n");
    Files.write(dir.resolve("deltas/2024/part-0001.parquet"), new byte[] {'P', 'A', 'R', '1'});
    Files.writeString(dir.resolve("notes.txt"), "mine");
    Map<String, String> before = listing(dir);

    assertRefused(execute(runInto(dir)), "not written by streamrecon");
    for (Path f : List.of(dir.resolve("raw_events/orders.csv"), dir.resolve("notes.txt"))) {
      Files.setLastModifiedTime(f, TWO_DAYS_AGO);
    }
    Map<String, String> old = listing(dir);
    assertRefused(
        execute("vacuum", "--warehouse=" + dir, "--retain=1h"), "not written by streamrecon");

    assertEquals(before.keySet(), old.keySet());
    assertEquals(old, listing(dir));
  }

  @Test
  public void aRunRefusesADeltaTableAnotherJobWrote() throws Exception {
    Path dir = foreignDeltaWarehouse();
    Map<String, String> before = listing(dir);

    assertRefused(execute(runInto(dir)), "not written by streamrecon");

    assertEquals(before, listing(dir));
  }

  @Test
  public void aRunRefusesANonEmptyFolderWithoutTables() throws Exception {
    Path dir = tmp.newFolder("home").toPath();
    Files.writeString(dir.resolve("thesis.tex"), "\\begin{document}");
    Map<String, String> before = listing(dir);

    assertRefused(execute(runInto(dir)), "not a streamrecon warehouse");

    assertEquals(before, listing(dir));
  }

  @Test
  public void aRunMarksANewOrEmptyWarehouseAndAnEarlierReleasesOne() throws Exception {
    Path missing = tmp.getRoot().toPath().resolve("new-warehouse");
    assertEquals(0, execute(runInto(missing)).code());
    assertTrue(Files.isRegularFile(missing.resolve(WarehouseOwnership.MARKER)));
    assertEquals("the next run accepts it", 0, execute(runInto(missing)).code());

    Path release = tmp.newFolder("release").toPath();
    for (String table : List.of("raw_events", "deltas", "dead_letters")) {
      FileUtils.copyDirectory(RELEASE.resolve(table).toFile(), release.resolve(table).toFile());
    }
    CliRun r = execute(runInto(release));
    assertEquals(r.err(), 0, r.code());
    assertTrue(Files.isRegularFile(release.resolve(WarehouseOwnership.MARKER)));
    assertThat(
        DeltaLakeTables.tableVersion(release.toString(), WarehouseTables.RAW_EVENTS),
        greaterThan(0L));
  }

  @Test
  public void maintenanceTouchesNothingInATableAnotherJobWrote() throws Exception {
    Path dir = foreignDeltaWarehouse();
    Map<String, String> before = listing(dir);

    assertRefused(
        execute("vacuum", "--warehouse=" + dir, "--retain=1h"), "not written by streamrecon");
    assertRefused(
        execute("vacuum", "--warehouse=" + dir, "--retain=1h", "--table=dead_letters"),
        "raw_events/ there was not written by streamrecon");
    assertRefused(execute("compact", "--warehouse=" + dir), "not written by streamrecon");
    assertRefused(
        execute("forget", "--warehouse=" + dir, "--naturalId=ord-00008"),
        "not written by streamrecon");

    assertEquals(before, listing(dir));
  }

  /**
   * A bounded run against a broker address nobody answers on fails within the broker wait tied to
   * {@code --kafkaMaxReadTime}, in one line naming servers and topic, never a property value, and
   * writes nothing: no warehouse, so no data file without a log.
   */
  @Test
  public void aBoundedKafkaRunWithoutABrokerFailsSoonInOneLineAndWritesNothing() throws Exception {
    int port;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Path input = tmp.newFolder().toPath().resolve("in.jsonl");
    Files.writeString(input, EVENT);
    Path warehouse = tmp.getRoot().toPath().resolve("kafka-warehouse");
    long start = System.nanoTime();
    CliRun r =
        execute(
            "run",
            "--runner=DirectRunner",
            "--source=kafka://127.0.0.1:" + port + "/orders",
            "--target=" + input,
            "--kafkaMaxReadTime=5s",
            "--kafkaProperties=client.id=hunter2-not-printed",
            "--warehouse=" + warehouse);
    long tookMillis = (System.nanoTime() - start) / 1_000_000;
    assertRefused(r, "--source: Kafka bootstrap servers 127.0.0.1:" + port + ", topic orders");
    assertThat(r.err(), not(containsString("hunter2")));
    assertThat(tookMillis, org.hamcrest.Matchers.lessThan(20_000L));
    assertFalse(Files.exists(warehouse));
  }

  /**
   * A first run that failed before its first commit leaves data files, payloads included, that no
   * log references: vacuum deletes them once older than the retention, as any unreferenced file.
   */
  @Test
  public void vacuumDeletesTheDataFilesOfAFirstRunThatNeverCommitted() throws Exception {
    vacuumsAFirstRunThatNeverCommitted(false);
  }

  /**
   * The same when the process was killed inside its first commit: the log folder holds only that
   * commit's temporary file. The table is still ours (a restarted run, or vacuum, must not refuse
   * it as foreign).
   */
  @Test
  public void aTableKilledInsideItsFirstCommitIsStillOurs() throws Exception {
    vacuumsAFirstRunThatNeverCommitted(true);
  }

  /**
   * A process killed while it wrote a table's first data file leaves the start of a Parquet file,
   * without the footer that carries our mark. The table is still ours: a restart, or vacuum, must
   * not refuse it as foreign. The same cut-short file under a name our writer never gives is not
   * evidence, and is refused.
   */
  @Test
  public void aTableKilledInsideItsFirstDataFileIsStillOurs() throws Exception {
    Path dir = tmp.newFolder("killed-in-first-file").toPath();
    Files.writeString(dir.resolve(WarehouseOwnership.MARKER), "");
    Path partition = Files.createDirectories(dir.resolve("deltas/run_id=r1"));
    byte[] whole;
    try (Stream<Path> files = Files.walk(RELEASE.resolve("deltas"))) {
      whole =
          Files.readAllBytes(
              files
                  .filter(f -> f.getFileName().toString().endsWith(".snappy.parquet"))
                  .findFirst()
                  .orElseThrow());
    }
    byte[] start = java.util.Arrays.copyOf(whole, whole.length / 2);
    Path foreign = partition.resolve("part-00000-c000.snappy.parquet");
    Files.write(foreign, start);
    assertRefused(
        execute("vacuum", "--warehouse=" + dir, "--retain=1h"), "not written by streamrecon");

    Files.delete(foreign);
    Path cutShort =
        partition.resolve(io.streamrecon.model.DataFileName.of(java.util.UUID.randomUUID()));
    Files.write(cutShort, start);
    Files.setLastModifiedTime(cutShort, TWO_DAYS_AGO);
    // What a writer leaves before its first row group: the magic number alone.
    Path justOpened =
        partition.resolve(io.streamrecon.model.DataFileName.of(java.util.UUID.randomUUID()));
    Files.write(justOpened, java.util.Arrays.copyOf(whole, 4));
    Files.setLastModifiedTime(justOpened, TWO_DAYS_AGO);

    CliRun r = execute("vacuum", "--warehouse=" + dir, "--retain=1h");

    assertEquals(r.err(), 0, r.code());
    assertFalse(Files.exists(cutShort));
    assertFalse(Files.exists(justOpened));
  }

  private void vacuumsAFirstRunThatNeverCommitted(boolean killedInsideFirstCommit)
      throws Exception {
    Path dir = tmp.newFolder("failed-first-run").toPath();
    Files.writeString(dir.resolve(WarehouseOwnership.MARKER), "");
    if (killedInsideFirstCommit) {
      Path log = Files.createDirectories(dir.resolve("raw_events/_delta_log"));
      Files.writeString(
          log.resolve(".00000000000000000000.json.c6d278d8-2543-4d55-bcfe-ea0fac14ba27.tmp"),
          "{\"commitInfo\":{}}\n");
    }
    Path partition = dir.resolve("raw_events/side=SOURCE/event_date=2026-12-02");
    Files.createDirectories(partition);
    int copied = 0;
    try (Stream<Path> files = Files.walk(RELEASE.resolve("raw_events"))) {
      for (Path f : (Iterable<Path>) files::iterator) {
        if (f.getFileName().toString().startsWith("part-")) {
          Path copy = partition.resolve(f.getFileName());
          Files.copy(f, copy);
          Files.setLastModifiedTime(copy, TWO_DAYS_AGO);
          copied++;
        }
      }
    }
    assertThat(copied, greaterThan(0));

    CliRun r = execute("vacuum", "--warehouse=" + dir, "--retain=1h");

    assertEquals(r.err(), 0, r.code());
    try (Stream<Path> left = Files.walk(dir.resolve("raw_events"))) {
      assertFalse(left.anyMatch(p -> p.getFileName().toString().endsWith(".parquet")));
    }
  }
}
