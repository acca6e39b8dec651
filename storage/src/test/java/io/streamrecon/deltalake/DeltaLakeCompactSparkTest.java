package io.streamrecon.deltalake;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import io.streamrecon.model.Event;
import io.streamrecon.model.Side;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * Apache Spark with delta-spark reads the same rows after {@code compact} (and after the vacuum
 * that deletes the old files), and DESCRIBE HISTORY lists the compaction as an OPTIMIZE-like commit
 * whose file actions carry no data change.
 */
public class DeltaLakeCompactSparkTest {
  @ClassRule public static final TemporaryFolder TMP = new TemporaryFolder();

  private static SparkSession spark;
  private static String warehouse;

  @BeforeClass
  public static void startSpark() {
    warehouse = TMP.getRoot().getPath();
    spark =
        SparkSession.builder()
            .master("local[2]")
            .appName("streamrecon-compact")
            .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
            .config(
                "spark.sql.catalog.spark_catalog",
                "org.apache.spark.sql.delta.catalog.DeltaCatalog")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "2")
            .config("spark.databricks.delta.snapshotPartitions", "2")
            .config("spark.sql.adaptive.enabled", "false")
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .getOrCreate();
  }

  @AfterClass
  public static void stopSpark() {
    if (spark != null) {
      spark.stop();
    }
  }

  /** Every row, every column as text, sorted: equal lists mean equal tables. */
  private static List<String> rows() {
    return spark
        .read()
        .format("delta")
        .load(warehouse + "/raw_events")
        .selectExpr("to_json(struct(*)) AS row")
        .orderBy("row")
        .collectAsList()
        .stream()
        .map(r -> r.getString(0))
        .toList();
  }

  @Test
  public void sparkReadsTheSameRowsAfterCompactionAndVacuum() throws Exception {
    List<Event> events = new ArrayList<>();
    for (int c = 0; c < 6; c++) {
      List<Event> batch =
          new ArrayList<>(TestEvents.events(Side.SOURCE, "s" + c, 12, TestEvents.T0));
      batch.addAll(
          TestEvents.events(
              Side.TARGET, "t" + c, 12, TestEvents.T0.plus(Duration.standardDays(1))));
      RawEventsFixture.commit(warehouse, "spark-compact", c, batch);
      events.addAll(batch);
    }
    List<String> before = rows();
    assertEquals(events.size(), before.size());

    DeltaLakeMaintenance.CompactResult result =
        DeltaLakeMaintenance.compact(
            new Configuration(), warehouse, WarehouseTables.RAW_EVENTS, 1L << 27);
    assertEquals(12, result.filesRemoved());
    assertEquals(2, result.filesAdded());
    assertEquals(before, rows());
    assertEquals(
        2,
        spark
            .sql("DESCRIBE DETAIL delta.`" + warehouse + "/raw_events`")
            .first()
            .<Long>getAs("numFiles")
            .longValue());

    List<Row> history =
        spark
            .sql("DESCRIBE HISTORY delta.`" + warehouse + "/raw_events`")
            .where("version >= 6")
            .select("version", "operation", "operationParameters", "userMetadata", "isBlindAppend")
            .collectAsList();
    assertEquals(2, history.size());
    for (Row h : history) {
      // Kernel's commit info has no parameters of ours: the actions below say what it was.
      assertEquals("Manual Update", h.getString(1));
      assertFalse(h.getBoolean(4));
    }
    // No data change, as Delta readers (streaming sources, CDF) see it: every file action of the
    // two commits says dataChange=false.
    List<Row> actions =
        spark
            .read()
            .json(warehouse + "/raw_events/_delta_log/0000000000000000000[67].json")
            .selectExpr("coalesce(add.dataChange, remove.dataChange) AS dataChange")
            .where("dataChange IS NOT NULL")
            .collectAsList();
    assertEquals(14, actions.size());
    for (Row a : actions) {
      assertFalse(a.getBoolean(0));
    }

    DeltaLakeMaintenance.VacuumResult vacuum =
        DeltaLakeMaintenance.vacuum(
            new Configuration(),
            warehouse,
            WarehouseTables.RAW_EVENTS,
            Duration.standardHours(1),
            Instant.now().plus(Duration.standardHours(2)));
    assertEquals(12, vacuum.filesDeleted());
    assertEquals(before, rows());
    // A key filter still finds its row in the compacted file.
    assertTrue(
        spark
                .read()
                .format("delta")
                .load(warehouse + "/raw_events")
                .where("natural_id = 's3-00007' AND side = 'SOURCE'")
                .count()
            == 1);
  }
}
