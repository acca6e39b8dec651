package io.streamrecon.bench;

import static org.apache.spark.sql.functions.lit;

import io.streamrecon.json.EventParser;
import io.streamrecon.json.ParseConfig;
import io.streamrecon.model.Status;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StateOperatorProgress;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryProgress;
import org.apache.spark.util.LongAccumulator;

/**
 * Contender 4, the peer: streamrecon's design written natively in Spark Structured Streaming, as a
 * Spark user would. Two file streams (one file per side per micro-batch), parsed with the same
 * {@link EventParser}; a watermark; {@code flatMapGroupsWithState} with an event-time timeout per
 * natural id keeping metadata only; each micro-batch, in {@code foreachBatch}: the raw events are
 * appended to a Delta table with delta-spark, then the payloads of the batch's MISMATCH verdicts
 * are fetched back from that table (one broadcast join per micro-batch, pruned to the event dates
 * and, by the files' eventTime stats, to the batch's time range), diffed, and the verdicts appended
 * to a deltas table. Parse and pairing are {@link PeerSteps}, the micro-batch writer {@link
 * PeerBatchWriter} (its deltas layout {@code PEER}), shared with the Kafka peer {@link PeerStream}.
 *
 * <p>At the end of the input two sentinel files with a far-future event time move the watermark so
 * that every open entry times out (Spark fires no timeouts at end of input by itself).
 */
final class PeerContender {
  private static final String FLUSH = "FLUSH";
  private final Path dataDir;
  private final Expected expected;
  private final Path work;

  private final PeerBatchWriter writer;

  final Map<String, AtomicLong> finals;
  final AtomicLong fetches;
  final AtomicLong mismatchesEmitted;
  final AtomicLong matchesEmitted;
  final AtomicLong batches;
  final AtomicLong fetchNanos;
  long late;
  long duplicates;
  long superseded;
  double startupSeconds;
  long stateRowsPeak;
  long stateMemoryPeak;

  /** Spark's per-trigger durations (addBatch, queryPlanning, walCommit, ...) summed, ms. */
  final Map<String, Long> durations = new java.util.TreeMap<>();

  PeerContender(Path dataDir, Expected expected, Path work) {
    this.dataDir = dataDir;
    this.expected = expected;
    this.work = work;
    this.writer =
        new PeerBatchWriter(
            rawTable(), deltasTable(), PeerBatchWriter.DeltasLayout.PEER, true, null);
    this.finals = writer.finals;
    this.fetches = writer.fetches;
    this.mismatchesEmitted = writer.mismatchesEmitted;
    this.matchesEmitted = writer.matchesEmitted;
    this.batches = writer.batches;
    this.fetchNanos = writer.fetchNanos;
  }

  String rawTable() {
    return work.resolve("warehouse/raw_events").toString();
  }

  String deltasTable() {
    return work.resolve("warehouse/deltas").toString();
  }

  VerdictCounts run() throws Exception {
    long t0 = System.nanoTime();
    SparkSession spark =
        SparkSession.builder()
            .master("local[2]")
            .appName("streamrecon-bench-peer")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.sql.shuffle.partitions", "4")
            .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
            .config(
                "spark.sql.catalog.spark_catalog",
                "org.apache.spark.sql.delta.catalog.DeltaCatalog")
            .config("spark.sql.streaming.numRecentProgressUpdates", "100000")
            .config("spark.sql.warehouse.dir", work.resolve("spark-warehouse").toString())
            .getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
    startupSeconds = (System.nanoTime() - t0) / 1e9;
    try {
      return reconcile(spark);
    } finally {
      spark.stop();
    }
  }

  private VerdictCounts reconcile(SparkSession spark) throws Exception {
    Path flushDir = Files.createDirectories(work.resolve("flush"));
    long timeout = expected.config().timeout().toMillis();
    String delay = expected.config().watermarkDelay().toMillis() + " milliseconds";
    LongAccumulator dupAcc = spark.sparkContext().longAccumulator("duplicates");
    LongAccumulator supAcc = spark.sparkContext().longAccumulator("superseded");

    Dataset<Row> lines =
        sideStream(spark, dataDir.resolve(Generator.SOURCE_DIR), "SOURCE")
            .union(sideStream(spark, dataDir.resolve(Generator.TARGET_DIR), "TARGET"))
            .union(sideStream(spark, flushDir, FLUSH));

    EventParser parser = new EventParser(ParseConfig.defaults());
    Dataset<PeerRows.InEvent> events = PeerSteps.parseWithWatermark(lines, parser, delay);

    Dataset<PeerRows.Out> out = PeerSteps.pair(events, timeout, dupAcc, supAcc);

    StreamingQuery query =
        out.writeStream()
            .option("checkpointLocation", work.resolve("checkpoint").toString())
            .foreachBatch((VoidFunction2<Dataset<PeerRows.Out>, Long>) writer::write)
            .start();
    query.processAllAvailable();
    // Two sentinels: the first moves the watermark, the second runs a batch in which it applies.
    for (int i = 0; i < 2; i++) {
      Files.writeString(
          flushDir.resolve("flush-" + i + ".jsonl"),
          "{\"id\":\"__flush__\",\"eventTime\":\"2999-01-01T00:00:0" + i + "Z\"}\n",
          StandardCharsets.UTF_8);
      query.processAllAvailable();
    }
    query.stop();
    if (query.exception().isDefined()) {
      throw query.exception().get();
    }
    for (StreamingQueryProgress p : query.recentProgress()) {
      for (Map.Entry<String, Long> d : p.durationMs().entrySet()) {
        durations.merge(d.getKey(), d.getValue(), Long::sum);
      }
      for (StateOperatorProgress s : p.stateOperators()) {
        late += s.numRowsDroppedByWatermark();
        stateRowsPeak = Math.max(stateRowsPeak, s.numRowsTotal());
        stateMemoryPeak = Math.max(stateMemoryPeak, s.memoryUsedBytes());
      }
    }
    duplicates = dupAcc.value();
    superseded = supAcc.value();
    return new VerdictCounts(
        count(Status.MATCH),
        count(Status.MISMATCH),
        count(Status.MISSING_IN_TARGET),
        count(Status.MISSING_IN_SOURCE),
        duplicates,
        late);
  }

  private long count(Status s) {
    AtomicLong v = finals.get(s.name());
    return v == null ? 0 : v.get();
  }

  private static Dataset<Row> sideStream(SparkSession spark, Path dir, String side) {
    return spark
        .readStream()
        .option("maxFilesPerTrigger", "1")
        .text(dir.toString())
        .withColumn("side", lit(side));
  }
}
