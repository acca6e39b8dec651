package io.streamrecon.deltalake;

import static java.util.stream.Collectors.toSet;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotSame;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.delta.kernel.exceptions.ConcurrentWriteException;
import io.delta.standalone.DeltaLog;
import io.delta.standalone.Snapshot;
import io.delta.standalone.VersionLog;
import io.delta.standalone.actions.Action;
import io.delta.standalone.actions.AddFile;
import io.delta.standalone.actions.CommitInfo;
import io.delta.standalone.actions.RemoveFile;
import io.streamrecon.model.Event;
import io.streamrecon.model.Side;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.conf.Configuration;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class DeltaLakeCommitterTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  private final Configuration conf = new Configuration();

  private List<DataFile> writeFiles(String warehouse, List<Event> events) throws Exception {
    try (DataFileWriter<Event> writer =
        new DataFileWriter<>(
            conf,
            DeltaLakeCommitter.tablePath(warehouse, WarehouseTables.RAW_EVENTS),
            TableLayouts.RAW_EVENTS,
            "run-1")) {
      for (Event e : events) {
        writer.write(e, e.eventTime());
      }
      return writer.finish();
    }
  }

  @Test
  public void firstCommitCreatesPartitionedTableWithStats() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    List<Event> events = new ArrayList<>(TestEvents.events(Side.SOURCE, "a", 3, TestEvents.T0));
    events.addAll(TestEvents.events(Side.TARGET, "b", 2, TestEvents.T0));
    List<DataFile> files = writeFiles(warehouse, events);
    assertThat(files, hasSize(2));

    DeltaLakeCommitter committer = new DeltaLakeCommitter(conf, warehouse, TableLayouts.RAW_EVENTS);
    DeltaLakeCommitter.CommitResult outcome = committer.commit("app", 0, files);
    assertEquals(0, outcome.tableVersion());
    assertFalse(outcome.alreadyCommitted());

    Snapshot snapshot = DeltaLog.forTable(conf, warehouse + "/raw_events").update();
    assertEquals(List.of("side", "event_date"), snapshot.getMetadata().getPartitionColumns());
    assertEquals(
        FileStats.JSON.readTree(TableLayouts.RAW_EVENTS.deltaSchema().toJson()),
        FileStats.JSON.readTree(snapshot.getMetadata().getSchema().toJson()));
    Map<String, AddFile> byPath = new HashMap<>();
    for (AddFile f : snapshot.getAllFiles()) {
      byPath.put(f.getPath(), f);
    }
    for (DataFile f : files) {
      AddFile add = byPath.get(f.path());
      assertThat(f.path(), add.getPath(), equalTo(f.path()));
      assertThat(
          add.getPath(),
          org.hamcrest.Matchers.matchesPattern(
              "side=(SOURCE|TARGET)/event_date=2024-03-01/part-[0-9a-f-]{36}\\.snappy\\.parquet"));
      JsonNode stats = FileStats.JSON.readTree(add.getStats());
      assertEquals(f.numRecords(), stats.get("numRecords").asLong());
      assertTrue(stats.get("minValues").has("natural_id"));
      assertTrue(stats.get("maxValues").has("natural_id"));
      assertEquals(0, stats.get("nullCount").get("natural_id").asLong());
    }
    // The log holds the stats as a JSON string (the protocol's form), not as an object.
    String log =
        Files.readString(
            tmp.getRoot().toPath().resolve("raw_events/_delta_log/00000000000000000000.json"),
            StandardCharsets.UTF_8);
    assertThat(log, containsString("\"stats\":\"{\\\"numRecords\\\":"));
    assertThat(log, containsString("\"appId\":\"app\""));
  }

  @Test
  public void stepsShareOneCommitterPerTableThatKeepsItsWritersHistory() throws Exception {
    // A runner may set a commit step up again for every bundle; the history read back by a new
    // committer is then read once per JVM, not once per bundle.
    String warehouse = tmp.getRoot().getPath();
    DeltaLakeCommitter committer = DeltaLakeCommitter.shared(warehouse, TableLayouts.RAW_EVENTS);
    assertSame(committer, DeltaLakeCommitter.shared(warehouse, TableLayouts.RAW_EVENTS));
    assertNotSame(committer, DeltaLakeCommitter.shared(warehouse, TableLayouts.DELTAS));
    assertNotSame(
        committer, DeltaLakeCommitter.shared(tmp.newFolder().getPath(), TableLayouts.RAW_EVENTS));

    committer.commit(
        "app", 0, writeFiles(warehouse, TestEvents.events(Side.SOURCE, "a", 3, TestEvents.T0)));
    assertEquals(
        Set.of("app"),
        DeltaLakeCommitter.shared(warehouse, TableLayouts.RAW_EVENTS).writersRemembered());
  }

  @Test
  public void aTableCreatedAgainUnderTheSamePathIsNotTakenForTheOldOne() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    List<Event> events = TestEvents.events(Side.SOURCE, "a", 5, TestEvents.T0);
    DeltaLakeCommitter committer = new DeltaLakeCommitter(conf, warehouse, TableLayouts.RAW_EVENTS);
    committer.commit("app", 0, writeFiles(warehouse, events));
    // A replay: the committer recognises the rows, and keeps the stored file's rows verified.
    assertEquals(5, committer.commit("app", 0, writeFiles(warehouse, events)).recognised().size());

    org.apache.commons.io.FileUtils.deleteDirectory(
        tmp.getRoot().toPath().resolve("raw_events").toFile());
    DeltaLakeCommitter.CommitResult again =
        committer.commit("app", 0, writeFiles(warehouse, events));
    assertFalse(again.alreadyCommitted());
    assertEquals(0, again.recognised().size());
    assertEquals(5, DeltaLakeTables.readRows(warehouse, WarehouseTables.RAW_EVENTS).size());
  }

  @Test
  public void committingTheSameBatchTwiceAddsItOnce() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    List<DataFile> files =
        writeFiles(warehouse, TestEvents.events(Side.SOURCE, "a", 5, TestEvents.T0));
    DeltaLakeCommitter committer = new DeltaLakeCommitter(conf, warehouse, TableLayouts.RAW_EVENTS);
    DeltaLakeCommitter.CommitResult first = committer.commit("app", 7, files);
    // A retried commit, through a new committer as after a worker restart.
    DeltaLakeCommitter.CommitResult again =
        new DeltaLakeCommitter(conf, warehouse, TableLayouts.RAW_EVENTS).commit("app", 7, files);

    assertFalse(first.alreadyCommitted());
    assertTrue(again.alreadyCommitted());
    assertEquals(5, again.recognised().size());
    assertEquals(first.tableVersion(), again.tableVersion());
    assertEquals(0, DeltaLakeTables.tableVersion(warehouse, WarehouseTables.RAW_EVENTS));
    assertEquals(5, DeltaLakeTables.readRows(warehouse, WarehouseTables.RAW_EVENTS).size());

    // The next batch of the same writer is committed normally.
    List<DataFile> next =
        writeFiles(warehouse, TestEvents.events(Side.SOURCE, "b", 2, TestEvents.T0));
    DeltaLakeCommitter.CommitResult third = committer.commit("app", 8, next);
    assertFalse(third.alreadyCommitted());
    assertEquals(1, third.tableVersion());
    assertEquals(7, DeltaLakeTables.readRows(warehouse, WarehouseTables.RAW_EVENTS).size());
  }

  @Test
  public void aWindowsLastPaneLeavesNoHistoryBehindAndItsRetryIsStillRecognised() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    DeltaLakeCommitter committer = new DeltaLakeCommitter(conf, warehouse, TableLayouts.RAW_EVENTS);
    List<DataFile> early =
        writeFiles(warehouse, TestEvents.events(Side.SOURCE, "a", 3, TestEvents.T0));
    committer.commit("app", 0, early, false);
    assertEquals(Set.of("app"), committer.writersRemembered());

    List<DataFile> last =
        writeFiles(warehouse, TestEvents.events(Side.SOURCE, "b", 4, TestEvents.T0));
    DeltaLakeCommitter.CommitResult committed = committer.commit("app", 1, last, true);
    assertFalse(committed.alreadyCommitted());
    // A batch run's single pane: its rows are not kept in memory after the commit.
    assertEquals(Set.of(), committer.writersRemembered());

    // The same last pane retried by the same committer: every row is found through the log.
    DeltaLakeCommitter.CommitResult retried = committer.commit("app", 1, last, true);
    assertTrue(retried.alreadyCommitted());
    assertEquals(4, retried.recognised().size());
    assertEquals(committed.tableVersion(), retried.tableVersion());
    assertEquals(7, DeltaLakeTables.readRows(warehouse, WarehouseTables.RAW_EVENTS).size());
    assertEquals(Set.of(), committer.writersRemembered());
  }

  @Test
  public void anOlderBatchReplayedAfterLaterCommitsIsFoundAndSkipped() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    DeltaLakeCommitter committer = new DeltaLakeCommitter(conf, warehouse, TableLayouts.RAW_EVENTS);
    List<DataFile> first =
        writeFiles(warehouse, TestEvents.events(Side.SOURCE, "a", 2, TestEvents.T0));
    committer.commit("app", 0, first);
    for (int i = 1; i <= 20; i++) {
      committer.commit(
          "app",
          i,
          writeFiles(warehouse, TestEvents.events(Side.SOURCE, "x" + i, 1, TestEvents.T0)));
    }
    DeltaLakeCommitter.CommitResult replay = committer.commit("app", 0, first);
    assertTrue(replay.alreadyCommitted());
    assertEquals(2, replay.recognised().size());
    assertEquals(0, replay.tableVersion());
    assertEquals(22, DeltaLakeTables.readRows(warehouse, WarehouseTables.RAW_EVENTS).size());
  }

  @Test
  public void aReusedPaneIndexWithOtherRowsCommitsThemInsteadOfDroppingThem() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    DeltaLakeCommitter committer = new DeltaLakeCommitter(conf, warehouse, TableLayouts.RAW_EVENTS);
    committer.commit(
        "app", 0, writeFiles(warehouse, TestEvents.events(Side.SOURCE, "a", 2, TestEvents.T0)));
    List<DataFile> other =
        writeFiles(warehouse, TestEvents.events(Side.SOURCE, "b", 3, TestEvents.T0));
    DeltaLakeCommitter.CommitResult outcome = committer.commit("app", 0, other);
    assertFalse(outcome.alreadyCommitted());
    assertEquals(3, outcome.committedRows());
    assertEquals(5, DeltaLakeTables.readRows(warehouse, WarehouseTables.RAW_EVENTS).size());
  }

  /**
   * Spark may recompose a replayed micro-batch: the same pane index, other files, rows that overlap
   * the first attempt's. Each Kafka record must be stored once and every recognised copy must point
   * at the stored row; a restarted committer (new instance) must know this.
   */
  @Test
  public void aReplayedPaneRecomposedWithOtherRowsStoresEachRecordOnce() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    List<Event> events = new ArrayList<>(TestEvents.events(Side.SOURCE, "s", 30, TestEvents.T0));
    events.addAll(TestEvents.events(Side.TARGET, "t", 10, TestEvents.T0));
    // First attempt: 58 of the records (as in the issue), in two files.
    List<Event> first = new ArrayList<>(events.subList(0, 25));
    first.addAll(events.subList(30, 33));
    DeltaLakeCommitter before = new DeltaLakeCommitter(conf, warehouse, TableLayouts.RAW_EVENTS);
    DeltaLakeCommitter.CommitResult stored = before.commit("app", 1, writeFiles(warehouse, first));
    assertEquals(28, stored.committedRows());

    // The replay after a restart: records 10..39, in another order and other files.
    List<Event> replay = new ArrayList<>(events.subList(10, 40));
    java.util.Collections.reverse(replay);
    List<DataFile> replayFiles = writeFiles(warehouse, replay);
    DeltaLakeCommitter after = new DeltaLakeCommitter(conf, warehouse, TableLayouts.RAW_EVENTS);
    DeltaLakeCommitter.CommitResult outcome = after.commit("app", 1, replayFiles);

    assertFalse(outcome.alreadyCommitted());
    assertEquals(18, outcome.recognised().size()); // 10..24 and 30..32
    assertEquals(12, outcome.committedRows()); // 25..29 and 33..39
    List<Map<String, Object>> rows =
        DeltaLakeTables.readRows(warehouse, WarehouseTables.RAW_EVENTS);
    assertEquals(40, rows.size());
    Set<Long> offsets = new HashSet<>();
    for (Map<String, Object> row : rows) {
      assertTrue(
          "stored twice: " + row.get("origin_offset"),
          offsets.add((Long) row.get("origin_offset")));
    }
    // A file with copies was rewritten: the committed file is not one the replay wrote.
    Set<String> replayPaths = new HashSet<>();
    replayFiles.forEach(f -> replayPaths.add(f.path()));
    assertTrue(outcome.committed().stream().noneMatch(f -> replayPaths.contains(f.path())));

    // Every recognised copy points at the stored row with its own payload.
    for (DeltaLakeCommitter.Recognised r : outcome.recognised()) {
      io.streamrecon.model.EventRef ref =
          CommittedRows.eventRef(
              Side.valueOf(r.partitionValues().get("side")),
              r.row().extra(),
              r.storedAt().tableVersion(),
              r.storedAt().path(),
              r.storedAt().rowIndex());
      assertEquals(stored.tableVersion(), ref.pointer().tableVersion());
      Map<String, Object> at =
          rowAt(
              warehouse,
              ref.pointer().naturalId(),
              ref.pointer().dataFile(),
              ref.pointer().rowIndex());
      assertEquals(ref.naturalId(), at.get("natural_id"));
      assertEquals(ref.sha256(), at.get("sha256"));
    }
    // The commit step's per-file elements (grouped by stored file) expand to the same pointers.
    List<io.streamrecon.model.EventRef> direct = new ArrayList<>();
    for (DeltaLakeCommitter.Recognised r : outcome.recognised()) {
      direct.add(
          CommittedRows.eventRef(
              Side.valueOf(r.partitionValues().get("side")),
              r.row().extra(),
              r.storedAt().tableVersion(),
              r.storedAt().path(),
              r.storedAt().rowIndex()));
    }
    List<io.streamrecon.model.EventRef> expanded = new ArrayList<>();
    List<CommittedRows> grouped = CommittedRows.recognisedRows(outcome.recognised());
    assertTrue(grouped.size() < outcome.recognised().size());
    for (CommittedRows group : grouped) {
      expanded.addAll(CommittedRows.eventRefs(group, null, null));
    }
    assertEquals(direct.size(), expanded.size());
    assertEquals(new HashSet<>(direct), new HashSet<>(expanded));
    // New rows point into the committed (rewritten) files, rows in order.
    for (DataFile f : outcome.committed()) {
      for (io.streamrecon.model.EventRef ref : CommittedRows.eventRefs(f, outcome.tableVersion())) {
        Map<String, Object> at =
            rowAt(warehouse, ref.naturalId(), ref.pointer().dataFile(), ref.pointer().rowIndex());
        assertEquals(ref.sha256(), at.get("sha256"));
      }
    }
    // Stats of rewritten files describe what they hold.
    for (DataFile f : outcome.committed()) {
      assertEquals(f.numRecords(), FileStats.numRecords(f.stats()));
    }

    // The same replay once more: nothing new.
    DeltaLakeCommitter.CommitResult third = after.commit("app", 2, writeFiles(warehouse, replay));
    assertTrue(third.alreadyCommitted());
    assertEquals(30, third.recognised().size());
    assertEquals(40, DeltaLakeTables.readRows(warehouse, WarehouseTables.RAW_EVENTS).size());
  }

  @Test
  public void copiesWithinOneBatchAreStoredOnceAndPointAtTheKeptRow() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    List<Event> events = TestEvents.events(Side.SOURCE, "d", 5, TestEvents.T0);
    List<Event> doubled = new ArrayList<>(events);
    doubled.addAll(events.subList(1, 3));
    DeltaLakeCommitter committer = new DeltaLakeCommitter(conf, warehouse, TableLayouts.RAW_EVENTS);
    DeltaLakeCommitter.CommitResult outcome =
        committer.commit("app", 0, writeFiles(warehouse, doubled));
    assertEquals(5, outcome.committedRows());
    assertEquals(2, outcome.recognised().size());
    for (DeltaLakeCommitter.Recognised r : outcome.recognised()) {
      assertEquals(outcome.tableVersion(), r.storedAt().tableVersion());
      assertEquals(outcome.committed().get(0).path(), r.storedAt().path());
    }
    assertEquals(1, outcome.recognised().get(0).storedAt().rowIndex());
    assertEquals(2, outcome.recognised().get(1).storedAt().rowIndex());
    assertEquals(5, DeltaLakeTables.readRows(warehouse, WarehouseTables.RAW_EVENTS).size());
  }

  @Test
  public void anotherWriterStoresTheSameRecordsAgain() throws Exception {
    // Content is checked against this writer's own commits only: a new job (new writer id)
    // re-reading a topic from the start appends, as a re-run of the same files does.
    String warehouse = tmp.getRoot().getPath();
    List<Event> events = TestEvents.events(Side.SOURCE, "w", 4, TestEvents.T0);
    new DeltaLakeCommitter(conf, warehouse, TableLayouts.RAW_EVENTS)
        .commit("job-1", 0, writeFiles(warehouse, events));
    DeltaLakeCommitter.CommitResult other =
        new DeltaLakeCommitter(conf, warehouse, TableLayouts.RAW_EVENTS)
            .commit("job-2", 0, writeFiles(warehouse, events));
    assertEquals(4, other.committedRows());
    assertEquals(8, DeltaLakeTables.readRows(warehouse, WarehouseTables.RAW_EVENTS).size());
  }

  @Test
  public void aVerdictAlreadyInDeltasIsNeverWrittenAgain() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    List<io.streamrecon.model.DeltaRecord> verdicts = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      verdicts.add(verdict("v" + i));
    }
    DeltaLakeCommitter committer = new DeltaLakeCommitter(conf, warehouse, TableLayouts.DELTAS);
    committer.commit("app", 0, writeDeltas(warehouse, verdicts.subList(0, 4)));
    DeltaLakeCommitter.CommitResult replay =
        new DeltaLakeCommitter(conf, warehouse, TableLayouts.DELTAS)
            .commit("app", 0, writeDeltas(warehouse, verdicts.subList(2, 6)));
    assertEquals(2, replay.recognised().size());
    assertEquals(2, replay.committedRows());
    List<io.streamrecon.model.DeltaRecord> stored = DeltaLakeTables.readDeltas(warehouse);
    assertEquals(6, stored.size());
    assertEquals(
        6, stored.stream().map(io.streamrecon.model.DeltaRecord::verdictId).distinct().count());
  }

  private List<DataFile> writeDeltas(
      String warehouse, List<io.streamrecon.model.DeltaRecord> records) throws Exception {
    try (DataFileWriter<io.streamrecon.model.DeltaRecord> writer =
        new DataFileWriter<>(
            conf,
            DeltaLakeCommitter.tablePath(warehouse, WarehouseTables.DELTAS),
            TableLayouts.DELTAS,
            "run-1")) {
      for (io.streamrecon.model.DeltaRecord r : records) {
        writer.write(r, TestEvents.T0);
      }
      return writer.finish();
    }
  }

  private static io.streamrecon.model.DeltaRecord verdict(String naturalId) {
    return new io.streamrecon.model.DeltaRecord(
        TestEvents.sha256(naturalId.getBytes(StandardCharsets.UTF_8)),
        null,
        naturalId,
        io.streamrecon.model.Status.MISSING_IN_TARGET,
        List.of(),
        TestEvents.sha256(("h" + naturalId).getBytes(StandardCharsets.UTF_8)),
        null,
        TestEvents.T0,
        null,
        new io.streamrecon.model.Pointer(
            0,
            "side=SOURCE/x.parquet",
            0,
            Side.SOURCE,
            naturalId,
            TestEvents.sha256(("h" + naturalId).getBytes(StandardCharsets.UTF_8))),
        null,
        TestEvents.T0,
        "run-1");
  }

  private static Map<String, Object> rowAt(
      String warehouse, String naturalId, String dataFile, long rowIndex) {
    for (Map<String, Object> row : DeltaLakeTables.findRawEvents(warehouse, naturalId)) {
      if (row.get(DeltaLakeTables.DATA_FILE).equals(dataFile)
          && ((Long) row.get(DeltaLakeTables.ROW_INDEX)) == rowIndex) {
        return row;
      }
    }
    throw new AssertionError("no row " + dataFile + "#" + rowIndex + " for " + naturalId);
  }

  /**
   * Writers of separate pipelines (each its own DeltaLog, as in separate JVMs) commit to one table
   * at once, from its creation on. Every commit must land: none may overwrite another's log entry
   * (the local file system's rename replaces an existing file), and no reader may see a log file
   * that is not complete. Enough writers and commits that, without an atomic log store, versions
   * collide in almost every run.
   */
  @Test
  public void twoWritersAppendConcurrentlyAndEveryRowIsPresentOnce() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    int writers = 4;
    int batches = 10;
    int rowsPerBatch = 3;
    List<List<List<DataFile>>> work = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      List<List<DataFile>> mine = new ArrayList<>();
      for (int i = 0; i < batches; i++) {
        mine.add(
            writeFiles(
                warehouse,
                TestEvents.events(
                    w % 2 == 0 ? Side.SOURCE : Side.TARGET,
                    "w" + w + "b" + i,
                    rowsPerBatch,
                    TestEvents.T0)));
      }
      work.add(mine);
    }
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    try {
      // All writers start on a table that does not exist yet: all try to create it.
      List<Future<Void>> results = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        String appId = "pipeline-" + w;
        List<List<DataFile>> mine = work.get(w);
        Callable<Void> task =
            () -> {
              DeltaLakeCommitter committer =
                  new DeltaLakeCommitter(new Configuration(), warehouse, TableLayouts.RAW_EVENTS);
              start.await();
              for (int i = 0; i < batches; i++) {
                committer.commit(appId, i, mine.get(i));
                // Every batch is retried once, as if the first acknowledgement was lost.
                assertTrue(committer.commit(appId, i, mine.get(i)).alreadyCommitted());
              }
              return null;
            };
        results.add(pool.submit(task));
      }
      start.countDown();
      for (Future<Void> f : results) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    List<Map<String, Object>> rows =
        DeltaLakeTables.readRows(warehouse, WarehouseTables.RAW_EVENTS);
    Set<String> ids = new HashSet<>();
    for (Map<String, Object> row : rows) {
      assertTrue("duplicate " + row.get("natural_id"), ids.add((String) row.get("natural_id")));
    }
    assertEquals(writers * batches * rowsPerBatch, rows.size());
    assertEquals(
        writers * batches - 1, DeltaLakeTables.tableVersion(warehouse, WarehouseTables.RAW_EVENTS));
  }

  @Test
  public void refusesATableWithAnIncompatibleSchema() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    // A deltas table where raw_events should be.
    io.delta.kernel.engine.Engine engine = DeltaLakeEngine.create(conf);
    io.delta.kernel.Table.forPath(engine, warehouse + "/raw_events")
        .createTransactionBuilder(engine, "test", io.delta.kernel.Operation.CREATE_TABLE)
        .withSchema(engine, TableLayouts.DELTAS.deltaSchema())
        .build(engine)
        .commit(engine, io.delta.kernel.utils.CloseableIterable.emptyIterable());

    List<DataFile> files =
        writeFiles(warehouse, TestEvents.events(Side.SOURCE, "a", 1, TestEvents.T0));
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () ->
                new DeltaLakeCommitter(conf, warehouse, TableLayouts.RAW_EVENTS)
                    .commit("app", 0, files));
    assertThat(e.getMessage(), containsString("incompatible schema"));
  }

  @Test
  public void aRewriteCommitRemovesExactlyTheGivenFilesAndAddsExactlyTheNewOnes() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    DeltaLakeCommitter committer = new DeltaLakeCommitter(conf, warehouse, TableLayouts.RAW_EVENTS);
    for (String prefix : List.of("a", "b", "c", "d")) {
      committer.commit(
          "app",
          0,
          writeFiles(warehouse, TestEvents.events(Side.SOURCE, prefix, 2, TestEvents.T0)));
    }
    io.delta.kernel.engine.Engine engine = committer.engine();
    org.apache.hadoop.fs.Path root = committer.tableRoot();
    io.delta.kernel.Snapshot before = DeltaLakeSnapshot.kernelSnapshot(engine, root);
    List<io.delta.kernel.internal.actions.AddFile> live =
        DeltaLakeCompaction.liveFiles(engine, root, before);
    assertThat(live, hasSize(4));

    for (boolean dataChange : List.of(false, true)) {
      io.delta.kernel.Snapshot snapshot = DeltaLakeSnapshot.kernelSnapshot(engine, root);
      List<io.delta.kernel.internal.actions.AddFile> current =
          DeltaLakeCompaction.liveFiles(engine, root, snapshot);
      List<io.delta.kernel.internal.actions.AddFile> removed = current.subList(0, 2);
      List<DataFile> added =
          writeFiles(
              warehouse, TestEvents.events(Side.SOURCE, "new" + dataChange, 2, TestEvents.T0));
      long version =
          DeltaLakeCommitter.commitRewrite(engine, root, snapshot, removed, added, dataChange);

      assertEquals(snapshot.getVersion() + 1, version);
      Set<String> removes = new HashSet<>();
      Set<String> adds = new HashSet<>();
      VersionLog v = DeltaLog.forTable(conf, root.toString()).getChanges(version, true).next();
      for (Action a : v.getActions()) {
        if (a instanceof RemoveFile r) {
          assertEquals(dataChange, r.isDataChange());
          removes.add(r.getPath());
        } else if (a instanceof AddFile f) {
          assertEquals(dataChange, f.isDataChange());
          adds.add(f.getPath());
        } else {
          assertTrue("unexpected " + a, a instanceof CommitInfo);
        }
      }
      assertEquals(
          removed.stream().map(io.delta.kernel.internal.actions.AddFile::getPath).collect(toSet()),
          removes);
      assertEquals(added.stream().map(DataFile::path).collect(toSet()), adds);
      Set<String> kept = new HashSet<>(adds);
      for (io.delta.kernel.internal.actions.AddFile f : current.subList(2, current.size())) {
        kept.add(f.getPath());
      }
      Set<String> liveAfter = new HashSet<>();
      for (AddFile f : DeltaLog.forTable(conf, root.toString()).update().getAllFiles()) {
        liveAfter.add(f.getPath());
      }
      assertEquals(kept, liveAfter);
      assertEquals(
          "Manual Update",
          DeltaLog.forTable(conf, root.toString()).getCommitInfoAt(version).getOperation());
    }

    // On the snapshot from before, removing a file a later commit removed first is a conflict:
    // the callers plan again or give up on it.
    assertThrows(
        ConcurrentWriteException.class,
        () ->
            DeltaLakeCommitter.commitRewrite(
                engine, root, before, live.subList(0, 1), List.of(), true));
  }
}
