package io.streamrecon.transforms.deltalake;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import io.streamrecon.deltalake.DeltaLakeLookup;
import io.streamrecon.deltalake.DeltaLakeMaintenance;
import io.streamrecon.deltalake.DeltaLakeSnapshot;
import io.streamrecon.deltalake.DeltaLakeSnapshot.TableFile;
import io.streamrecon.deltalake.DeltaLakeTables;
import io.streamrecon.deltalake.DeltaSpark;
import io.streamrecon.deltalake.PayloadReader;
import io.streamrecon.deltalake.PayloadReaderTest;
import io.streamrecon.deltalake.RawEventsFixture;
import io.streamrecon.deltalake.TestEvents;
import io.streamrecon.deltalake.WarehouseTables;
import io.streamrecon.model.DeltaRecord;
import io.streamrecon.model.Difference;
import io.streamrecon.model.DifferenceKind;
import io.streamrecon.model.Event;
import io.streamrecon.model.EventRef;
import io.streamrecon.model.MetricNames;
import io.streamrecon.model.Pointer;
import io.streamrecon.model.Side;
import io.streamrecon.model.Status;
import io.streamrecon.model.StoredEvent;
import io.streamrecon.model.Verdict;
import io.streamrecon.transforms.Diff;
import io.streamrecon.transforms.ModelCoders;
import io.streamrecon.transforms.ModelCoders.EventCoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.metrics.MetricNameFilter;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.MetricsFilter;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TimestampedValue;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.SparkSession;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * Rows Spark deletes from {@code raw_events}, with deletion vectors or by rewriting files (OPTIMIZE
 * and VACUUM), as our readers see them: a deleted row is never shown, fetched or replayed, a
 * pointer to it answers deleted and its verdict is written with a payload-deleted difference;
 * pointers into rewritten files find their rows by key; compaction keeps the deletions; and Spark
 * reads everything back after we append.
 */
public class DeltaLakeDeletesSparkTest {
  private static SparkSession spark;

  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  @BeforeClass
  public static void startSpark() {
    spark = DeltaSpark.start("deletes");
  }

  @AfterClass
  public static void stopSpark() {
    if (spark != null) {
      spark.stop();
    }
  }

  private static String rawEvents(String warehouse) {
    return "delta.`" + Paths.get(warehouse, WarehouseTables.RAW_EVENTS) + "`";
  }

  private static long sparkCount(String warehouse, String table, String where) {
    return spark.read().format("delta").load(warehouse + "/" + table).where(where).count();
  }

  /** A first run: three source files and one target file, the target ids those of "a". */
  private static Map<String, EventRef> firstRun(String warehouse, List<Event> stored)
      throws Exception {
    Map<String, EventRef> refs = new HashMap<>();
    long txn = 0;
    for (List<Event> events :
        List.of(
            TestEvents.events(Side.SOURCE, "a", 10, TestEvents.T0),
            TestEvents.events(Side.SOURCE, "b", 10, TestEvents.T0),
            TestEvents.events(Side.SOURCE, "c", 10, TestEvents.T0),
            TestEvents.events(Side.TARGET, "a", 10, TestEvents.T0))) {
      stored.addAll(events);
      for (EventRef r : RawEventsFixture.commit(warehouse, "first", txn++, events)) {
        refs.put(r.side() + "/" + r.naturalId(), r);
      }
    }
    return refs;
  }

  private static byte[] payload(List<Event> events, Side side, String naturalId) {
    return events.stream()
        .filter(e -> e.side() == side && e.naturalId().equals(naturalId))
        .findFirst()
        .orElseThrow()
        .payload();
  }

  /** A later run of ours: raw events appended through DeltaLakeIO. */
  private static void appendRun(String warehouse, List<Event> events) {
    Pipeline p = Pipeline.create(PipelineOptionsFactory.create());
    p.apply(
            "Events",
            Create.timestamped(
                    events.stream().map(e -> TimestampedValue.of(e, e.eventTime())).toList())
                .withCoder(EventCoder.of()))
        .apply(
            "WriteRawEvents",
            DeltaLakeIO.writeRawEvents().withWarehouse(warehouse).withRunId("run-later"));
    p.run().waitUntilFinish();
  }

  private static Verdict mismatch(Map<String, EventRef> refs, String naturalId) {
    return Verdict.of(
        naturalId,
        Status.MISMATCH,
        refs.get("SOURCE/" + naturalId),
        refs.get("TARGET/" + naturalId),
        null);
  }

  @Test
  public void rowsSparkDeletesWithDeletionVectorsAreGoneForEveryReader() throws Exception {
    String warehouse = tmp.newFolder("wh").getPath();
    List<Event> stored = new ArrayList<>();
    Map<String, EventRef> refs = firstRun(warehouse, stored);
    String victim = "a-00003";
    String neighbour = "a-00004";

    spark.sql(
        "ALTER TABLE "
            + rawEvents(warehouse)
            + " SET TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')");
    spark.sql("DELETE FROM " + rawEvents(warehouse) + " WHERE natural_id = '" + victim + "'");
    List<TableFile> withVector =
        DeltaLakeSnapshot.latest(warehouse, WarehouseTables.RAW_EVENTS).files().stream()
            .filter(f -> f.deletionVector() != null)
            .toList();
    assertEquals("Spark deleted with a vector in each side's file", 2, withVector.size());
    assertEquals(1, withVector.get(0).deletionVector().cardinality());

    // explain's lookup and show: the deleted rows are not there, their neighbours are.
    assertEquals(List.of(), DeltaLakeLookup.findRawEvents(warehouse, victim));
    assertEquals(2, DeltaLakeLookup.findRawEvents(warehouse, neighbour).size());
    List<Map<String, Object>> rows =
        DeltaLakeTables.readRows(warehouse, WarehouseTables.RAW_EVENTS);
    assertEquals(stored.size() - 2, rows.size());
    assertFalse(rows.stream().anyMatch(r -> victim.equals(r.get("natural_id"))));

    // The payload fetch: the deleted pointers answer deleted, the neighbour's gives its payload.
    Pointer victimSource = refs.get("SOURCE/" + victim).pointer();
    Pointer victimTarget = refs.get("TARGET/" + victim).pointer();
    Pointer neighbourSource = refs.get("SOURCE/" + neighbour).pointer();
    PayloadReaderTest.Counts counts = new PayloadReaderTest.Counts();
    Map<Pointer, byte[]> payloads =
        new PayloadReader(new Configuration(), warehouse)
            .read(List.of(victimSource, victimTarget, neighbourSource), counts);
    assertEquals(Set.of(neighbourSource), payloads.keySet());
    assertArrayEquals(payload(stored, Side.SOURCE, neighbour), payloads.get(neighbourSource));
    assertEquals(Set.of(victimSource, victimTarget), Set.copyOf(counts.deleted));

    // A run that needs the deleted payloads writes the verdict, saying they were deleted.
    Pipeline run = Pipeline.create(PipelineOptionsFactory.create());
    run.apply(
            "Verdicts",
            Create.of(mismatch(refs, victim), mismatch(refs, neighbour))
                .withCoder(ModelCoders.VerdictCoder.of()))
        .apply("FetchPayloads", DeltaLakeIO.fetchPayloads().withWarehouse(warehouse))
        .apply("Diff", Diff.create().withRunId("run-after-delete"))
        .apply(
            "WriteDeltas",
            DeltaLakeIO.writeDeltas().withWarehouse(warehouse).withRunId("run-after-delete"));
    PipelineResult result = run.run();
    result.waitUntilFinish();
    Map<String, DeltaRecord> written =
        DeltaLakeTables.readDeltas(warehouse).stream()
            .collect(Collectors.toMap(DeltaRecord::naturalId, d -> d));
    assertEquals(Set.of(victim, neighbour), written.keySet());
    assertEquals(Status.MISMATCH, written.get(victim).status());
    assertEquals(
        List.of(
            new Difference("", DifferenceKind.SOURCE_PAYLOAD_DELETED, null, null),
            new Difference("", DifferenceKind.TARGET_PAYLOAD_DELETED, null, null)),
        written.get(victim).differences());
    assertEquals(victimSource, written.get(victim).sourcePointer());
    assertTrue(
        written.get(neighbour).differences().stream()
            .allMatch(d -> d.kind() == DifferenceKind.CHANGED));
    assertEquals(2, counter(result, MetricNames.PAYLOADS_DELETED));

    // Replay reads only the rows still there.
    Pipeline replay = Pipeline.create(PipelineOptionsFactory.create());
    PCollection<String> replayed =
        replay
            .apply(
                "Read",
                DeltaLakeIO.readRawEvents()
                    .withWarehouse(warehouse)
                    .withNaturalIds(List.of(victim, neighbour)))
            .apply(
                "Describe",
                MapElements.into(TypeDescriptors.strings())
                    .via((StoredEvent e) -> e.ref().side() + "/" + e.ref().naturalId()));
    PAssert.that(replayed).containsInAnyOrder("SOURCE/" + neighbour, "TARGET/" + neighbour);
    replay.run().waitUntilFinish();

    // Compaction rewrites the small files without a vector and keeps the deletion.
    DeltaLakeMaintenance.CompactResult compacted =
        DeltaLakeMaintenance.compact(
            new Configuration(),
            warehouse,
            WarehouseTables.RAW_EVENTS,
            DeltaLakeMaintenance.DEFAULT_TARGET_FILE_SIZE);
    assertEquals("the b and c files", 2, compacted.filesRemoved());
    assertEquals(
        withVector.stream().map(TableFile::path).collect(Collectors.toSet()),
        DeltaLakeSnapshot.latest(warehouse, WarehouseTables.RAW_EVENTS).files().stream()
            .filter(f -> f.deletionVector() != null)
            .map(TableFile::path)
            .collect(Collectors.toSet()));
    assertEquals(List.of(), DeltaLakeLookup.findRawEvents(warehouse, victim));
    assertEquals(stored.size() - 2, sparkCount(warehouse, WarehouseTables.RAW_EVENTS, "true"));

    // We append; Spark reads every row back, the deleted ones still deleted.
    appendRun(warehouse, TestEvents.events(Side.SOURCE, "next", 5, TestEvents.T0));
    assertEquals(stored.size() - 2 + 5, sparkCount(warehouse, WarehouseTables.RAW_EVENTS, "true"));
    assertEquals(
        0, sparkCount(warehouse, WarehouseTables.RAW_EVENTS, "natural_id = '" + victim + "'"));
    assertEquals(
        Set.of(victim, neighbour),
        spark
            .read()
            .format("delta")
            .load(warehouse + "/" + WarehouseTables.DELTAS)
            .where("run_id = 'run-after-delete'")
            .select("natural_id")
            .collectAsList()
            .stream()
            .map(r -> r.getString(0))
            .collect(Collectors.toCollection(TreeSet::new)));
    assertEquals(
        Set.of("SOURCE_PAYLOAD_DELETED", "TARGET_PAYLOAD_DELETED"),
        spark
            .read()
            .format("delta")
            .load(warehouse + "/" + WarehouseTables.DELTAS)
            .where("natural_id = '" + victim + "'")
            .selectExpr("explode(differences) AS d")
            .selectExpr("d.kind")
            .collectAsList()
            .stream()
            .map(r -> r.getString(0))
            .collect(Collectors.toSet()));
  }

  @Test
  public void afterOptimizeZorderAndVacuumPointersFindTheirRowsByKey() throws Exception {
    String warehouse = tmp.newFolder("wh").getPath();
    List<Event> stored = new ArrayList<>();
    Map<String, EventRef> refs = firstRun(warehouse, stored);
    List<Pointer> pointers = new ArrayList<>();
    for (String key :
        List.of("SOURCE/a-00001", "TARGET/a-00001", "SOURCE/b-00002", "SOURCE/c-00009")) {
      pointers.add(refs.get(key).pointer());
    }

    spark.sql("OPTIMIZE " + rawEvents(warehouse) + " ZORDER BY (natural_id)");
    spark.conf().set("spark.databricks.delta.retentionDurationCheck.enabled", "false");
    try {
      spark.sql("VACUUM " + rawEvents(warehouse) + " RETAIN 0 HOURS");
    } finally {
      spark.conf().unset("spark.databricks.delta.retentionDurationCheck.enabled");
    }
    for (Pointer p : pointers) {
      assertFalse(
          p.dataFile() + " vacuumed",
          Files.exists(Paths.get(warehouse, WarehouseTables.RAW_EVENTS, p.dataFile())));
    }
    appendRun(warehouse, TestEvents.events(Side.SOURCE, "d", 5, TestEvents.T0));

    PayloadReaderTest.Counts counts = new PayloadReaderTest.Counts();
    Map<Pointer, byte[]> payloads =
        new PayloadReader(new Configuration(), warehouse).read(pointers, counts);
    assertEquals(List.of(), counts.deleted);
    assertEquals(pointers.size(), counts.fallbacks);
    for (Pointer p : pointers) {
      assertArrayEquals(p.describe(), payload(stored, p.side(), p.naturalId()), payloads.get(p));
    }
    List<Map<String, Object>> explained = DeltaLakeLookup.findRawEvents(warehouse, "a-00001");
    assertEquals(2, explained.size());
    for (Map<String, Object> row : explained) {
      assertEquals(
          new String(
              payload(stored, Side.valueOf((String) row.get("side")), "a-00001"),
              StandardCharsets.UTF_8),
          row.get("payload"));
    }
    assertEquals(stored.size() + 5, sparkCount(warehouse, WarehouseTables.RAW_EVENTS, "true"));
  }

  private static long counter(PipelineResult result, String name) {
    long n = 0;
    for (MetricResult<Long> c :
        result
            .metrics()
            .queryMetrics(
                MetricsFilter.builder()
                    .addNameFilter(MetricNameFilter.named(MetricNames.NAMESPACE, name))
                    .build())
            .getCounters()) {
      n += c.getAttempted();
    }
    return n;
  }
}
