package io.streamrecon.deltalake;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.hasItem;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import io.delta.standalone.DeltaLog;
import io.delta.standalone.actions.AddFile;
import io.streamrecon.model.DeltaRecord;
import io.streamrecon.model.Pointer;
import io.streamrecon.model.Side;
import io.streamrecon.model.Status;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.joda.time.Instant;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * A {@code deltas} table written before {@code rules_id} existed gains the column through a schema
 * update on the next commit, without any file rewritten; its old rows read back with a null rules
 * id, in our reader and in Spark with delta-spark.
 */
public class DeltasRulesIdEvolutionTest {
  @Rule public final TemporaryFolder tmp = new TemporaryFolder();

  private static DeltaRecord record(String verdictId, String rulesId) {
    Pointer sp = new Pointer(0, "f.parquet", 1, Side.SOURCE, "k-" + verdictId, "a".repeat(64));
    return new DeltaRecord(
        verdictId.repeat(64),
        null,
        "k-" + verdictId,
        Status.MISSING_IN_TARGET,
        List.of(),
        sp.sha256(),
        null,
        new Instant(1_700_000_000_000L),
        null,
        sp,
        null,
        new Instant(1_700_000_060_000L),
        "run-evolve",
        rulesId);
  }

  private static void commit(
      String warehouse, TableLayout<DeltaRecord> layout, String app, DeltaRecord r)
      throws Exception {
    List<DataFile> files;
    try (DataFileWriter<DeltaRecord> writer =
        new DataFileWriter<>(
            new Configuration(),
            DeltaLakeCommitter.tablePath(warehouse, WarehouseTables.DELTAS),
            layout,
            "run-evolve")) {
      writer.write(r, r.detectedAt());
      files = writer.finish();
    }
    new DeltaLakeCommitter(new Configuration(), warehouse, layout).commit(app, 1, files);
  }

  @Test
  public void oldTableGainsRulesIdWithoutRewriteAndSparkReadsIt() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    List<ColumnSpec> columns = TableLayouts.DELTAS.columns;
    assertEquals("rules_id", columns.get(columns.size() - 1).name);
    TableLayout<DeltaRecord> before =
        new TableLayout<>(
            WarehouseTables.DELTAS,
            DeltaRecord.class,
            columns.subList(0, columns.size() - 1),
            null,
            List.of("verdict_id"));

    commit(warehouse, before, "old-release", record("1", null));
    DeltaLog log =
        DeltaLog.forTable(
            new Configuration(), DeltaLakeCommitter.tablePath(warehouse, WarehouseTables.DELTAS));
    assertFalse(
        Arrays.asList(log.update().getMetadata().getSchema().getFieldNames()).contains("rules_id"));
    Set<String> oldFiles =
        log.update().getAllFiles().stream().map(AddFile::getPath).collect(Collectors.toSet());

    String rulesId = "9".repeat(64);
    commit(warehouse, TableLayouts.DELTAS, "new-release", record("2", rulesId));
    // Version 1 adds the column (Kernel changes schemas only with column mapping, so that commit
    // is ours), version 2 the new release's rows.
    assertEquals(2, log.update().getVersion());
    assertTrue(
        Arrays.asList(log.update().getMetadata().getSchema().getFieldNames()).contains("rules_id"));
    Set<String> nowFiles =
        log.update().getAllFiles().stream().map(AddFile::getPath).collect(Collectors.toSet());
    assertTrue("no file rewritten or removed", nowFiles.containsAll(oldFiles));
    assertEquals(oldFiles.size() + 1, nowFiles.size());

    Map<String, String> ours = new HashMap<>();
    for (DeltaRecord r : DeltaLakeTables.readDeltas(warehouse)) {
      ours.put(r.naturalId(), r.rulesId());
    }
    assertEquals(2, ours.size());
    assertNull(ours.get("k-1"));
    assertEquals(rulesId, ours.get("k-2"));

    SparkSession spark =
        SparkSession.builder()
            .master("local[1]")
            .appName("streamrecon-rules-id-evolution")
            .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
            .config(
                "spark.sql.catalog.spark_catalog",
                "org.apache.spark.sql.delta.catalog.DeltaCatalog")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "1")
            .config("spark.databricks.delta.snapshotPartitions", "1")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .getOrCreate();
    try {
      String path = DeltaLakeCommitter.tablePath(warehouse, WarehouseTables.DELTAS).toString();
      var df = spark.read().format("delta").load(path);
      assertThat(Arrays.asList(df.schema().fieldNames()), hasItem("rules_id"));
      Map<String, String> sparkRows = new HashMap<>();
      for (Row row : df.select("natural_id", "rules_id").collectAsList()) {
        sparkRows.put(row.getString(0), row.isNullAt(1) ? null : row.getString(1));
      }
      assertEquals(ours, sparkRows);
      assertEquals(1L, df.filter("rules_id IS NULL").count());
    } finally {
      spark.stop();
    }
  }
}
