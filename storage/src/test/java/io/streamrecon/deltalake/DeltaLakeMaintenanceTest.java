package io.streamrecon.deltalake;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.greaterThan;
import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.delta.standalone.DeltaLog;
import io.delta.standalone.VersionLog;
import io.delta.standalone.actions.Action;
import io.delta.standalone.actions.AddFile;
import io.delta.standalone.actions.CommitInfo;
import io.delta.standalone.actions.RemoveFile;
import io.streamrecon.model.DeltaRecord;
import io.streamrecon.model.Difference;
import io.streamrecon.model.DifferenceKind;
import io.streamrecon.model.Event;
import io.streamrecon.model.EventRef;
import io.streamrecon.model.Pointer;
import io.streamrecon.model.Side;
import io.streamrecon.model.Status;
import java.io.File;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class DeltaLakeMaintenanceTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  private static final Configuration CONF = new Configuration();

  private static DeltaLog rawLog(String warehouse) {
    return DeltaLog.forTable(
        CONF, DeltaLakeCommitter.tablePath(warehouse, WarehouseTables.RAW_EVENTS));
  }

  /** Commits {@code commits} small batches over two partitions; returns every EventRef. */
  private static List<EventRef> smallCommits(String warehouse, int commits, List<Event> all)
      throws Exception {
    List<EventRef> refs = new ArrayList<>();
    for (int c = 0; c < commits; c++) {
      List<Event> batch = new ArrayList<>();
      // Later commits carry smaller ids, so a compaction that did not sort would keep them
      // unsorted.
      int k = commits - 1 - c;
      batch.addAll(TestEvents.events(Side.SOURCE, "s" + k, 10, TestEvents.T0));
      batch.addAll(TestEvents.events(Side.TARGET, "t" + k, 10, TestEvents.T0));
      refs.addAll(RawEventsFixture.commit(warehouse, "app", c, batch));
      all.addAll(batch);
    }
    return refs;
  }

  /** natural id + side + hash to the row's stored columns, payload as text. */
  private static Map<String, Map<String, Object>> rowsByKey(String warehouse) {
    Map<String, Map<String, Object>> rows = new HashMap<>();
    for (Map<String, Object> r : DeltaLakeTables.readRows(warehouse, WarehouseTables.RAW_EVENTS)) {
      Object previous =
          rows.put(r.get("side") + "/" + r.get("natural_id") + "/" + r.get("sha256"), r);
      assertEquals("row stored twice: " + r.get("natural_id"), null, previous);
    }
    return rows;
  }

  @Test
  public void compactionRewritesSmallFilesPerPartitionWithoutDataChange() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    List<Event> all = new ArrayList<>();
    List<EventRef> refs = smallCommits(warehouse, 8, all);
    Map<String, Map<String, Object>> before = rowsByKey(warehouse);
    assertEquals(16, rawLog(warehouse).update().getAllFiles().size());

    DeltaLakeMaintenance.CompactResult result =
        DeltaLakeMaintenance.compact(
            CONF,
            warehouse,
            WarehouseTables.RAW_EVENTS,
            DeltaLakeMaintenance.DEFAULT_TARGET_FILE_SIZE);

    assertEquals(2, result.partitionsCompacted());
    assertEquals(16, result.filesRemoved());
    assertEquals(2, result.filesAdded());
    assertEquals(160, result.rowsRewritten());
    List<AddFile> files = rawLog(warehouse).update().getAllFiles();
    assertEquals(2, files.size());
    // Every column (ingest time and run id included) is kept as it was.
    assertEquals(before, rowsByKey(warehouse));
    // raw_events rows are sorted by natural id in each compacted file (readRows keeps file order).
    Map<Object, String> last = new HashMap<>();
    for (Map<String, Object> row :
        DeltaLakeTables.readRows(warehouse, WarehouseTables.RAW_EVENTS)) {
      String id = (String) row.get("natural_id");
      String previous = last.put(row.get("side"), id);
      assertTrue(previous + " before " + id, previous == null || previous.compareTo(id) <= 0);
    }
    for (AddFile f : files) {
      assertEquals(80, FileStats.numRecords(f.getStats()));
      String side = f.getPartitionValues().get("side");
      String prefix = side.equals("SOURCE") ? "s" : "t";
      assertTrue(FileStats.mayContain(f.getStats(), "natural_id", prefix + "3-00004"));
      assertFalse(FileStats.mayContain(f.getStats(), "natural_id", "u"));
    }
    // Each partition is its own commit: only RemoveFile/AddFile with dataChange=false.
    DeltaLog log = rawLog(warehouse);
    for (long version : result.versions()) {
      VersionLog v = log.getChanges(version, true).next();
      int removes = 0;
      for (Action a : v.getActions()) {
        if (a instanceof AddFile add) {
          assertFalse(add.isDataChange());
        } else if (a instanceof RemoveFile remove) {
          assertFalse(remove.isDataChange());
          removes++;
        } else {
          assertTrue("unexpected " + a, a instanceof CommitInfo);
        }
      }
      assertEquals(8, removes);
      CommitInfo info = log.getCommitInfoAt(version);
      // Kernel writes its own commit info: a compaction is a "Manual Update" whose actions all
      // have dataChange=false (checked above); it has no operation parameters to name OPTIMIZE.
      assertEquals("Manual Update", info.getOperation());
      assertTrue(info.getEngineInfo().get().endsWith("/" + DeltaLakeCommitter.ENGINE_INFO));
    }

    // Pointers of the running pipeline go through the key fallback as soon as their files are no
    // longer live, before the vacuum too: the reader cannot tell a compaction's remove from a
    // DELETE's, and a deleted row must not be read from its old file.
    List<Pointer> pointers = refs.stream().map(EventRef::pointer).toList();
    PayloadReaderTest.Counts direct = new PayloadReaderTest.Counts();
    Map<Pointer, byte[]> payloads = new PayloadReader(CONF, warehouse).read(pointers, direct);
    assertEquals(pointers.size(), direct.fallbacks);
    assertEquals("only the compacted files", 2, direct.opens);
    Instant later = Instant.now().plus(Duration.standardHours(2));
    DeltaLakeMaintenance.VacuumResult vacuum =
        DeltaLakeMaintenance.vacuum(
            CONF, warehouse, WarehouseTables.RAW_EVENTS, Duration.standardHours(1), later);
    assertEquals(16, vacuum.filesDeleted());
    PayloadReaderTest.Counts fallback = new PayloadReaderTest.Counts();
    Map<Pointer, byte[]> again = new PayloadReader(CONF, warehouse).read(pointers, fallback);
    assertEquals(pointers.size(), fallback.fallbacks);
    assertEquals(2, fallback.opens);
    System.out.printf(
        "lookup of %d pointers: after compaction %d file opens, %d rows read, %d fallbacks;"
            + " after compaction + vacuum %d file opens, %d rows read, %d fallbacks%n",
        pointers.size(),
        direct.opens,
        direct.rows,
        direct.fallbacks,
        fallback.opens,
        fallback.rows,
        fallback.fallbacks);
    for (EventRef r : refs) {
      Event e =
          all.stream()
              .filter(x -> x.naturalId().equals(r.naturalId()) && x.side() == r.side())
              .findFirst()
              .orElseThrow();
      assertArrayEquals(e.payload(), payloads.get(r.pointer()));
      assertArrayEquals(e.payload(), again.get(r.pointer()));
    }
    // Compacting again finds nothing to do (one file per partition).
    assertEquals(
        0,
        DeltaLakeMaintenance.compact(CONF, warehouse, WarehouseTables.RAW_EVENTS, 1L << 30)
            .filesRemoved());
  }

  @Test
  public void compactionRespectsTheTargetSize() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    smallCommits(warehouse, 9, new ArrayList<>());
    List<AddFile> files = rawLog(warehouse).update().getAllFiles();
    long min = files.stream().mapToLong(AddFile::getSize).min().orElseThrow();
    long max = files.stream().mapToLong(AddFile::getSize).max().orElseThrow();
    // Sizes differ by a few bytes: with the target at three smallest files, any three files
    // reach it and no two do, so nine files per partition become three.
    assertTrue(2 * max < 3 * min);
    DeltaLakeMaintenance.CompactResult r =
        DeltaLakeMaintenance.compact(CONF, warehouse, WarehouseTables.RAW_EVENTS, 3 * min);
    assertEquals(18, r.filesRemoved());
    assertEquals(6, r.filesAdded());
    assertEquals(180, rowsByKey(warehouse).size());
  }

  @Test
  public void compactionKeepsNestedColumnsOfDeltas() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    DeltaLakeCommitter committer = new DeltaLakeCommitter(CONF, warehouse, TableLayouts.DELTAS);
    for (int c = 0; c < 3; c++) {
      List<DeltaRecord> records = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        String id = "k" + c + "-" + i;
        Pointer p =
            new Pointer(
                c,
                "side=SOURCE/event_date=2024-03-01/f" + c + ".parquet",
                i,
                Side.SOURCE,
                id,
                "a".repeat(64));
        records.add(
            new DeltaRecord(
                Integer.toHexString(c * 10 + i).repeat(8),
                i == 0 ? null : "x".repeat(64),
                id,
                i % 2 == 0 ? Status.MISMATCH : Status.MISSING_IN_TARGET,
                i % 2 == 0
                    ? List.of(
                        new Difference("/n", DifferenceKind.CHANGED, "1", "2"),
                        new Difference("/m", DifferenceKind.ONLY_IN_SOURCE, "\"s\"", null))
                    : List.of(),
                "a".repeat(64),
                i % 2 == 0 ? "b".repeat(64) : null,
                TestEvents.T0,
                i % 2 == 0 ? TestEvents.T0.plus(5) : null,
                p,
                i % 2 == 0 ? p : null,
                TestEvents.T0.plus(60_000),
                "run-" + c));
      }
      List<DataFile> files;
      try (DataFileWriter<DeltaRecord> w =
          new DataFileWriter<>(
              CONF,
              DeltaLakeCommitter.tablePath(warehouse, WarehouseTables.DELTAS),
              TableLayouts.DELTAS,
              "run-" + c)) {
        for (DeltaRecord d : records) {
          w.write(d, d.detectedAt());
        }
        files = w.finish();
      }
      committer.commit("app", c, files);
    }
    Set<DeltaRecord> before = new HashSet<>(DeltaLakeTables.readDeltas(warehouse));
    List<Map<String, Object>> rawBefore =
        DeltaLakeTables.readRows(warehouse, WarehouseTables.DELTAS);
    DeltaLakeMaintenance.CompactResult r =
        DeltaLakeMaintenance.compact(CONF, warehouse, WarehouseTables.DELTAS, 1L << 20);
    assertEquals(3, r.filesRemoved());
    assertEquals(1, r.filesAdded());
    assertEquals(15, before.size());
    assertEquals(before, new HashSet<>(DeltaLakeTables.readDeltas(warehouse)));
    assertEquals(
        new HashSet<>(rawBefore),
        new HashSet<>(DeltaLakeTables.readRows(warehouse, WarehouseTables.DELTAS)));
  }

  /**
   * A writer appends to the same partitions while two compactions run over and over: appends never
   * conflict, the compactions conflict with each other, and at the end every row is there once.
   */
  @Test(timeout = 120_000)
  public void compactionIsSafeWhileAWriterAppendsAndAnotherCompactionRuns() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    List<Event> expected = Collections.synchronizedList(new ArrayList<>());
    smallCommits(warehouse, 4, expected);
    ExecutorService pool = Executors.newFixedThreadPool(3);
    AtomicBoolean writing = new AtomicBoolean(true);
    ConcurrentLinkedQueue<DeltaLakeMaintenance.CompactResult> results =
        new ConcurrentLinkedQueue<>();
    try {
      Future<?> writer =
          pool.submit(
              () -> {
                for (int c = 4; c < 40; c++) {
                  List<Event> batch = new ArrayList<>();
                  batch.addAll(TestEvents.events(Side.SOURCE, "s" + c, 10, TestEvents.T0));
                  batch.addAll(TestEvents.events(Side.TARGET, "t" + c, 10, TestEvents.T0));
                  RawEventsFixture.commit(warehouse, "app", c, batch);
                  expected.addAll(batch);
                }
                writing.set(false);
                return null;
              });
      List<Future<?>> compactors = new ArrayList<>();
      for (int k = 0; k < 2; k++) {
        compactors.add(
            pool.submit(
                () -> {
                  while (writing.get()) {
                    results.add(
                        DeltaLakeMaintenance.compact(
                            CONF, warehouse, WarehouseTables.RAW_EVENTS, 1L << 30));
                  }
                  return null;
                }));
      }
      writer.get();
      for (Future<?> f : compactors) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    results.add(
        DeltaLakeMaintenance.compact(CONF, warehouse, WarehouseTables.RAW_EVENTS, 1L << 30));
    Map<String, Map<String, Object>> rows = rowsByKey(warehouse); // fails on a doubled row
    assertEquals(expected.size(), rows.size());
    for (Event e : expected) {
      assertTrue(
          e.naturalId(), rows.containsKey(e.side() + "/" + e.naturalId() + "/" + e.sha256()));
    }
    int compacted =
        results.stream().mapToInt(DeltaLakeMaintenance.CompactResult::filesRemoved).sum();
    int conflicts = results.stream().mapToInt(r -> r.conflictsRetried() + r.binsAbandoned()).sum();
    System.out.printf(
        "concurrent compaction: %d runs, %d files compacted, %d conflicts retried or given up%n",
        results.size(), compacted, conflicts);
    assertThat(compacted, greaterThan(0));
    assertEquals(2, rawLog(warehouse).update().getAllFiles().size());
  }

  private static long commitFiles(Path root) {
    return new File(root.toString(), "_delta_log").list((d, n) -> n.endsWith(".json")).length;
  }

  @Test
  public void vacuumDeletesOnlyFilesNoRetainedSnapshotReferences() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    smallCommits(warehouse, 3, new ArrayList<>());
    Path root = DeltaLakeCommitter.tablePath(warehouse, WarehouseTables.RAW_EVENTS);
    File orphan =
        new File(root.toString(), "side=SOURCE/event_date=2024-03-01/part-orphan.snappy.parquet");
    Files.writeString(orphan.toPath(), "never committed");
    long logFiles = commitFiles(root);
    DeltaLakeMaintenance.compact(CONF, warehouse, WarehouseTables.RAW_EVENTS, 1L << 30);

    // Within the retention: the compacted-away files are still referenced by older snapshots,
    // and the orphan is too young (it could belong to a bundle about to commit).
    DeltaLakeMaintenance.VacuumResult now =
        DeltaLakeMaintenance.vacuum(
            CONF, warehouse, WarehouseTables.RAW_EVENTS, Duration.standardDays(7), Instant.now());
    assertEquals(0, now.filesDeleted());
    assertEquals(9, now.filesKept());

    DeltaLakeMaintenance.VacuumResult later =
        DeltaLakeMaintenance.vacuum(
            CONF,
            warehouse,
            WarehouseTables.RAW_EVENTS,
            Duration.standardDays(7),
            Instant.now().plus(Duration.standardDays(8)));
    assertEquals(7, later.filesDeleted());
    assertFalse(orphan.exists());
    assertEquals(logFiles + 2, commitFiles(root));
    assertEquals(60, rowsByKey(warehouse).size());

    IllegalArgumentException tooShort =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                DeltaLakeMaintenance.vacuum(
                    CONF,
                    warehouse,
                    WarehouseTables.RAW_EVENTS,
                    Duration.standardMinutes(5),
                    Instant.now()));
    assertThat(tooShort.getMessage(), containsString("at least 1h"));
  }

  @Test
  public void rawEventRetentionRemovesWholeOldPartitionsInOneCommit() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    Instant now = Instant.parse("2024-04-15T12:00:00Z");
    List<Event> events = new ArrayList<>();
    for (String day : List.of("2024-03-01", "2024-03-15", "2024-03-16", "2024-04-14")) {
      events.addAll(
          TestEvents.events(Side.SOURCE, "d" + day, 5, Instant.parse(day + "T10:00:00Z")));
      events.addAll(
          TestEvents.events(Side.TARGET, "d" + day, 5, Instant.parse(day + "T10:00:00Z")));
    }
    RawEventsFixture.commit(warehouse, "app", 0, events);

    // 30 days before now is 2024-03-16T12:00: the 16th is not wholly older, so it stays.
    DeltaLakeMaintenance.ExpireResult r =
        DeltaLakeMaintenance.expireRawEvents(
            CONF,
            warehouse,
            Duration.standardDays(30),
            Duration.standardMinutes(10),
            Duration.standardMinutes(10),
            now);
    assertEquals(4, r.partitions().size());
    assertEquals(20, r.rowsRemoved());
    Set<Object> dates = new HashSet<>();
    for (Map<String, Object> row :
        DeltaLakeTables.readRows(warehouse, WarehouseTables.RAW_EVENTS)) {
      dates.add(row.get("event_date").toString());
    }
    assertEquals(Set.of("2024-03-16", "2024-04-14"), dates);
    VersionLog v = rawLog(warehouse).getChanges(r.version(), true).next();
    long removes = 0;
    for (Action a : v.getActions()) {
      if (a instanceof RemoveFile rm) {
        assertTrue(rm.isDataChange());
        removes++;
      }
    }
    assertEquals(4, removes);

    IllegalArgumentException tooShort =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                DeltaLakeMaintenance.expireRawEvents(
                    CONF,
                    warehouse,
                    Duration.standardHours(12),
                    Duration.standardHours(6),
                    Duration.standardHours(6),
                    now));
    assertThat(tooShort.getMessage(), containsString("too short"));
    assertThat(tooShort.getMessage(), containsString("allowed lateness"));
  }
}
