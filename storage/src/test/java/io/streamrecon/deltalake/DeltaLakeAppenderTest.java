package io.streamrecon.deltalake;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.streamrecon.model.Event;
import io.streamrecon.model.Side;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class DeltaLakeAppenderTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  private final Configuration conf = new Configuration();

  /** Rows appended outside a pipeline read back as a run's rows do, in the files it closed. */
  @Test
  public void committedRowsReadBackWithTheFilesThatWereFinished() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    List<Event> first = TestEvents.events(Side.SOURCE, "a", 3, TestEvents.T0);
    List<Event> second = TestEvents.events(Side.TARGET, "b", 2, TestEvents.T0);
    try (DeltaLakeAppender<Event> appender = DeltaLakeAppender.rawEvents(conf, warehouse, "seed")) {
      for (Event e : first) {
        appender.write(e, e.eventTime());
      }
      List<DeltaLakeSnapshot.TableFile> closed = appender.finishFiles();
      assertEquals(1, closed.size());
      assertNull("no table before the commit", DeltaLakeSnapshot.latest(conf, root(warehouse)));
      for (Event e : second) {
        appender.write(e, e.eventTime());
      }
      long version = appender.commit("seed-app", 0);

      DeltaLakeSnapshot snapshot = DeltaLakeSnapshot.latest(conf, root(warehouse));
      assertEquals(version, snapshot.version());
      assertEquals(2, snapshot.files().size());
      assertTrue(snapshot.files().contains(closed.get(0)));
      assertEquals(5, DeltaLakeTables.readRows(warehouse, WarehouseTables.RAW_EVENTS).size());
      Map<String, Object> row = DeltaLakeTables.findRawEvents(warehouse, "b-00001").get(0);
      assertEquals("seed", row.get("run_id"));

      // A row the app id stored already is a copy, as in a replayed pane of a run.
      appender.write(first.get(0), first.get(0).eventTime());
      assertEquals(version, appender.commit("seed-app", 1));
      assertEquals(2, DeltaLakeSnapshot.latest(conf, root(warehouse)).files().size());
    }
  }

  /** Bloom filters are on by default, as a run writes them, and can be left out. */
  @Test
  public void writesNaturalIdBloomFiltersUnlessToldNotTo() throws Exception {
    assertEquals(Set.of("natural_id"), bloomFilterColumns(false));
    assertEquals(Set.of(), bloomFilterColumns(true));
  }

  private Set<String> bloomFilterColumns(boolean without) throws Exception {
    String warehouse = tmp.newFolder().getPath();
    DeltaLakeAppender<Event> appender =
        DeltaLakeAppender.rawEvents(conf, warehouse, "seed").withExpectedRowsPerFile(10);
    if (without) {
      appender = appender.withoutBloomFilters();
    }
    for (Event e : TestEvents.events(Side.SOURCE, "k", 10, TestEvents.T0)) {
      appender.write(e, e.eventTime());
    }
    DeltaLakeSnapshot.TableFile file = appender.finishFiles().get(0);
    try (ParquetFileReader reader =
        ParquetFileReader.open(
            HadoopInputFile.fromPath(new Path(root(warehouse), file.path()), conf))) {
      return reader.getRowGroups().stream()
          .map(BlockMetaData::getColumns)
          .flatMap(List::stream)
          .filter(c -> c.getBloomFilterOffset() >= 0)
          .map(ColumnChunkMetaData::getPath)
          .map(p -> p.toDotString())
          .collect(Collectors.toSet());
    }
  }

  /** Closing deletes the files still open, never those finished. */
  @Test
  public void closeDeletesOnlyTheOpenFiles() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    List<Event> events = TestEvents.events(Side.SOURCE, "c", 2, TestEvents.T0);
    DeltaLakeSnapshot.TableFile finished;
    try (DeltaLakeAppender<Event> appender = DeltaLakeAppender.rawEvents(conf, warehouse, "seed")) {
      appender.write(events.get(0), events.get(0).eventTime());
      finished = appender.finishFiles().get(0);
      appender.write(events.get(1), events.get(1).eventTime());
    }
    java.nio.file.Path table = tmp.getRoot().toPath().resolve(WarehouseTables.RAW_EVENTS);
    try (var files = java.nio.file.Files.walk(table)) {
      List<String> parquet =
          files
              .filter(p -> p.toString().endsWith(".parquet"))
              .map(p -> table.relativize(p).toString())
              .toList();
      assertEquals(List.of(finished.path()), parquet);
    }
  }

  /** Settings are checked with a message naming them, and only before the first row. */
  @Test
  public void rejectsBadSettingsNamingThem() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    assertTrue(
        assertThrows(
                IllegalArgumentException.class,
                () -> DeltaLakeAppender.rawEvents(conf, " ", "seed"))
            .getMessage()
            .startsWith("warehouse must be"));
    assertTrue(
        assertThrows(
                IllegalArgumentException.class, () -> DeltaLakeAppender.deltas(conf, warehouse, ""))
            .getMessage()
            .startsWith("runId must be 1 to"));
    DeltaLakeAppender<Event> appender = DeltaLakeAppender.rawEvents(conf, warehouse, "seed");
    assertEquals(
        "expectedRowsPerFile must be at least 1, got 0",
        assertThrows(IllegalArgumentException.class, () -> appender.withExpectedRowsPerFile(0))
            .getMessage());
    Event e = TestEvents.events(Side.SOURCE, "d", 1, TestEvents.T0).get(0);
    appender.write(e, e.eventTime());
    assertFalse(
        assertThrows(IllegalStateException.class, appender::withoutBloomFilters)
            .getMessage()
            .isEmpty());
    appender.close();
  }

  private static Path root(String warehouse) {
    return new Path(warehouse, WarehouseTables.RAW_EVENTS);
  }
}
