package io.streamrecon.bench;

import static org.apache.spark.sql.functions.broadcast;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.date_format;
import static org.apache.spark.sql.functions.lit;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamrecon.json.EventParser;
import io.streamrecon.json.InvalidEventException;
import io.streamrecon.json.JsonDiff;
import io.streamrecon.json.JsonSupport;
import io.streamrecon.json.ParseConfig;
import io.streamrecon.model.Difference;
import io.streamrecon.model.Event;
import io.streamrecon.model.Origin;
import io.streamrecon.model.RawInput;
import io.streamrecon.model.Side;
import io.streamrecon.model.Status;
import io.streamrecon.model.Verdict;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.api.java.function.FlatMapGroupsWithStateFunction;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.GroupState;
import org.apache.spark.sql.streaming.GroupStateTimeout;
import org.apache.spark.sql.streaming.OutputMode;
import org.apache.spark.sql.streaming.StateOperatorProgress;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryProgress;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.LongAccumulator;
import org.joda.time.Instant;

/**
 * Contender 4, the peer: streamrecon's design written natively in Spark Structured Streaming, as a
 * Spark user would. Two file streams (one file per side per micro-batch), parsed with the same
 * {@link EventParser}; a watermark; {@code flatMapGroupsWithState} with an event-time timeout per
 * natural id keeping metadata only; each micro-batch, in {@code foreachBatch}: the raw events are
 * appended to a Delta table with delta-spark, then the payloads of the batch's MISMATCH verdicts
 * are fetched back from that table (one broadcast join per micro-batch, pruned to the event dates
 * and, by the files' eventTime stats, to the batch's time range), diffed, and the verdicts
 * appended to a deltas table.
 *
 * <p>At the end of the input two sentinel files with a far-future event time move the watermark so
 * that every open entry times out (Spark fires no timeouts at end of input by itself).
 */
final class PeerContender {
  private static final String FLUSH = "FLUSH";
  private final Path dataDir;
  private final Expected expected;
  private final Path work;

  final Map<String, AtomicLong> finals = new ConcurrentHashMap<>();
  final AtomicLong fetches = new AtomicLong();
  final AtomicLong mismatchesEmitted = new AtomicLong();
  final AtomicLong matchesEmitted = new AtomicLong();
  final AtomicLong rawRows = new AtomicLong();
  final AtomicLong batches = new AtomicLong();
  final AtomicLong fetchNanos = new AtomicLong();
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
                "spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
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
    Dataset<PeerRows.InEvent> events =
        lines
            .map(
                (MapFunction<Row, PeerRows.InEvent>) row -> parse(parser, row),
                Encoders.bean(PeerRows.InEvent.class))
            .withWatermark("eventTime", delay)
            .as(Encoders.bean(PeerRows.InEvent.class));

    Pairing<Void> pairing = new Pairing<>(timeout);
    FlatMapGroupsWithStateFunction<String, PeerRows.InEvent, PeerRows.State, PeerRows.Out> fn =
        (id, values, state) -> pairStep(pairing, id, values, state, dupAcc, supAcc);

    Dataset<PeerRows.Out> out =
        events
            .groupByKey((MapFunction<PeerRows.InEvent, String>) PeerRows.InEvent::getId, Encoders.STRING())
            .flatMapGroupsWithState(
                fn,
                OutputMode.Append(),
                Encoders.bean(PeerRows.State.class),
                Encoders.bean(PeerRows.Out.class),
                GroupStateTimeout.EventTimeTimeout());

    StreamingQuery query =
        out.writeStream()
            .option("checkpointLocation", work.resolve("checkpoint").toString())
            .foreachBatch((VoidFunction2<Dataset<PeerRows.Out>, Long>) this::writeBatch)
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

  private static PeerRows.InEvent parse(EventParser parser, Row row) throws InvalidEventException {
    String value = row.getString(0);
    String side = row.getString(1);
    PeerRows.InEvent e = new PeerRows.InEvent();
    e.setSide(side);
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    Event parsed =
        parser.parse(
            new RawInput(
                FLUSH.equals(side) ? Side.SOURCE : Side.valueOf(side),
                bytes,
                Origin.fileLine("spark", 0),
                Instant.EPOCH));
    e.setId(parsed.naturalId());
    e.setEventTime(new Timestamp(parsed.eventTime().getMillis()));
    e.setHash(parsed.sha256());
    e.setPayload(FLUSH.equals(side) ? null : value);
    return e;
  }

  /** One call per id per micro-batch: the rows to emit, state updated or removed. */
  private static Iterator<PeerRows.Out> pairStep(
      Pairing<Void> pairing,
      String id,
      Iterator<PeerRows.InEvent> values,
      GroupState<PeerRows.State> state,
      LongAccumulator dupAcc,
      LongAccumulator supAcc) {
    List<PeerRows.Out> out = new ArrayList<>();
    Pairing.Sink<Void> sink = new RowSink(out, dupAcc, supAcc);
    if (state.hasTimedOut()) {
      pairing.finish(id, fromState(state.get()), sink);
      state.remove();
      return out.iterator();
    }
    Pairing.Entry<Void> entry = state.exists() ? fromState(state.get()) : null;
    List<PeerRows.InEvent> batch = new ArrayList<>();
    values.forEachRemaining(batch::add);
    // Within a micro-batch Spark gives no order; event-time order is what a stream would show.
    batch.sort(
        Comparator.comparing(PeerRows.InEvent::getEventTime)
            .thenComparing(PeerRows.InEvent::getSide)
            .thenComparing(PeerRows.InEvent::getHash));
    for (PeerRows.InEvent e : batch) {
      if (FLUSH.equals(e.getSide())) {
        continue;
      }
      PeerRows.Out raw = new PeerRows.Out();
      raw.setKind("RAW");
      raw.setSide(e.getSide());
      raw.setId(id);
      raw.setEventTime(e.getEventTime());
      raw.setHash(e.getHash());
      raw.setPayload(e.getPayload());
      out.add(raw);
      entry =
          pairing.onEvent(
              id, entry, Side.valueOf(e.getSide()), e.getEventTime().getTime(), e.getHash(), null, sink);
    }
    if (entry != null) {
      state.update(toState(entry));
      long expiry = entry.expiresAt(pairing.timeoutMillis());
      state.setTimeoutTimestamp(Math.max(expiry, state.getCurrentWatermarkMs() + 1));
    }
    return out.iterator();
  }

  private static Pairing.Entry<Void> fromState(PeerRows.State s) {
    Pairing.Entry<Void> e = new Pairing.Entry<>();
    e.t0 = s.getT0();
    if (s.getSourceHash() != null) {
      e.source = new Pairing.Kept<>(s.getSourceTime(), s.getSourceHash(), null);
    }
    if (s.getTargetHash() != null) {
      e.target = new Pairing.Kept<>(s.getTargetTime(), s.getTargetHash(), null);
    }
    e.lastVerdictId = s.getLastVerdictId();
    e.lastStatus = s.getLastStatus() == null ? null : Status.valueOf(s.getLastStatus());
    return e;
  }

  private static PeerRows.State toState(Pairing.Entry<Void> e) {
    PeerRows.State s = new PeerRows.State();
    s.setT0(e.t0);
    if (e.source != null) {
      s.setSourceTime(e.source.eventTime());
      s.setSourceHash(e.source.hash());
    }
    if (e.target != null) {
      s.setTargetTime(e.target.eventTime());
      s.setTargetHash(e.target.hash());
    }
    s.setLastVerdictId(e.lastVerdictId);
    s.setLastStatus(e.lastStatus == null ? null : e.lastStatus.name());
    return s;
  }

  /** Turns pairing decisions into output rows. */
  private record RowSink(List<PeerRows.Out> out, LongAccumulator dupAcc, LongAccumulator supAcc)
      implements Pairing.Sink<Void> {
    @Override
    public void verdict(String id, Verdict v, Pairing.Kept<Void> s, Pairing.Kept<Void> t) {
      PeerRows.Out o = new PeerRows.Out();
      o.setKind("VERDICT");
      o.setId(id);
      o.setStatus(v.status().name());
      o.setVerdictId(v.verdictId());
      o.setSupersedes(v.supersedes());
      o.setSourceHash(s.hash());
      o.setTargetHash(t.hash());
      o.setSourceTime(new Timestamp(s.eventTime()));
      o.setTargetTime(new Timestamp(t.eventTime()));
      out.add(o);
    }

    @Override
    public void finished(String id, Status status, Pairing.Kept<Void> s, Pairing.Kept<Void> t) {
      PeerRows.Out o = new PeerRows.Out();
      o.setKind("FINAL");
      o.setId(id);
      o.setStatus(status.name());
      if (status == Status.MISSING_IN_TARGET || status == Status.MISSING_IN_SOURCE) {
        // a missing verdict is a DeltaRecord too: written with the verdicts
        Pairing.Kept<Void> k = s != null ? s : t;
        o.setVerdictId(
            Verdict.idOf(id, status, s == null ? null : s.hash(), t == null ? null : t.hash()));
        o.setSourceHash(s == null ? null : s.hash());
        o.setTargetHash(t == null ? null : t.hash());
        o.setSourceTime(s == null ? null : new Timestamp(s.eventTime()));
        o.setTargetTime(t == null ? null : new Timestamp(t.eventTime()));
        o.setEventTime(new Timestamp(k.eventTime()));
      }
      out.add(o);
    }

    @Override
    public void duplicate() {
      dupAcc.add(1);
    }

    @Override
    public void superseded() {
      supAcc.add(1);
    }
  }

  /** foreachBatch: store raw events, fetch and diff the mismatches, store the verdicts. */
  private void writeBatch(Dataset<PeerRows.Out> batch, Long batchId) throws Exception {
    batches.incrementAndGet();
    batch.persist();
    try {
      Dataset<Row> raw =
          batch
              .filter(col("kind").equalTo("RAW"))
              .select(
                  col("side"),
                  col("id"),
                  col("eventTime"),
                  col("hash"),
                  col("payload"),
                  date_format(col("eventTime"), "yyyy-MM-dd").as("event_date"));
      raw.write().format("delta").mode("append").partitionBy("side", "event_date").save(rawTable());

      List<Row> records =
          batch
              .filter(
                  col("kind")
                      .equalTo("VERDICT")
                      .or(col("kind").equalTo("FINAL").and(col("status").startsWith("MISSING"))))
              .select(
                  "kind", "id", "status", "verdictId", "supersedes", "sourceHash", "targetHash",
                  "sourceTime", "targetTime")
              .collectAsList();
      for (Row f : batch.filter(col("kind").equalTo("FINAL")).groupBy("status").count().collectAsList()) {
        finals.computeIfAbsent(f.getString(0), k -> new AtomicLong()).addAndGet(f.getLong(1));
      }
      if (records.isEmpty()) {
        return;
      }
      Map<String, String> diffs = fetchAndDiff(batch.sparkSession(), records);
      List<Row> deltaRows = new ArrayList<>();
      for (Row r : records) {
        String status = r.getString(2);
        if (status.equals("MATCH") && r.getString(0).equals("VERDICT")) {
          matchesEmitted.incrementAndGet();
        }
        deltaRows.add(
            RowFactory.create(
                r.getString(3), r.getString(4), r.getString(1), status,
                diffs.get(r.getString(3)), r.getString(5), r.getString(6),
                r.get(7), r.get(8), new Timestamp(System.currentTimeMillis())));
      }
      StructType schema =
          new StructType()
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
      batch
          .sparkSession()
          .createDataFrame(deltaRows, schema)
          .coalesce(1)
          .write()
          .format("delta")
          .mode("append")
          .save(deltasTable());
    } finally {
      batch.unpersist();
    }
  }

  /**
   * Fetches both payloads of every MISMATCH in one read of the raw table: a broadcast join on
   * (side, id, hash), pruned to the partitions of the events' dates. Returns verdict id to the
   * differences as JSON text.
   */
  private Map<String, String> fetchAndDiff(SparkSession spark, List<Row> records) throws InvalidEventException {
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
    Map<String, String> diffs = new HashMap<>();
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
            .load(rawTable())
            // partition pruning by date, then data skipping by the files' eventTime stats: each
            // micro-batch writes time-local files, so only a few files hold the wanted times
            .where(col("event_date").isin(dates.toArray()))
            .where(col("eventTime").between(new Timestamp(minTime), new Timestamp(maxTime)))
            .join(
                broadcast(wanted),
                scala.collection.JavaConverters.asScalaBuffer(List.of("side", "id", "hash")).toSeq())
            .select("side", "id", "hash", "payload")
            .collectAsList();
    fetches.addAndGet(fetched.size());
    Map<String, String> payloads = new HashMap<>();
    for (Row f : fetched) {
      payloads.putIfAbsent(f.getString(0) + "|" + f.getString(1) + "|" + f.getString(2), f.getString(3));
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
      diffs.put(m.getString(3), toJson(d));
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
