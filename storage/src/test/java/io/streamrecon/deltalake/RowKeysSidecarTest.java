package io.streamrecon.deltalake;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.streamrecon.model.Event;
import io.streamrecon.model.EventRef;
import io.streamrecon.model.Side;
import java.nio.file.Files;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * Row keys too large to travel with their {@link DataFile} (a batch run's files) go to a sidecar:
 * the commit, its replay, the rewrite of a file with copies and the pointers must come out exactly
 * as with inline keys, and the sidecars must go once the run is over or older than VACUUM's
 * retention.
 */
public class RowKeysSidecarTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  private final Configuration conf = new Configuration();

  private DataFileWriter<Event> writer(Path tableRoot, int inlineMax) {
    return new DataFileWriter<>(
        conf,
        tableRoot,
        TableLayouts.RAW_EVENTS,
        "run-1",
        DataFileWriter.MAX_FILE_BYTES,
        DataFileWriter.DEFAULT_EXPECTED_ROWS,
        inlineMax);
  }

  /** A file's row keys, inline or read whole from its sidecar. */
  private static byte[] keysOf(DataFile f, Path tableRoot) throws Exception {
    return f.rowKeysFile().isEmpty()
        ? f.rowKeys()
        : Files.readAllBytes(java.nio.file.Path.of(tableRoot.toUri().getPath(), f.rowKeysFile()));
  }

  private List<DataFile> write(String warehouse, List<Event> events, int inlineMax)
      throws Exception {
    try (DataFileWriter<Event> writer =
        writer(DeltaLakeCommitter.tablePath(warehouse, WarehouseTables.RAW_EVENTS), inlineMax)) {
      for (Event e : events) {
        writer.write(e, e.eventTime());
      }
      return writer.finish();
    }
  }

  /** What a pointer says apart from the file name, which differs between two warehouses. */
  private static List<String> rows(List<EventRef> refs) {
    return refs.stream()
        .map(
            r ->
                r.side()
                    + " "
                    + r.naturalId()
                    + " "
                    + r.eventTime()
                    + " "
                    + r.sha256()
                    + " row "
                    + r.pointer().rowIndex()
                    + " v"
                    + r.pointer().tableVersion())
        .sorted()
        .toList();
  }

  private List<EventRef> expand(String warehouse, DeltaLakeCommitter.CommitResult outcome)
      throws Exception {
    Path root = DeltaLakeCommitter.tablePath(warehouse, WarehouseTables.RAW_EVENTS);
    List<EventRef> refs = new ArrayList<>();
    for (DataFile f : outcome.committed()) {
      CommittedRows rows = CommittedRows.committedRows(f, outcome.tableVersion());
      refs.addAll(CommittedRows.eventRefs(rows, conf, root));
    }
    for (CommittedRows rows : CommittedRows.recognisedRows(outcome.recognised())) {
      refs.addAll(CommittedRows.eventRefs(rows, conf, root));
    }
    return refs;
  }

  @Test
  public void keysInASidecarCommitAndPointExactlyAsInlineKeys() throws Exception {
    List<Event> events = new ArrayList<>(TestEvents.events(Side.SOURCE, "a", 20, TestEvents.T0));
    events.addAll(TestEvents.events(Side.TARGET, "a", 20, TestEvents.T0));
    String inlineWh = tmp.newFolder("inline").getPath();
    String sidecarWh = tmp.newFolder("sidecar").getPath();
    List<DataFile> inline = write(inlineWh, events, RowKeys.INLINE_MAX_BYTES);
    List<DataFile> sidecar = write(sidecarWh, events, 0);

    java.nio.file.Path table = java.nio.file.Path.of(sidecarWh, WarehouseTables.RAW_EVENTS);
    for (int i = 0; i < sidecar.size(); i++) {
      DataFile f = sidecar.get(i);
      assertEquals(0, f.rowKeys().length);
      assertTrue(f.rowKeysFile(), f.rowKeysFile().startsWith("_streamrecon_row_keys/run-1/"));
      assertTrue(Files.exists(table.resolve(f.rowKeysFile())));
      assertEquals("", inline.get(i).rowKeysFile());
      assertArrayEquals(
          inline.get(i).rowKeys(),
          keysOf(f, DeltaLakeCommitter.tablePath(sidecarWh, WarehouseTables.RAW_EVENTS)));
    }

    DeltaLakeCommitter.CommitResult inlineCommit =
        new DeltaLakeCommitter(conf, inlineWh, TableLayouts.RAW_EVENTS).commit("app", 0, inline);
    DeltaLakeCommitter.CommitResult sidecarCommit =
        new DeltaLakeCommitter(conf, sidecarWh, TableLayouts.RAW_EVENTS).commit("app", 0, sidecar);
    assertEquals(40, rows(expand(sidecarWh, sidecarCommit)).size());
    assertEquals(rows(expand(inlineWh, inlineCommit)), rows(expand(sidecarWh, sidecarCommit)));

    // A replay after a restart (a new committer): every row recognised, pointing at the stored row.
    DeltaLakeCommitter.CommitResult replay =
        new DeltaLakeCommitter(conf, sidecarWh, TableLayouts.RAW_EVENTS).commit("app", 1, sidecar);
    assertTrue(replay.alreadyCommitted());
    assertEquals(rows(expand(sidecarWh, sidecarCommit)), rows(expand(sidecarWh, replay)));

    // A pane mixing replayed rows with new ones: the file is rewritten without the copies.
    List<Event> mixed = new ArrayList<>(events.subList(0, 20));
    mixed.addAll(TestEvents.events(Side.SOURCE, "b", 5, TestEvents.T0));
    DeltaLakeCommitter.CommitResult partly =
        new DeltaLakeCommitter(conf, sidecarWh, TableLayouts.RAW_EVENTS)
            .commit("app", 2, write(sidecarWh, mixed, 0));
    assertEquals(20, partly.recognised().size());
    assertEquals(5, partly.committedRows());
    assertEquals(25, expand(sidecarWh, partly).size());
    assertEquals(45, DeltaLakeTables.readRows(sidecarWh, WarehouseTables.RAW_EVENTS).size());

    DeltaLakeMaintenance.removeRowKeySidecars(conf, sidecarWh, "run-1");
    assertFalse(Files.exists(table.resolve("_streamrecon_row_keys/run-1")));
    DeltaLakeMaintenance.removeRowKeySidecars(conf, sidecarWh, "run-1"); // nothing left: fine

    // A run id that resolves to the sidecar folder or the table is refused, and nothing goes.
    for (String runId : new String[] {"..", "."}) {
      assertThrows(
          runId,
          IllegalStateException.class,
          () -> DeltaLakeMaintenance.removeRowKeySidecars(conf, sidecarWh, runId));
    }
    assertTrue(Files.isDirectory(table.resolve("_streamrecon_row_keys")));
    assertEquals(45, DeltaLakeTables.readRows(sidecarWh, WarehouseTables.RAW_EVENTS).size());
  }

  @Test
  public void keysStreamToTheSidecarOnceTheyOutgrowTheInlineLimitSoAnOpenFileHoldsLittle()
      throws Exception {
    int inlineMax = 1_000;
    List<Event> events = new ArrayList<>(TestEvents.events(Side.SOURCE, "a", 300, TestEvents.T0));
    events.addAll(TestEvents.events(Side.TARGET, "a", 300, TestEvents.T0));
    String inlineWh = tmp.newFolder("inline").getPath();
    String streamedWh = tmp.newFolder("streamed").getPath();
    Path streamedRoot = DeltaLakeCommitter.tablePath(streamedWh, WarehouseTables.RAW_EVENTS);
    List<DataFile> inline = write(inlineWh, events, RowKeys.INLINE_MAX_BYTES);
    long largestHeld = 0;
    List<DataFile> streamed;
    try (DataFileWriter<Event> writer = writer(streamedRoot, inlineMax)) {
      for (Event e : events) {
        writer.write(e, e.eventTime());
        largestHeld = Math.max(largestHeld, writer.inlineKeyBytes());
      }
      streamed = writer.finish();
    }
    // Two open files (one per side), each holding at most the limit and one row's keys.
    assertTrue("held " + largestHeld, largestHeld <= 2 * (inlineMax + 300));
    assertEquals(2, streamed.size());
    for (int i = 0; i < streamed.size(); i++) {
      DataFile f = streamed.get(i);
      assertEquals(0, f.rowKeys().length);
      assertTrue(inline.get(i).rowKeys().length > 10 * inlineMax);
      assertArrayEquals(inline.get(i).rowKeys(), keysOf(f, streamedRoot));
    }
  }

  @Test
  public void anAbandonedFileTakesItsStreamedSidecarWithIt() throws Exception {
    Path root = DeltaLakeCommitter.tablePath(tmp.getRoot().getPath(), WarehouseTables.RAW_EVENTS);
    java.nio.file.Path sidecars =
        java.nio.file.Path.of(tmp.getRoot().getPath(), WarehouseTables.RAW_EVENTS)
            .resolve("_streamrecon_row_keys/run-1");
    try (DataFileWriter<Event> writer = writer(root, 0)) {
      for (Event e : TestEvents.events(Side.SOURCE, "a", 5, TestEvents.T0)) {
        writer.write(e, e.eventTime());
      }
      try (var listing = Files.list(sidecars)) {
        assertEquals(1, listing.filter(p -> p.toString().endsWith(".keys")).count());
      }
    } // closed without finish(): the bundle failed
    try (var listing = Files.list(sidecars)) {
      assertEquals(0, listing.filter(p -> p.toString().endsWith(".keys")).count());
    }
  }

  @Test
  public void vacuumRemovesSidecarsOlderThanTheRetention() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    List<DataFile> files =
        write(warehouse, TestEvents.events(Side.SOURCE, "a", 5, TestEvents.T0), 0);
    new DeltaLakeCommitter(conf, warehouse, TableLayouts.RAW_EVENTS).commit("app", 0, files);
    java.nio.file.Path table = java.nio.file.Path.of(warehouse, WarehouseTables.RAW_EVENTS);
    java.nio.file.Path old = table.resolve(files.get(0).rowKeysFile());
    java.nio.file.Path fresh = table.resolve(RowKeys.sidecarPath("run-2", "part-x.snappy.parquet"));
    Files.createDirectories(fresh.getParent());
    Files.write(fresh, new byte[] {1});
    Instant now = Instant.now();
    Files.setLastModifiedTime(
        old, FileTime.fromMillis(now.minus(Duration.standardHours(2)).getMillis()));

    DeltaLakeMaintenance.VacuumResult r =
        DeltaLakeMaintenance.vacuum(
            conf, warehouse, WarehouseTables.RAW_EVENTS, Duration.standardHours(1), now);
    assertFalse(Files.exists(old));
    assertTrue(Files.exists(fresh));
    assertEquals(1, r.filesDeleted());
    // The committed data file stays.
    assertEquals(5, DeltaLakeTables.readRows(warehouse, WarehouseTables.RAW_EVENTS).size());
  }
}
