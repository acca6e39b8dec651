package io.streamrecon.transforms.deltalake;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.lessThan;
import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;

import io.streamrecon.deltalake.DeltaLakeTables;
import io.streamrecon.deltalake.PayloadReader;
import io.streamrecon.deltalake.PayloadReaderTest;
import io.streamrecon.deltalake.RawEventsFixture;
import io.streamrecon.deltalake.TableLayouts;
import io.streamrecon.deltalake.TestEvents;
import io.streamrecon.deltalake.WarehouseTables;
import io.streamrecon.model.DeadLetter;
import io.streamrecon.model.DeltaRecord;
import io.streamrecon.model.Difference;
import io.streamrecon.model.DifferenceKind;
import io.streamrecon.model.Event;
import io.streamrecon.model.EventRef;
import io.streamrecon.model.LateEvent;
import io.streamrecon.model.Origin;
import io.streamrecon.model.Pointer;
import io.streamrecon.model.Side;
import io.streamrecon.model.Status;
import io.streamrecon.transforms.ModelCoders.DeadLetterCoder;
import io.streamrecon.transforms.ModelCoders.DeltaRecordCoder;
import io.streamrecon.transforms.ModelCoders.EventCoder;
import io.streamrecon.transforms.ModelCoders.LateEventCoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.values.TimestampedValue;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.FileSourceScanExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.joda.time.Duration;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * Proof that Apache Spark with delta-spark reads every table exactly as written: schemas, row
 * counts, sampled values, the commit history, and data skipping on our per-file stats. One Spark
 * session for the whole class (slow to start).
 */
public class DeltaLakeSparkReadTest {
  @ClassRule public static final TemporaryFolder TMP = new TemporaryFolder();

  private static SparkSession spark;
  private static String warehouse;
  private static final List<Event> EVENTS = new ArrayList<>();
  private static int rawEventCommits;
  private static DeltaRecord mismatch;
  private static DeltaRecord missing;
  private static DeadLetter binaryLetter;
  private static LateEvent lateEvent;

  @BeforeClass
  public static void writeTablesAndStartSpark() throws Exception {
    warehouse = TMP.getRoot().getPath();
    List<Event> piped = new ArrayList<>(TestEvents.events(Side.SOURCE, "p", 20, TestEvents.T0));
    piped.addAll(
        TestEvents.events(Side.TARGET, "p", 20, TestEvents.T0.plus(Duration.standardDays(1))));
    EVENTS.addAll(piped);

    Pointer sp =
        new Pointer(
            0,
            "side=SOURCE/event_date=2024-03-01/part-00000000-0000-0000-0000-000000000001.snappy.parquet",
            3,
            Side.SOURCE,
            "p-00003",
            "a".repeat(64));
    Pointer tp =
        new Pointer(
            0,
            "side=TARGET/event_date=2024-03-02/part-00000000-0000-0000-0000-000000000002.snappy.parquet",
            4,
            Side.TARGET,
            "p-00003",
            "b".repeat(64));
    mismatch =
        new DeltaRecord(
            "c".repeat(64),
            null,
            "p-00003",
            Status.MISMATCH,
            List.of(
                new Difference("/n", DifferenceKind.CHANGED, "3", "4"),
                new Difference("/extra", DifferenceKind.ONLY_IN_TARGET, null, "{\"x\":[1,2]}")),
            sp.sha256(),
            tp.sha256(),
            TestEvents.T0,
            TestEvents.T0.plus(5),
            sp,
            tp,
            TestEvents.T0.plus(Duration.standardMinutes(1)),
            "run-spark");
    Pointer only = new Pointer(0, sp.dataFile(), 9, Side.SOURCE, "p-00009", "e".repeat(64));
    missing =
        new DeltaRecord(
            "f".repeat(64),
            null,
            "p-00009",
            Status.MISSING_IN_TARGET,
            List.of(),
            only.sha256(),
            null,
            TestEvents.T0,
            null,
            only,
            null,
            TestEvents.T0.plus(Duration.standardMinutes(11)),
            "run-spark");
    DeadLetter textLetter =
        new DeadLetter(
            Side.SOURCE,
            "{oops".getBytes(StandardCharsets.UTF_8),
            "Unexpected end-of-input",
            "ParseEvents",
            Origin.fileLine("source.jsonl", 17),
            TestEvents.T0);
    binaryLetter =
        new DeadLetter(
            Side.TARGET,
            new byte[] {(byte) 0xc3, 0x28, 0x7b},
            "Invalid UTF-8",
            "ParseEvents",
            Origin.kafka("target", 2, 99),
            TestEvents.T0.plus(1));
    lateEvent =
        new LateEvent(
            new EventRef(Side.TARGET, "p-00001", TestEvents.T0.minus(600_000), tp.sha256(), tp),
            TestEvents.T0);

    Pipeline pipeline = Pipeline.create(PipelineOptionsFactory.create());
    pipeline
        .apply(
            "Events",
            Create.timestamped(
                    piped.stream().map(e -> TimestampedValue.of(e, e.eventTime())).toList())
                .withCoder(EventCoder.of()))
        .apply(
            "WriteRawEvents",
            DeltaLakeIO.writeRawEvents().withWarehouse(warehouse).withRunId("run-spark"));
    pipeline
        .apply("Deltas", Create.of(mismatch, missing).withCoder(DeltaRecordCoder.of()))
        .apply(
            "WriteDeltas",
            DeltaLakeIO.writeDeltas().withWarehouse(warehouse).withRunId("run-spark"));
    pipeline
        .apply("DeadLetters", Create.of(textLetter, binaryLetter).withCoder(DeadLetterCoder.of()))
        .apply(
            "WriteDeadLetters",
            DeltaLakeIO.writeDeadLetters().withWarehouse(warehouse).withRunId("run-spark"));
    pipeline
        .apply("LateEvents", Create.of(lateEvent).withCoder(LateEventCoder.of()))
        .apply(
            "WriteLateEvents",
            DeltaLakeIO.writeLateEvents().withWarehouse(warehouse).withRunId("run-spark"));
    pipeline.run().waitUntilFinish();
    rawEventCommits = 1;

    // Three more commits with disjoint natural id ranges, so stats can exclude files.
    for (String prefix : List.of("q", "r", "s")) {
      List<Event> batch = TestEvents.events(Side.SOURCE, prefix, 15, TestEvents.T0);
      RawEventsFixture.commit(warehouse, "spark-test", rawEventCommits, batch);
      EVENTS.addAll(batch);
      rawEventCommits++;
    }

    spark =
        SparkSession.builder()
            .master("local[2]")
            .appName("streamrecon-delta-read")
            .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
            .config(
                "spark.sql.catalog.spark_catalog",
                "org.apache.spark.sql.delta.catalog.DeltaCatalog")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "2")
            // Delta rebuilds table state with 50 tasks by default; these tables are tiny.
            .config("spark.databricks.delta.snapshotPartitions", "2")
            // VACUUM lists files in this many tasks (default 10,000: minutes on 2 cores).
            .config("spark.sql.sources.parallelPartitionDiscovery.parallelism", "2")
            .config("spark.sql.adaptive.enabled", "false")
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            // Lets the test VACUUM with zero retention.
            .config("spark.databricks.delta.retentionDurationCheck.enabled", "false")
            .getOrCreate();
  }

  @AfterClass
  public static void stopSpark() {
    if (spark != null) {
      spark.stop();
    }
  }

  private static Dataset<Row> table(String name) {
    return spark.read().format("delta").load(warehouse + "/" + name);
  }

  private static String schemaOf(String name) {
    return table(name).schema().simpleString();
  }

  @Test
  public void rawEventsReadBackWithSchemaCountsAndValues() {
    assertEquals(
        "struct<side:string,natural_id:string,event_time:timestamp,event_date:date,sha256:string,"
            + "payload:string,origin_stream:string,origin_partition:int,origin_offset:bigint,"
            + "ingest_time:timestamp,run_id:string>",
        schemaOf(WarehouseTables.RAW_EVENTS));
    assertEquals(EVENTS.size(), table(WarehouseTables.RAW_EVENTS).count());
    assertEquals(
        20,
        table(WarehouseTables.RAW_EVENTS)
            .where("side = 'TARGET' AND event_date = '2024-03-02'")
            .count());

    for (Event e : List.of(EVENTS.get(3), EVENTS.get(27), EVENTS.get(EVENTS.size() - 1))) {
      List<Row> rows =
          table(WarehouseTables.RAW_EVENTS)
              .where("natural_id = '" + e.naturalId() + "' AND side = '" + e.side() + "'")
              .select(
                  "sha256", "payload", "event_time", "event_date", "origin_stream", "origin_offset")
              .collectAsList();
      assertEquals(e.naturalId(), 1, rows.size());
      Row r = rows.get(0);
      assertEquals(e.sha256(), r.getString(0));
      assertEquals(new String(e.payload(), StandardCharsets.UTF_8), r.getString(1));
      assertEquals(e.eventTime().getMillis(), r.getTimestamp(2).getTime());
      assertEquals(TableLayouts.utcDate(e.eventTime()).toString(), r.getDate(3).toString());
      assertEquals(e.origin().stream(), r.getString(4));
      assertEquals(e.origin().offset(), r.getLong(5));
    }
  }

  @Test
  public void deltasReadBackWithDifferencesAndPointers() {
    assertEquals(
        "struct<verdict_id:string,supersedes:string,natural_id:string,status:string,"
            + "differences:array<struct<path:string,kind:string,source:string,target:string>>,"
            + "source_hash:string,target_hash:string,source_event_time:timestamp,target_event_time:timestamp,"
            + "source_pointer:struct<table_version:bigint,data_file:string,row_index:bigint>,"
            + "target_pointer:struct<table_version:bigint,data_file:string,row_index:bigint>,"
            + "detected_at:timestamp,run_id:string,rules_id:string>",
        schemaOf(WarehouseTables.DELTAS));
    assertEquals(2, table(WarehouseTables.DELTAS).count());
    Row r =
        table(WarehouseTables.DELTAS)
            .where("status = 'MISMATCH'")
            .selectExpr(
                "natural_id",
                "size(differences)",
                "differences[1].path",
                "differences[1].source",
                "differences[1].target",
                "source_pointer.row_index",
                "target_pointer.data_file",
                "supersedes",
                "target_event_time")
            .collectAsList()
            .get(0);
    assertEquals("p-00003", r.getString(0));
    assertEquals(2, r.getInt(1));
    assertEquals("/extra", r.getString(2));
    assertEquals(null, r.get(3));
    assertEquals("{\"x\":[1,2]}", r.getString(4));
    assertEquals(3L, r.getLong(5));
    assertEquals(mismatch.targetPointer().dataFile(), r.getString(6));
    assertEquals(null, r.get(7));
    assertEquals(mismatch.targetEventTime().getMillis(), r.getTimestamp(8).getTime());
    Row m =
        table(WarehouseTables.DELTAS)
            .where("status = 'MISSING_IN_TARGET'")
            .selectExpr("size(differences)", "target_pointer IS NULL", "target_hash IS NULL")
            .collectAsList()
            .get(0);
    assertEquals(0, m.getInt(0));
    assertEquals(true, m.getBoolean(1));
    assertEquals(true, m.getBoolean(2));
  }

  @Test
  public void deadLettersAndLateEventsReadBack() {
    assertEquals(
        "struct<side:string,raw:string,raw_encoding:string,error:string,stage:string,"
            + "origin_stream:string,origin_partition:int,origin_offset:bigint,failed_at:timestamp,run_id:string>",
        schemaOf(WarehouseTables.DEAD_LETTERS));
    assertEquals(2, table(WarehouseTables.DEAD_LETTERS).count());
    Row text =
        table(WarehouseTables.DEAD_LETTERS)
            .where("raw_encoding = 'utf-8'")
            .select("raw", "origin_partition", "origin_offset", "error")
            .collectAsList()
            .get(0);
    assertEquals("{oops", text.getString(0));
    assertEquals(null, text.get(1));
    assertEquals(17L, text.getLong(2));
    Row binary =
        table(WarehouseTables.DEAD_LETTERS)
            .where("raw_encoding = 'base64'")
            .selectExpr("unbase64(raw)", "origin_partition")
            .collectAsList()
            .get(0);
    assertArrayEquals(binaryLetter.raw(), (byte[]) binary.get(0));
    assertEquals(2, binary.getInt(1));

    assertEquals(
        "struct<side:string,natural_id:string,event_time:timestamp,sha256:string,"
            + "pointer:struct<table_version:bigint,data_file:string,row_index:bigint>,"
            + "watermark:timestamp,run_id:string>",
        schemaOf(WarehouseTables.LATE_EVENTS));
    Row late =
        table(WarehouseTables.LATE_EVENTS)
            .selectExpr("natural_id", "pointer.row_index", "watermark", "event_time")
            .collectAsList()
            .get(0);
    assertEquals("p-00001", late.getString(0));
    assertEquals(4L, late.getLong(1));
    assertEquals(lateEvent.watermark().getMillis(), late.getTimestamp(2).getTime());
    assertEquals(lateEvent.event().eventTime().getMillis(), late.getTimestamp(3).getTime());
  }

  @Test
  public void historyListsOurCommits() {
    List<Row> history =
        spark
            .sql("DESCRIBE HISTORY delta.`" + warehouse + "/raw_events`")
            .select("version", "operation", "operationParameters", "userMetadata", "engineInfo")
            .collectAsList();
    assertEquals(rawEventCommits, history.size());
    for (Row h : history) {
      // Kernel's commit info: the operation and engine, no parameters or user metadata of ours;
      // the first commit created the table and names the partition columns.
      if (h.getLong(0) == 0) {
        assertEquals("CREATE TABLE", h.getString(1));
        assertEquals("[\"side\",\"event_date\"]", h.getJavaMap(2).get("partitionBy"));
      } else {
        assertEquals("WRITE", h.getString(1));
      }
      assertThat(h.getString(4), containsString("/streamrecon"));
    }
    for (String t :
        List.of(
            WarehouseTables.DELTAS, WarehouseTables.DEAD_LETTERS, WarehouseTables.LATE_EVENTS)) {
      assertEquals(t, 1, spark.sql("DESCRIBE HISTORY delta.`" + warehouse + "/" + t + "`").count());
    }
  }

  @Test
  public void filterOnNaturalIdSkipsFilesByStats() {
    Dataset<Row> all = table(WarehouseTables.RAW_EVENTS);
    int totalFiles = all.inputFiles().length;
    assertThat(totalFiles, greaterThan(3));

    Dataset<Row> one = all.where("natural_id = 'r-00007'");
    assertEquals(1, one.collectAsList().size());
    long filesRead = scannedFiles(one);
    assertEquals("only the r- file can hold r-00007", 1, filesRead);
    assertThat(filesRead, lessThan((long) totalFiles));
  }

  @Test
  public void pointersSurviveSparkOptimizeAndVacuum() throws Exception {
    String compacted = TMP.newFolder("compacted").getPath();
    List<EventRef> refs = new ArrayList<>();
    List<Event> events = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      List<Event> batch = TestEvents.events(Side.SOURCE, "o" + i, 10, TestEvents.T0);
      events.addAll(batch);
      refs.addAll(RawEventsFixture.commit(compacted, "optimize-test", i, batch));
    }
    String table = compacted + "/" + WarehouseTables.RAW_EVENTS;
    spark.sql("OPTIMIZE delta.`" + table + "`").collectAsList();
    spark.sql("VACUUM delta.`" + table + "` RETAIN 0 HOURS").collectAsList();
    assertEquals(
        "OPTIMIZE merged the three files",
        1,
        table(compacted, WarehouseTables.RAW_EVENTS).inputFiles().length);
    List<Pointer> stale =
        List.of(refs.get(2).pointer(), refs.get(15).pointer(), refs.get(29).pointer());
    for (Pointer p : stale) {
      assertEquals(p.describe(), false, new java.io.File(table + "/" + p.dataFile()).exists());
    }

    PayloadReaderTest.Counts counts = new PayloadReaderTest.Counts();
    Map<Pointer, byte[]> payloads =
        new PayloadReader(new org.apache.hadoop.conf.Configuration(), compacted)
            .read(stale, counts);
    assertEquals(3, counts.fallbacks);
    assertEquals("one open of the merged file", 1, counts.opens);
    for (Pointer p : stale) {
      Event e =
          events.stream()
              .filter(x -> x.naturalId().equals(p.naturalId()))
              .findFirst()
              .orElseThrow();
      assertArrayEquals(e.payload(), payloads.get(p));
    }

    // Our plain reader reads the file Spark wrote, too.
    List<Map<String, Object>> rows = DeltaLakeTables.findRawEvents(compacted, "o1-00004");
    assertEquals(1, rows.size());
    Event e = events.get(14);
    assertEquals(e.eventTime(), rows.get(0).get("event_time"));
    assertEquals(new String(e.payload(), StandardCharsets.UTF_8), rows.get(0).get("payload"));
    assertEquals(30, DeltaLakeTables.readRows(compacted, WarehouseTables.RAW_EVENTS).size());
  }

  private static Dataset<Row> table(String warehouseRoot, String name) {
    return spark.read().format("delta").load(warehouseRoot + "/" + name);
  }

  /** The "number of files read" metric of the executed scan. */
  private static long scannedFiles(Dataset<Row> executed) {
    SparkPlan plan = executed.queryExecution().executedPlan();
    List<Long> counts = new ArrayList<>();
    scala.collection.Iterator<SparkPlan> leaves = plan.collectLeaves().iterator();
    while (leaves.hasNext()) {
      SparkPlan leaf = leaves.next();
      if (leaf instanceof FileSourceScanExec scan) {
        counts.add((Long) scan.metrics().apply("numFiles").value());
      }
    }
    assertEquals(plan.toString(), 1, counts.size());
    return counts.get(0);
  }
}
