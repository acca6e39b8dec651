package io.streamrecon.transforms.deltalake;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.delta.kernel.Table;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.internal.actions.AddFile;
import io.streamrecon.deltalake.DeltaLakeCommitter;
import io.streamrecon.deltalake.DeltaLakeCompaction;
import io.streamrecon.deltalake.DeltaLakeEngine;
import io.streamrecon.deltalake.DeltaLakeMaintenance;
import io.streamrecon.deltalake.DeltaLakeSnapshot;
import io.streamrecon.deltalake.DeltaLakeTables;
import io.streamrecon.deltalake.DeltaSpark;
import io.streamrecon.deltalake.TestEvents;
import io.streamrecon.deltalake.WarehouseTables;
import io.streamrecon.model.DeltaRecord;
import io.streamrecon.model.Pointer;
import io.streamrecon.model.Side;
import io.streamrecon.model.Status;
import io.streamrecon.transforms.ModelCoders.DeltaRecordCoder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.values.TimestampedValue;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.DataStreamReader;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.apache.spark.sql.streaming.Trigger;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * Downstream Spark Structured Streaming consumers of {@code deltas}, a plain Delta stream and the
 * change data feed, receive every DeltaRecord exactly once across streaming runs' commits, a {@code
 * compact} (a commit of {@code dataChange=false} actions only, invisible to both) and a {@code
 * vacuum} that deletes the compacted-away files: consumers that had read past the compaction
 * restart from their checkpoints and go on; a consumer that had not read the commits whose files
 * the vacuum deleted fails, which is why a consumer's lag must stay within the vacuum retention.
 */
public class DeltaLakeStreamingConsumersSparkTest {
  private static final String JOB = "job-orders";
  private static final String JOB_RUN = "run-20261203T060000Z-0a1b2c";
  private static final String RERUN = "run-20261203T061500Z-3d4e5f";

  /** Records per commit pane of a streaming run. */
  private static final int PANE = 5;

  private static SparkSession spark;

  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  @BeforeClass
  public static void startSpark() {
    spark = DeltaSpark.start("streaming-consumers");
  }

  @AfterClass
  public static void stopSpark() {
    if (spark != null) {
      spark.stop();
    }
  }

  @Test
  public void consumersReceiveEveryRecordOnceAcrossCommitsCompactionAndVacuum() throws Exception {
    String warehouse = tmp.newFolder("wh").getPath();
    String deltas = Paths.get(warehouse, WarehouseTables.DELTAS).toString();
    List<DeltaRecord> written = new ArrayList<>();

    // A streaming job's first start: two commit panes, two commits.
    written.addAll(streamingRun(warehouse, JOB_RUN, JOB, 0, 2));
    spark.sql(
        "ALTER TABLE delta.`" + deltas + "` SET TBLPROPERTIES (delta.enableChangeDataFeed = true)");
    long cdfEnabled = version(warehouse);

    Consumer plain = new Consumer("plain", deltas, false);
    Consumer changes = new Consumer("changes", deltas, true);
    // Two consumers that fall behind: one within the vacuum retention, one beyond it.
    Consumer slow = new Consumer("slow", deltas, false);
    Consumer stalled = new Consumer("stalled", deltas, false);
    for (Consumer c : List.of(plain, changes, slow, stalled)) {
      c.runAvailableNow();
      assertEquals(c.name, keys(written), c.keys());
    }

    // The job restarted: it keeps its run id and writer id, and commits twice more.
    written.addAll(streamingRun(warehouse, JOB_RUN, JOB, 2, 2));
    long firstUnreadBySlow = cdfEnabled + 1;
    plain.runAvailableNow();
    changes.runAvailableNow();
    assertEquals(keys(written), plain.keys());

    List<String> beforeCompaction = livePaths(warehouse);
    DeltaLakeMaintenance.CompactResult compacted =
        DeltaLakeMaintenance.compact(
            new Configuration(), warehouse, WarehouseTables.DELTAS, 1L << 27);
    long compaction = version(warehouse);
    assertEquals(beforeCompaction.size(), compacted.filesRemoved());
    assertEquals(1, compacted.filesAdded());
    assertEquals(List.of(compaction), compacted.versions());
    plain.runAvailableNow();
    changes.runAvailableNow();
    assertEquals("the compaction is no data to a consumer", keys(written), plain.keys());
    assertEquals(keys(written), changes.keys());

    // A vacuum whose retention reaches back to the oldest commit the slow consumer has not read
    // keeps every file that consumer still reads, though the compaction replaced them.
    DeltaLakeMaintenance.VacuumResult keeping =
        DeltaLakeMaintenance.vacuum(
            new Configuration(),
            warehouse,
            WarehouseTables.DELTAS,
            Duration.standardHours(1),
            new Instant(commitTimestamp(warehouse, firstUnreadBySlow) - 1)
                .plus(Duration.standardHours(1)));
    assertEquals(0, keeping.filesDeleted());
    slow.runAvailableNow();
    assertEquals(keys(written), slow.keys());

    // A re-run of another job appends the same verdicts under its own run id.
    written.addAll(streamingRun(warehouse, RERUN, "job-rerun", 0, 2));
    plain.runAvailableNow();
    changes.runAvailableNow();
    assertEquals(keys(written), plain.keys());

    // The retention's horizon after the compaction: the files it replaced go.
    DeltaLakeMaintenance.VacuumResult vacuum =
        DeltaLakeMaintenance.vacuum(
            new Configuration(),
            warehouse,
            WarehouseTables.DELTAS,
            Duration.standardHours(1),
            Instant.now().plus(Duration.standardHours(2)));
    assertEquals(beforeCompaction.size(), vacuum.filesDeleted());
    for (String path : beforeCompaction) {
      assertFalse(path + " deleted", Files.exists(Paths.get(deltas, path)));
    }

    written.addAll(streamingRun(warehouse, JOB_RUN, JOB, 4, 2));
    // Restarted from their checkpoints, they read on from where they stopped.
    for (Consumer c : List.of(plain, changes, slow)) {
      c.runAvailableNow();
    }

    Set<String> expected = keys(written);
    assertEquals(4 * 2 * PANE, expected.size());
    assertEquals(expected, plain.keys());
    assertEquals(expected, changes.keys());
    assertEquals(expected, slow.keys());
    Set<Long> versions = new TreeSet<>();
    for (Row r : changes.output()) {
      assertEquals(r.toString(), "insert", r.getAs("change_type"));
      versions.add(r.<Long>getAs("commit_version"));
    }
    // The first read is the snapshot at its start; then every append of ours, and nothing else.
    Set<Long> appends = new TreeSet<>();
    for (long v = cdfEnabled; v <= version(warehouse); v++) {
      if (v != compaction) {
        appends.add(v);
      }
    }
    assertEquals(appends, versions);

    // A consumer that had not read the commits whose files the vacuum deleted cannot go on.
    StreamingQueryException lost =
        assertThrows(StreamingQueryException.class, stalled::runAvailableNow);
    assertThat(lost.getMessage(), containsString("does not exist"));
    assertTrue(
        lost.getMessage(), beforeCompaction.stream().anyMatch(f -> lost.getMessage().contains(f)));
  }

  // ------------------------------------------------------------------ the writer side

  /**
   * A streaming run of the product's {@code deltas} writer on the DirectRunner: {@code panes} panes
   * of {@link #PANE} records each, one commit per pane (processing time moves past the commit
   * interval between them), as a Kafka-fed job commits every {@code --commitInterval}.
   */
  private static List<DeltaRecord> streamingRun(
      String warehouse, String runId, String writerId, int firstPane, int panes) {
    long before = version(warehouse);
    List<DeltaRecord> records = new ArrayList<>();
    TestStream.Builder<DeltaRecord> stream = TestStream.create(DeltaRecordCoder.of());
    for (int pane = firstPane; pane < firstPane + panes; pane++) {
      List<TimestampedValue<DeltaRecord>> values = new ArrayList<>();
      for (int i = 0; i < PANE; i++) {
        DeltaRecord r = record("order-" + pane + "-" + i, runId);
        records.add(r);
        values.add(TimestampedValue.of(r, r.detectedAt()));
      }
      stream =
          stream
              .addElements(values.get(0), values.subList(1, PANE).toArray(new TimestampedValue[0]))
              .advanceProcessingTime(Duration.standardSeconds(2));
    }
    Pipeline p = Pipeline.create(PipelineOptionsFactory.create());
    p.apply("Verdicts", stream.advanceWatermarkToInfinity())
        .apply(
            "WriteDeltas",
            DeltaLakeIO.writeDeltas()
                .withWarehouse(warehouse)
                .withRunId(runId)
                .withWriterId(writerId)
                .withCommitInterval(Duration.standardSeconds(1)));
    p.run().waitUntilFinish();
    assertEquals("one commit per pane", before + panes, version(warehouse));
    return records;
  }

  private static DeltaRecord record(String naturalId, String runId) {
    Instant at = TestEvents.T0;
    Pointer p = new Pointer(0, "f.parquet", 1, Side.SOURCE, naturalId, sha256(naturalId));
    return new DeltaRecord(
        sha256(naturalId + "/" + Status.MISSING_IN_TARGET),
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
        runId,
        null);
  }

  private static String sha256(String s) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** What makes a row of {@code deltas} unique: its verdict in its run. */
  private static Set<String> keys(List<DeltaRecord> records) {
    return records.stream()
        .map(r -> r.verdictId() + "/" + r.naturalId() + "/" + r.runId())
        .collect(Collectors.toCollection(TreeSet::new));
  }

  private static long version(String warehouse) {
    return DeltaLakeTables.tableVersion(warehouse, WarehouseTables.DELTAS);
  }

  /** When {@code version} was committed, as Kernel (and so the vacuum) reads it. */
  private static long commitTimestamp(String warehouse, long version) {
    Engine engine = DeltaLakeEngine.create(new Configuration());
    return Table.forPath(
            engine, DeltaLakeCommitter.tablePath(warehouse, WarehouseTables.DELTAS).toString())
        .getSnapshotAsOfVersion(engine, version)
        .getTimestamp(engine);
  }

  private static List<String> livePaths(String warehouse) {
    Engine engine = DeltaLakeEngine.create(new Configuration());
    org.apache.hadoop.fs.Path root =
        DeltaLakeCommitter.tablePath(warehouse, WarehouseTables.DELTAS);
    return DeltaLakeCompaction.liveFiles(
            engine, root, DeltaLakeSnapshot.kernelSnapshot(engine, root))
        .stream()
        .map(AddFile::getPath)
        .toList();
  }

  // ------------------------------------------------------------------ the consumer side

  /** Batches received, per consumer and batch id: a batch run again replaces its first run. */
  private static final Map<String, Map<Long, List<Row>>> RECEIVED = new ConcurrentHashMap<>();

  /**
   * One downstream consumer: a stream of {@code deltas} (or of its change data feed) with its own
   * checkpoint, into a sink that keeps each micro-batch by its id, as an idempotent sink does.
   * Every {@link #runAvailableNow} is a start from the checkpoint.
   */
  private final class Consumer {
    private final String name;
    private final String table;
    private final boolean changeFeed;
    private final String checkpoint;

    Consumer(String name, String table, boolean changeFeed) throws IOException {
      this.name = name;
      this.table = table;
      this.changeFeed = changeFeed;
      this.checkpoint = tmp.newFolder(name + "-checkpoint").getPath();
      RECEIVED.put(name, new ConcurrentHashMap<>());
    }

    private Dataset<Row> source() {
      DataStreamReader reader = spark.readStream().format("delta");
      if (changeFeed) {
        return reader
            .option("readChangeFeed", "true")
            .load(table)
            .selectExpr(
                "verdict_id",
                "natural_id",
                "run_id",
                "_change_type AS change_type",
                "_commit_version AS commit_version");
      }
      return reader.load(table).select("verdict_id", "natural_id", "run_id");
    }

    /** Starts from the checkpoint, reads every commit there is now, and stops. */
    void runAvailableNow() throws Exception {
      String consumer = name;
      StreamingQuery query =
          source()
              .writeStream()
              .option("checkpointLocation", checkpoint)
              .trigger(Trigger.AvailableNow())
              .foreachBatch(
                  (VoidFunction2<Dataset<Row>, Long>)
                      (batch, id) -> RECEIVED.get(consumer).put(id, batch.collectAsList()))
              .start();
      query.awaitTermination();
    }

    List<Row> output() {
      return RECEIVED.get(name).values().stream().flatMap(List::stream).toList();
    }

    /** The rows received, failing on a row received twice. */
    Set<String> keys() {
      List<String> rows =
          output().stream()
              .map(
                  r ->
                      r.getAs("verdict_id") + "/" + r.getAs("natural_id") + "/" + r.getAs("run_id"))
              .toList();
      Set<String> unique = new TreeSet<>(rows);
      assertEquals(name + " received a row twice: " + rows, unique.size(), rows.size());
      return unique;
    }
  }
}
