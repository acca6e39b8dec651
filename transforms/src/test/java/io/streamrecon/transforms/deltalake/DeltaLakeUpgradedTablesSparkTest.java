package io.streamrecon.transforms.deltalake;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.delta.kernel.Snapshot;
import io.delta.kernel.engine.Engine;
import io.streamrecon.deltalake.DataFile;
import io.streamrecon.deltalake.DeltaLakeCommitter;
import io.streamrecon.deltalake.DeltaLakeEngine;
import io.streamrecon.deltalake.DeltaLakeLookup;
import io.streamrecon.deltalake.DeltaLakeSnapshot;
import io.streamrecon.deltalake.DeltaLakeTables;
import io.streamrecon.deltalake.DeltaSpark;
import io.streamrecon.deltalake.RawEventsFixture;
import io.streamrecon.deltalake.ReleaseWarehouseTest;
import io.streamrecon.deltalake.TableLayouts;
import io.streamrecon.deltalake.TestEvents;
import io.streamrecon.deltalake.WarehouseTables;
import io.streamrecon.model.DeltaRecord;
import io.streamrecon.model.Event;
import io.streamrecon.model.Pointer;
import io.streamrecon.model.Side;
import io.streamrecon.model.Status;
import io.streamrecon.transforms.ModelCoders.DeltaRecordCoder;
import io.streamrecon.transforms.ModelCoders.EventCoder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.values.TimestampedValue;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.SparkSession;
import org.joda.time.Instant;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * Tables of the release warehouse that Spark upgraded (change data feed on {@code deltas}, protocol
 * (1,7) with the changeDataFeed feature, (1,4) from older Spark; deletion vectors on {@code
 * raw_events}, protocol (3,7)) are appended to by the next run and read back by Spark; a table
 * feature Kernel or our writer cannot write (a CHECK constraint, column mapping) stops a run while
 * its pipeline is built, before any data file or commit. Checkpoints, written by our own Parquet
 * handler, are read by Spark and by Kernel.
 */
public class DeltaLakeUpgradedTablesSparkTest {
  private static SparkSession spark;

  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  @BeforeClass
  public static void startSpark() {
    spark = DeltaSpark.start("upgraded-tables");
  }

  @AfterClass
  public static void stopSpark() {
    if (spark != null) {
      spark.stop();
    }
  }

  private static Snapshot snapshot(String warehouse, String name) {
    Engine engine = DeltaLakeEngine.create(new Configuration());
    return DeltaLakeSnapshot.kernelSnapshot(engine, DeltaLakeCommitter.tablePath(warehouse, name));
  }

  private static DeltaRecord record(String naturalId, Instant at) {
    Pointer p = new Pointer(0, "f.parquet", 1, Side.SOURCE, naturalId, "a".repeat(64));
    return new DeltaRecord(
        Integer.toHexString(naturalId.hashCode()).repeat(16).substring(0, 64),
        null,
        naturalId,
        Status.MISSING_IN_TARGET,
        List.of(),
        p.sha256(),
        null,
        at,
        null,
        p,
        null,
        at,
        "run-next",
        null);
  }

  /** The next run's writes: raw events and one verdict, through DeltaLakeIO. */
  private static void nextRun(String warehouse, List<Event> events, DeltaRecord verdict) {
    Pipeline p = Pipeline.create(PipelineOptionsFactory.create());
    p.apply(
            "Events",
            Create.timestamped(
                    events.stream().map(e -> TimestampedValue.of(e, e.eventTime())).toList())
                .withCoder(EventCoder.of()))
        .apply(
            "WriteRawEvents",
            DeltaLakeIO.writeRawEvents().withWarehouse(warehouse).withRunId("run-next"));
    p.apply("Deltas", Create.of(verdict).withCoder(DeltaRecordCoder.of()))
        .apply(
            "WriteDeltas",
            DeltaLakeIO.writeDeltas().withWarehouse(warehouse).withRunId("run-next"));
    p.run().waitUntilFinish();
  }

  @Test
  public void tablesSparkUpgradedAreAppendedToAndReadBackBySpark() throws Exception {
    String warehouse = ReleaseWarehouseTest.copy(tmp.newFolder("wh").toPath());
    spark.sql(
        "ALTER TABLE "
            + DeltaSpark.table(warehouse, WarehouseTables.DELTAS)
            + " SET TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true')");
    spark.sql(
        "ALTER TABLE "
            + DeltaSpark.table(warehouse, WarehouseTables.RAW_EVENTS)
            + " SET TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')");
    Snapshot deltas = snapshot(warehouse, WarehouseTables.DELTAS);
    // delta-spark 3.3 writes (1,7) with the changeDataFeed writer feature; older Spark (1,4).
    assertTrue(
        deltas.getProtocol().toString(),
        deltas.getProtocol().getMinWriterVersion() == 4
            || deltas.getProtocol().getWriterFeatures().contains("changeDataFeed"));
    Snapshot raw = snapshot(warehouse, WarehouseTables.RAW_EVENTS);
    assertEquals(3, raw.getProtocol().getMinReaderVersion());
    assertEquals(7, raw.getProtocol().getMinWriterVersion());
    assertThat(raw.getProtocol().getReaderFeatures().toString(), containsString("deletionVectors"));

    List<Event> events = TestEvents.events(Side.SOURCE, "next", 20, TestEvents.T0);
    nextRun(warehouse, events, record("next-1", TestEvents.T0));

    assertEquals(
        187 + 20,
        spark.read().format("delta").load(warehouse + "/" + WarehouseTables.RAW_EVENTS).count());
    assertEquals(
        20,
        spark
            .read()
            .format("delta")
            .load(warehouse + "/" + WarehouseTables.RAW_EVENTS)
            .where("natural_id LIKE 'next%'")
            .count());
    Set<String> ids = ReleaseWarehouseTest.expectedVerdictIds();
    ids.add(record("next-1", TestEvents.T0).verdictId());
    assertEquals(
        ids,
        spark
            .read()
            .format("delta")
            .load(warehouse + "/" + WarehouseTables.DELTAS)
            .select("verdict_id")
            .collectAsList()
            .stream()
            .map(r -> r.getString(0))
            .collect(Collectors.toCollection(TreeSet::new)));
    // The change data feed from the version after the upgrade holds exactly our new verdict.
    List<String> changes =
        spark
            .read()
            .format("delta")
            .option("readChangeFeed", "true")
            .option("startingVersion", deltas.getVersion() + 1)
            .load(warehouse + "/" + WarehouseTables.DELTAS)
            .select("natural_id", "_change_type")
            .collectAsList()
            .stream()
            .map(r -> r.getString(0) + "/" + r.getString(1))
            .toList();
    assertEquals(List.of("next-1/insert"), changes);
    // Our own readers read the upgraded tables too.
    assertEquals(46, DeltaLakeTables.readDeltas(warehouse).size());
    assertEquals(1, DeltaLakeLookup.findRawEvents(warehouse, events.get(0).naturalId()).size());
  }

  @Test
  public void aFeatureKernelCannotWriteStopsTheRunBeforeAnythingIsWritten() throws Exception {
    String warehouse = ReleaseWarehouseTest.copy(tmp.newFolder("wh").toPath());
    spark.sql(
        "ALTER TABLE "
            + DeltaSpark.table(warehouse, WarehouseTables.RAW_EVENTS)
            + " ADD CONSTRAINT id_present CHECK (natural_id IS NOT NULL)");
    Set<String> before = listing(warehouse);

    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                nextRun(
                    warehouse,
                    TestEvents.events(Side.SOURCE, "next", 5, TestEvents.T0),
                    record("next-1", TestEvents.T0)));
    assertThat(e.getMessage(), containsString("raw_events"));
    assertThat(e.getMessage(), containsString("checkConstraints"));
    assertEquals("one line", -1, e.getMessage().indexOf('\n'));
    assertEquals("nothing written", before, listing(warehouse));

    // A committer reaching the table anyway (the table changed while a run was going) refuses
    // its commit the same way and leaves the log as it was.
    List<DataFile> files =
        RawEventsFixture.writeFiles(
            warehouse, TestEvents.events(Side.SOURCE, "late", 3, TestEvents.T0));
    IllegalStateException refused =
        assertThrows(
            IllegalStateException.class,
            () ->
                new DeltaLakeCommitter(new Configuration(), warehouse, TableLayouts.RAW_EVENTS)
                    .commit("app", 0, files));
    assertThat(refused.getMessage(), containsString("checkConstraints"));
    assertEquals(
        187,
        spark.read().format("delta").load(warehouse + "/" + WarehouseTables.RAW_EVENTS).count());
    assertEquals(
        before.stream().filter(f -> f.contains("_delta_log")).toList(),
        listing(warehouse).stream().filter(f -> f.contains("_delta_log")).toList());
  }

  /** Kernel writes column mapping tables, but our writer writes logical names: refused too. */
  @Test
  public void columnMappingIsRefusedAsOurWriterWritesLogicalNames() throws Exception {
    String warehouse = ReleaseWarehouseTest.copy(tmp.newFolder("wh").toPath());
    spark.sql(
        "ALTER TABLE "
            + DeltaSpark.table(warehouse, WarehouseTables.DELTAS)
            + " SET TBLPROPERTIES ('delta.columnMapping.mode' = 'name',"
            + " 'delta.minReaderVersion' = '2', 'delta.minWriterVersion' = '5')");
    Set<String> before = listing(warehouse);
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                nextRun(
                    warehouse,
                    TestEvents.events(Side.SOURCE, "next", 5, TestEvents.T0),
                    record("next-1", TestEvents.T0)));
    assertThat(e.getMessage(), containsString("deltas"));
    assertThat(e.getMessage(), containsString("columnMapping"));
    assertEquals("nothing written", before, listing(warehouse));
    // Reading still works.
    assertEquals(45, DeltaLakeTables.readDeltas(warehouse).size());
  }

  /** The checkpoint Kernel asks for after ten commits is written by our Parquet handler. */
  @Test
  public void sparkAndKernelReadTheCheckpointsWeWrite() throws Exception {
    String warehouse = tmp.newFolder("fresh").getPath();
    for (int c = 0; c < 12; c++) {
      RawEventsFixture.commit(
          warehouse, "app", c, TestEvents.events(Side.SOURCE, "c" + c, 3, TestEvents.T0));
    }
    Path checkpoint =
        Paths.get(
            warehouse,
            WarehouseTables.RAW_EVENTS,
            "_delta_log",
            "00000000000000000010.checkpoint.parquet");
    assertTrue(checkpoint + " written", Files.isRegularFile(checkpoint));
    assertEquals(
        36,
        spark.read().format("delta").load(warehouse + "/" + WarehouseTables.RAW_EVENTS).count());
    // Kernel starts from the checkpoint: delete the commits it covers and read again.
    for (int v = 0; v < 10; v++) {
      String commit = String.format("%020d.json", v);
      Files.delete(Paths.get(warehouse, WarehouseTables.RAW_EVENTS, "_delta_log", commit));
    }
    assertEquals(36, DeltaLakeTables.readRows(warehouse, WarehouseTables.RAW_EVENTS).size());
    assertEquals(1, DeltaLakeLookup.findRawEvents(warehouse, "c3-00001").size());
  }

  private static Set<String> listing(String warehouse) throws IOException {
    try (Stream<Path> files = Files.walk(Paths.get(warehouse))) {
      return files
          .filter(Files::isRegularFile)
          .map(Path::toString)
          .collect(Collectors.toCollection(TreeSet::new));
    }
  }
}
