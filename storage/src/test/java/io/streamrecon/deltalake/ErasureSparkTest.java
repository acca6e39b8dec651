package io.streamrecon.deltalake;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.streamrecon.deltalake.DeltaLakeMaintenance.ForgetResult;
import io.streamrecon.json.ParseConfig;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * Erasure as Apache Spark and delta-spark see it: no payload or value of the erased ids in any
 * table, every other id's rows as before, each table's erasure a commit in {@code DESCRIBE
 * HISTORY}; time travel still reaches the old files until a vacuum deletes them. A file with a
 * deletion vector is rewritten without the rows its vector deletes.
 */
public class ErasureSparkTest {
  private static SparkSession spark;

  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  private static final List<String> KEYS = ParseConfig.DEFAULT_KEY_FIELDS;

  @BeforeClass
  public static void startSpark() {
    spark = DeltaSpark.start("erasure");
  }

  @AfterClass
  public static void stopSpark() {
    if (spark != null) {
      spark.stop();
    }
  }

  private static Dataset<Row> read(String warehouse, String name) {
    return spark.read().format("delta").load(Paths.get(warehouse, name).toString());
  }

  private static Map<String, Long> rowsPerId(String warehouse, String name) {
    Map<String, Long> counts = new HashMap<>();
    for (Row r : read(warehouse, name).groupBy("natural_id").count().collectAsList()) {
      counts.put(r.getString(0), r.getLong(1));
    }
    return counts;
  }

  @Test
  public void sparkSeesNoValueOfTheErasedIdsAndTheCommitsInTheHistory() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    ErasureFixture.write(warehouse, 100, 5);
    Set<String> ids = Set.of(ErasureFixture.id(10), ErasureFixture.id(47));
    Map<String, Long> rawBefore = rowsPerId(warehouse, WarehouseTables.RAW_EVENTS);
    Map<String, Long> deltasBefore = rowsPerId(warehouse, WarehouseTables.DELTAS);
    long rawVersion = DeltaLakeTables.tableVersion(warehouse, WarehouseTables.RAW_EVENTS);

    Map<String, ForgetResult> results = new HashMap<>();
    for (ForgetResult r : DeltaLakeMaintenance.forget(ErasureFixture.CONF, warehouse, ids, KEYS)) {
      results.put(r.table(), r);
    }

    Map<String, Long> rawAfter = rowsPerId(warehouse, WarehouseTables.RAW_EVENTS);
    for (String id : ids) {
      rawBefore.remove(id);
    }
    assertEquals(rawBefore, rawAfter);
    assertEquals(
        0,
        read(warehouse, WarehouseTables.RAW_EVENTS)
            .where("payload LIKE '%secret-10\"%' OR payload LIKE '%secret-47\"%'")
            .count());
    // Verdicts stay, one per id as before; the erased ids' difference values are null.
    assertEquals(deltasBefore, rowsPerId(warehouse, WarehouseTables.DELTAS));
    List<Row> values =
        spark
            .sql(
                "SELECT natural_id, d.path, d.kind, d.source, d.target FROM "
                    + DeltaSpark.table(warehouse, WarehouseTables.DELTAS)
                    + " LATERAL VIEW explode(differences) x AS d"
                    + " WHERE natural_id IN ('s-00010', 's-00047')")
            .collectAsList();
    assertEquals(2, values.size());
    for (Row r : values) {
      assertEquals("/secret", r.getString(1));
      assertEquals("CHANGED", r.getString(2));
      assertTrue(r.isNullAt(3));
      assertTrue(r.isNullAt(4));
    }
    assertEquals(
        98,
        read(warehouse, WarehouseTables.DELTAS)
            .selectExpr("explode(differences) AS d")
            .where("d.source IS NOT NULL AND d.target IS NOT NULL")
            .count());
    assertEquals(
        0, read(warehouse, WarehouseTables.DEAD_LETTERS).where("raw LIKE '%dl-10\"%'").count());
    assertEquals(
        1, read(warehouse, WarehouseTables.DEAD_LETTERS).where("raw_encoding = 'erased'").count());
    assertEquals(
        0, read(warehouse, WarehouseTables.LATE_EVENTS).where("natural_id = 's-00010'").count());

    for (String name : WarehouseTables.TABLES) {
      Row last =
          spark
              .sql("DESCRIBE HISTORY " + DeltaSpark.table(warehouse, name) + " LIMIT 1")
              .collectAsList()
              .get(0);
      assertEquals(name, results.get(name).version(), last.getLong(last.fieldIndex("version")));
      assertEquals("Manual Update", last.getString(last.fieldIndex("operation")));
    }

    // Time travel still reaches the erased rows until a vacuum deletes the old files.
    String previous =
        "SELECT count(*) FROM "
            + DeltaSpark.table(warehouse, WarehouseTables.RAW_EVENTS)
            + " VERSION AS OF "
            + rawVersion
            + " WHERE natural_id = 's-00010'";
    assertEquals(2L, spark.sql(previous).collectAsList().get(0).getLong(0));
    Instant later = Instant.now().plus(Duration.standardDays(8));
    for (String name : WarehouseTables.TABLES) {
      DeltaLakeMaintenance.vacuum(
          ErasureFixture.CONF, warehouse, name, Duration.standardDays(7), later);
    }
    Exception gone = assertThrows(Exception.class, () -> spark.sql(previous).collectAsList());
    assertThat(String.valueOf(gone), containsString("FileNotFound"));
    assertEquals(rawBefore, rowsPerId(warehouse, WarehouseTables.RAW_EVENTS));
  }

  @Test
  public void aFileWithADeletionVectorIsRewrittenWithItsDeletionsKept() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    ErasureFixture.write(warehouse, 40, 2);
    String rawEvents = DeltaSpark.table(warehouse, WarehouseTables.RAW_EVENTS);
    spark.sql(
        "ALTER TABLE " + rawEvents + " SET TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')");
    // Another id of the same files: Spark marks its rows deleted in a vector.
    spark.sql("DELETE FROM " + rawEvents + " WHERE natural_id = '" + ErasureFixture.id(3) + "'");
    assertEquals(
        "the DELETE marked rows in a vector, not by rewriting the files",
        1L,
        spark
                    .sql("DESCRIBE HISTORY " + rawEvents + " LIMIT 1")
                    .selectExpr("cast(operationMetrics['numDeletionVectorsAdded'] as long)")
                    .collectAsList()
                    .get(0)
                    .getLong(0)
                > 0
            ? 1L
            : 0L);

    Map<String, ForgetResult> results = new HashMap<>();
    for (ForgetResult r :
        DeltaLakeMaintenance.forget(
            ErasureFixture.CONF, warehouse, Set.of(ErasureFixture.id(4)), KEYS)) {
      results.put(r.table(), r);
    }
    assertEquals(2, results.get(WarehouseTables.RAW_EVENTS).rowsRemoved());
    // Our readers and Spark agree: the erased id and the id Spark deleted are both gone, and
    // every other id keeps its two rows.
    Map<String, Long> ids = rowsPerId(warehouse, WarehouseTables.RAW_EVENTS);
    assertEquals(38, ids.size());
    assertTrue(!ids.containsKey(ErasureFixture.id(3)) && !ids.containsKey(ErasureFixture.id(4)));
    assertTrue(ids.values().stream().allMatch(n -> n == 2));
    assertEquals(76L, spark.sql("SELECT * FROM " + rawEvents).count());
    assertEquals(76, DeltaLakeTables.readRows(warehouse, WarehouseTables.RAW_EVENTS).size());
    assertEquals(
        0L,
        spark
            .sql(
                "SELECT * FROM "
                    + rawEvents
                    + " WHERE natural_id IN ('"
                    + ErasureFixture.id(3)
                    + "', '"
                    + ErasureFixture.id(4)
                    + "')")
            .count());
  }
}
