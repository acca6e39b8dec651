package io.streamrecon.bench.deltalake;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.streamrecon.deltalake.DeltaLakeAppender;
import io.streamrecon.deltalake.DeltaLakeSnapshot.TableFile;
import io.streamrecon.deltalake.WarehouseTables;
import io.streamrecon.model.Event;
import io.streamrecon.model.Origin;
import io.streamrecon.model.Side;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.joda.time.Instant;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** The soak's readers of a table: rows from the file statistics, and each file's commit. */
public class TableReadersTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  private final Configuration conf = new Configuration();

  @Test
  public void countsRowsAndTellsTheCommitOfEachFile() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    assertEquals(0, TableRows.count(conf, warehouse, WarehouseTables.RAW_EVENTS));
    assertEquals(Map.of(), DataFileCommits.of(conf, warehouse, WarehouseTables.RAW_EVENTS));

    long before = System.currentTimeMillis();
    TableFile first;
    TableFile second;
    long v0;
    long v1;
    try (DeltaLakeAppender<Event> appender = DeltaLakeAppender.rawEvents(conf, warehouse, "test")) {
      for (int i = 0; i < 3; i++) {
        appender.write(event(i), new Instant(0));
      }
      first = appender.finishFiles().get(0);
      v0 = appender.commit("app", 0);
      for (int i = 3; i < 5; i++) {
        appender.write(event(i), new Instant(0));
      }
      second = appender.finishFiles().get(0);
      v1 = appender.commit("app", 1);
    }

    assertEquals(5, TableRows.count(conf, warehouse, WarehouseTables.RAW_EVENTS));
    Map<String, DataFileCommits.Commit> commits =
        DataFileCommits.of(conf, warehouse, WarehouseTables.RAW_EVENTS);
    assertEquals(2, commits.size());
    assertEquals(v0, commits.get(first.path()).version());
    assertEquals(v1, commits.get(second.path()).version());
    assertTrue(commits.get(first.path()).timestampMillis() >= before);
  }

  @Test
  public void statisticsWithoutARowCountCountAsAbsent() {
    assertEquals(7, TableRows.numRecords("{\"numRecords\":7,\"minValues\":{}}"));
    assertEquals(-1, TableRows.numRecords("{\"minValues\":{}}"));
    assertEquals(-1, TableRows.numRecords(null));
    assertEquals(-1, TableRows.numRecords("not json"));
  }

  private static Event event(int n) {
    String id = String.format("k-%03d", n);
    byte[] payload = ("{\"id\":\"" + id + "\"}").getBytes(StandardCharsets.UTF_8);
    return new Event(
        Side.SOURCE,
        id,
        new Instant(0),
        String.format("%064x", n),
        payload,
        Origin.kafka("t", 0, n));
  }
}
