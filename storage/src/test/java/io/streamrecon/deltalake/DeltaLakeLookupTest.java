package io.streamrecon.deltalake;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.lessThan;
import static org.hamcrest.Matchers.lessThanOrEqualTo;
import static org.junit.Assert.assertEquals;

import io.delta.standalone.DeltaLog;
import io.delta.standalone.actions.AddFile;
import io.streamrecon.model.Event;
import io.streamrecon.model.EventRef;
import io.streamrecon.model.Side;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class DeltaLakeLookupTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  /** The pruned lookup finds the same rows, at the same row indexes, as a full read. */
  @Test
  public void findsTheSameRowsAsAFullReadWithTheirRowIndexes() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    List<EventRef> refs = new ArrayList<>();
    for (int c = 0; c < 3; c++) {
      // Thousands of rows per file: several pages, so page skipping must keep row indexes right.
      List<Event> batch =
          new ArrayList<>(TestEvents.events(Side.SOURCE, "f" + c, 6000, TestEvents.T0));
      batch.addAll(TestEvents.events(Side.TARGET, "f" + c, 10, TestEvents.T0));
      refs.addAll(RawEventsFixture.commit(warehouse, "app", c, batch));
    }
    for (EventRef r :
        List.of(refs.get(0), refs.get(4321), refs.get(12_345), refs.get(refs.size() - 1))) {
      DeltaLakeLookup.Cost[] cost = new DeltaLakeLookup.Cost[1];
      List<Map<String, Object>> found =
          DeltaLakeLookup.findRawEvents(warehouse, r.naturalId(), cost);
      assertEquals(DeltaLakeTables.findRawEvents(warehouse, r.naturalId()), found);
      Map<String, Object> same =
          found.stream()
              .filter(row -> row.get("side").equals(r.side().name()))
              .findFirst()
              .orElseThrow();
      assertEquals(r.pointer().dataFile(), same.get(DeltaLakeTables.DATA_FILE));
      assertEquals(r.pointer().rowIndex(), same.get(DeltaLakeTables.ROW_INDEX));
      assertThat(cost[0].filesOpened(), lessThan(cost[0].filesInSnapshot()));
    }
    assertEquals(List.of(), DeltaLakeLookup.findRawEvents(warehouse, "nope"));
  }

  /**
   * Streamed files each span the whole key range, so Delta Lake min/max stats admit every file; the
   * natural_id bloom filters let the lookup read the rows of the one file that holds the key.
   */
  @Test
  public void bloomFiltersSkipFilesThatStatsAdmit() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    int files = 8;
    List<EventRef> refs = new ArrayList<>();
    for (int f = 0; f < files; f++) {
      List<Event> batch = new ArrayList<>();
      for (int i = 0; i < 300; i++) {
        String id = String.format("k-%05d", i * files + f);
        batch.add(
            TestEvents.event(Side.SOURCE, id, TestEvents.T0.plus(i), "{\"id\":\"" + id + "\"}"));
      }
      refs.addAll(RawEventsFixture.commit(warehouse, "app", f, batch));
    }
    Configuration conf = new Configuration();
    Path root = DeltaLakeCommitter.tablePath(warehouse, WarehouseTables.RAW_EVENTS);
    for (AddFile file : DeltaLog.forTable(conf, root).update().getAllFiles()) {
      try (ParquetFileReader reader =
          ParquetFileReader.open(HadoopInputFile.fromPath(new Path(root, file.getPath()), conf))) {
        for (BlockMetaData block : reader.getRowGroups()) {
          for (ColumnChunkMetaData column : block.getColumns()) {
            assertEquals(
                column.getPath() + " of " + file.getPath() + " has a bloom filter",
                column.getPath().toDotString().equals("natural_id"),
                column.getBloomFilterOffset() >= 0);
          }
        }
      }
    }
    // Keys inside every file's min/max range: not the very first or last.
    for (EventRef r : List.of(refs.get(150), refs.get(1234), refs.get(refs.size() - 150))) {
      DeltaLakeLookup.Cost[] cost = new DeltaLakeLookup.Cost[1];
      List<Map<String, Object>> found =
          DeltaLakeLookup.findRawEvents(warehouse, r.naturalId(), cost);
      assertEquals(DeltaLakeTables.findRawEvents(warehouse, r.naturalId()), found);
      assertEquals(1, found.size());
      assertEquals(files, cost[0].filesOpened());
      // One file holds the key; at 1% false positives another may be read, never all of them.
      assertThat(cost[0].filesRead(), lessThanOrEqualTo(2L));
    }
    DeltaLakeLookup.Cost[] none = new DeltaLakeLookup.Cost[1];
    assertEquals(List.of(), DeltaLakeLookup.findRawEvents(warehouse, "k-00005x", none));
    assertThat(none[0].filesRead(), lessThanOrEqualTo(1L));
  }

  /** A file holding far more keys than its bloom filter was sized for still finds every key. */
  @Test
  public void anUndersizedBloomFilterNeverHidesARow() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    int rows = (int) (DataFileWriter.DEFAULT_EXPECTED_ROWS * 8);
    List<EventRef> refs =
        RawEventsFixture.commit(
            warehouse, "app", 0, TestEvents.events(Side.TARGET, "many", rows, TestEvents.T0));
    for (int i = 0; i < rows; i += rows / 16 + 1) {
      EventRef r = refs.get(i);
      List<Map<String, Object>> found = DeltaLakeLookup.findRawEvents(warehouse, r.naturalId());
      assertEquals(r.naturalId(), 1, found.size());
      assertEquals(r.pointer().rowIndex(), found.get(0).get(DeltaLakeTables.ROW_INDEX));
    }
  }
}
