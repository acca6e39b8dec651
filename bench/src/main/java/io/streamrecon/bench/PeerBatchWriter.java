package io.streamrecon.bench;

import static org.apache.spark.sql.functions.broadcast;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.date_format;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamrecon.json.InvalidEventException;
import io.streamrecon.json.JsonDiff;
import io.streamrecon.json.JsonSupport;
import io.streamrecon.model.Difference;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The Spark peer's {@code foreachBatch}, shared by the file peer and the Kafka peer: the batch's
 * RAW rows are appended to a raw events Delta table (partitioned by side and event date), the
 * payloads of its MISMATCH verdicts are fetched back from that table in one broadcast join pruned
 * to the events' dates and time range, diffed with {@link JsonDiff}, and the verdicts (with the
 * MISSING ones of expired entries) appended to a deltas table.
 *
 * <p>Two layouts of the deltas table: {@link DeltasLayout#PEER} (the file benchmark's own:
 * camel-case columns, differences as JSON text, every MATCH written) and {@link
 * DeltasLayout#STREAMRECON} (streamrecon's column names and types, so its readers read it: {@code
 * differences} an array of {@code path, kind, source, target}, a {@code run_id}, no pointers; a
 * MATCH only with {@code --emitMatches=true} or when it supersedes a verdict, as streamrecon writes
 * them; a batch with nothing to store commits nothing).
 */
final class PeerBatchWriter {
  /** Column layout of the deltas table. */
  enum DeltasLayout {
    PEER,
    STREAMRECON
  }

  private final String rawTable;
  private final String deltasTable;
  private final DeltasLayout layout;
  private final boolean emitMatches;
  private final String runId;

  /** Final statuses of expired entries, per status name. */
  final Map<String, AtomicLong> finals = new ConcurrentHashMap<>();

  final AtomicLong fetches = new AtomicLong();
  final AtomicLong mismatchesEmitted = new AtomicLong();
  final AtomicLong matchesEmitted = new AtomicLong();
  final AtomicLong rawRows = new AtomicLong();
  final AtomicLong deltasRows = new AtomicLong();
  final AtomicLong batches = new AtomicLong();
  final AtomicLong fetchNanos = new AtomicLong();

  PeerBatchWriter(
      String rawTable, String deltasTable, DeltasLayout layout, boolean emitMatches, String runId) {
    this.rawTable = rawTable;
    this.deltasTable = deltasTable;
    this.layout = layout;
    this.emitMatches = emitMatches;
    this.runId = runId;
  }

  /** foreachBatch: store raw events, fetch and diff the mismatches, store the verdicts. */
  void write(Dataset<PeerRows.Out> batch, Long batchId) throws Exception {
    batches.incrementAndGet();
    batch.persist();
    try {
      long raws = 0;
      for (Row c : batch.groupBy("kind", "status").count().collectAsList()) {
        if (c.getString(0).equals("RAW")) {
          raws += c.getLong(2);
        } else if (c.getString(0).equals("FINAL")) {
          finals.computeIfAbsent(c.getString(1), k -> new AtomicLong()).addAndGet(c.getLong(2));
        }
      }
      rawRows.addAndGet(raws);
      if (raws > 0 || layout == DeltasLayout.PEER) {
        batch
            .filter(col("kind").equalTo("RAW"))
            .select(
                col("side"),
                col("id"),
                col("eventTime"),
                col("hash"),
                col("payload"),
                date_format(col("eventTime"), "yyyy-MM-dd").as("event_date"))
            .write()
            .format("delta")
            .mode("append")
            .partitionBy("side", "event_date")
            .save(rawTable);
      }

      List<Row> records =
          batch
              .filter(
                  col("kind")
                      .equalTo("VERDICT")
                      .or(col("kind").equalTo("FINAL").and(col("status").startsWith("MISSING"))))
              .select(
                  "kind",
                  "id",
                  "status",
                  "verdictId",
                  "supersedes",
                  "sourceHash",
                  "targetHash",
                  "sourceTime",
                  "targetTime")
              .collectAsList();
      if (records.isEmpty()) {
        return;
      }
      Map<String, List<Difference>> diffs = fetchAndDiff(batch.sparkSession(), records);
      Timestamp detectedAt = new Timestamp(System.currentTimeMillis());
      List<Row> deltaRows = new ArrayList<>();
      for (Row r : records) {
        String status = r.getString(2);
        if (status.equals("MATCH") && r.getString(0).equals("VERDICT")) {
          matchesEmitted.incrementAndGet();
          if (layout == DeltasLayout.STREAMRECON && !emitMatches && r.getString(4) == null) {
            continue; // counted, not stored (a MATCH that supersedes a verdict is stored)
          }
        }
        deltaRows.add(deltaRow(r, diffs.get(r.getString(3)), detectedAt));
      }
      if (deltaRows.isEmpty()) {
        return;
      }
      deltasRows.addAndGet(deltaRows.size());
      batch
          .sparkSession()
          .createDataFrame(deltaRows, deltasSchema())
          .coalesce(1)
          .write()
          .format("delta")
          .mode("append")
          .save(deltasTable);
    } finally {
      batch.unpersist();
    }
  }

  private Row deltaRow(Row r, List<Difference> d, Timestamp detectedAt) {
    if (layout == DeltasLayout.PEER) {
      return RowFactory.create(
          r.getString(3),
          r.getString(4),
          r.getString(1),
          r.getString(2),
          d == null ? null : toJson(d),
          r.getString(5),
          r.getString(6),
          r.get(7),
          r.get(8),
          detectedAt);
    }
    List<Row> differences = new ArrayList<>();
    if (d != null) {
      for (Difference x : d) {
        differences.add(RowFactory.create(x.path(), x.kind().name(), x.source(), x.target()));
      }
    }
    return RowFactory.create(
        r.getString(3),
        r.getString(4),
        r.getString(1),
        r.getString(2),
        differences,
        r.getString(5),
        r.getString(6),
        r.get(7),
        r.get(8),
        detectedAt,
        runId);
  }

  private StructType deltasSchema() {
    if (layout == DeltasLayout.PEER) {
      return new StructType()
          .add("verdictId", DataTypes.StringType)
          .add("supersedes", DataTypes.StringType)
          .add("naturalId", DataTypes.StringType)
          .add("status", DataTypes.StringType)
          .add("differences", DataTypes.StringType)
          .add("sourceHash", DataTypes.StringType)
          .add("targetHash", DataTypes.StringType)
          .add("sourceEventTime", DataTypes.TimestampType)
          .add("targetEventTime", DataTypes.TimestampType)
          .add("detectedAt", DataTypes.TimestampType);
    }
    StructType difference =
        new StructType()
            .add("path", DataTypes.StringType, false)
            .add("kind", DataTypes.StringType, false)
            .add("source", DataTypes.StringType)
            .add("target", DataTypes.StringType);
    return new StructType()
        .add("verdict_id", DataTypes.StringType, false)
        .add("supersedes", DataTypes.StringType)
        .add("natural_id", DataTypes.StringType, false)
        .add("status", DataTypes.StringType, false)
        .add("differences", DataTypes.createArrayType(difference, false), false)
        .add("source_hash", DataTypes.StringType)
        .add("target_hash", DataTypes.StringType)
        .add("source_event_time", DataTypes.TimestampType)
        .add("target_event_time", DataTypes.TimestampType)
        .add("detected_at", DataTypes.TimestampType, false)
        .add("run_id", DataTypes.StringType, false);
  }

  /**
   * Fetches both payloads of every MISMATCH in one read of the raw table: a broadcast join on
   * (side, id, hash), pruned to the partitions of the events' dates. Returns verdict id to the
   * differences.
   */
  private Map<String, List<Difference>> fetchAndDiff(SparkSession spark, List<Row> records)
      throws InvalidEventException {
    List<Row> keys = new ArrayList<>();
    Set<String> dates = new HashSet<>();
    long minTime = Long.MAX_VALUE;
    long maxTime = Long.MIN_VALUE;
    List<Row> mismatches = new ArrayList<>();
    for (Row r : records) {
      if (r.getString(2).equals("MISMATCH")) {
        mismatches.add(r);
        mismatchesEmitted.incrementAndGet();
        keys.add(RowFactory.create("SOURCE", r.getString(1), r.getString(5)));
        keys.add(RowFactory.create("TARGET", r.getString(1), r.getString(6)));
        dates.add(((Timestamp) r.get(7)).toInstant().toString().substring(0, 10));
        dates.add(((Timestamp) r.get(8)).toInstant().toString().substring(0, 10));
        for (int i = 7; i <= 8; i++) {
          minTime = Math.min(minTime, ((Timestamp) r.get(i)).getTime());
          maxTime = Math.max(maxTime, ((Timestamp) r.get(i)).getTime());
        }
      }
    }
    Map<String, List<Difference>> diffs = new HashMap<>();
    if (mismatches.isEmpty()) {
      return diffs;
    }
    long start = System.nanoTime();
    StructType keySchema =
        new StructType()
            .add("side", DataTypes.StringType)
            .add("id", DataTypes.StringType)
            .add("hash", DataTypes.StringType);
    Dataset<Row> wanted = spark.createDataFrame(keys, keySchema).distinct();
    List<Row> fetched =
        spark
            .read()
            .format("delta")
            .load(rawTable)
            // partition pruning by date, then data skipping by the files' eventTime stats: each
            // micro-batch writes time-local files, so only a few files hold the wanted times
            .where(col("event_date").isin(dates.toArray()))
            .where(col("eventTime").between(new Timestamp(minTime), new Timestamp(maxTime)))
            .join(
                broadcast(wanted),
                scala.collection.JavaConverters.asScalaBuffer(List.of("side", "id", "hash"))
                    .toSeq())
            .select("side", "id", "hash", "payload")
            .collectAsList();
    fetches.addAndGet(fetched.size());
    Map<String, String> payloads = new HashMap<>();
    for (Row f : fetched) {
      payloads.putIfAbsent(
          f.getString(0) + "|" + f.getString(1) + "|" + f.getString(2), f.getString(3));
    }
    for (Row m : mismatches) {
      String s = payloads.get("SOURCE|" + m.getString(1) + "|" + m.getString(5));
      String t = payloads.get("TARGET|" + m.getString(1) + "|" + m.getString(6));
      if (s == null || t == null) {
        throw new IllegalStateException("payload not found in raw_events for " + m.getString(1));
      }
      JsonNode sn = JsonSupport.parse(s.getBytes(StandardCharsets.UTF_8));
      JsonNode tn = JsonSupport.parse(t.getBytes(StandardCharsets.UTF_8));
      List<Difference> d = JsonDiff.diff(sn, tn);
      if (d.isEmpty()) {
        throw new IllegalStateException("hashes differ but no difference for " + m.getString(1));
      }
      diffs.put(m.getString(3), d);
    }
    fetchNanos.addAndGet(System.nanoTime() - start);
    return diffs;
  }

  private static String toJson(List<Difference> d) {
    try {
      return JsonSupport.mapper().writeValueAsString(d);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
