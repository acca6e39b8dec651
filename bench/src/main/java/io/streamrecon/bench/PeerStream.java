package io.streamrecon.bench;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import io.streamrecon.deltalake.WarehouseTables;
import io.streamrecon.files.LocalFiles;
import io.streamrecon.json.EventParser;
import io.streamrecon.json.ParseConfig;
import io.streamrecon.model.Side;
import io.streamrecon.pipeline.DurationParser;
import io.streamrecon.pipeline.io.InputSpec;
import io.streamrecon.pipeline.io.KafkaProperties;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.config.Configurator;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.DataStreamWriter;
import org.apache.spark.sql.streaming.SourceProgress;
import org.apache.spark.sql.streaming.StateOperatorProgress;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryProgress;
import org.apache.spark.sql.streaming.StreamingQueryStatus;
import org.apache.spark.sql.streaming.Trigger;
import org.apache.spark.util.LongAccumulator;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The Structured Streaming peer reading Kafka, run by {@code bin/bench soak --engine=peer} in a JVM
 * of its own in place of {@code StreamRecon run}: streamrecon's design written natively in Spark
 * Structured Streaming 3.5 + delta-spark, with the parse, pairing and micro-batch writer of the
 * file peer ({@link PeerSteps}, {@link PeerBatchWriter}). Each side is one {@code
 * readStream().format("kafka")} of its topic from the earliest offsets, its values parsed with
 * streamrecon's {@link EventParser}; each side has its own watermark (largest event time minus
 * {@code --kafkaMaxOutOfOrderness}, 30 s as streamrecon's default) and the query's is the smaller
 * of the two ({@code spark.sql.streaming.multipleWatermarkPolicy=min}), so a side that runs behind
 * does not have its events turned late by the other. It writes {@code <warehouse>/raw_events} and
 * {@code <warehouse>/deltas} (streamrecon's deltas columns, so the soak's readers read it; MATCH
 * rows only with {@code --emitMatches=true} or when they supersede a verdict), and checkpoints
 * under {@code <warehouse>/_checkpoints/peer}.
 *
 * <p><b>Idle topics.</b> Spark moves a watermark only when rows arrive, so without more the last
 * entries would never expire once production ends. streamrecon's Kafka reader lets an idle
 * partition's watermark follow the wall clock: once its backlog checks have found it empty, no
 * record read, for {@code --kafkaIdleAfter} (30 s), watermark = check time − the bound
 * (docs/operations.md#event-time-and-watermark-policy). The peer applies the same rule per topic
 * with Spark's own parts. Spark checks every source's backlog before each micro-batch, and a batch
 * reads all there is, so a side is seen empty at the start of a batch that read none of its rows
 * ({@code recentProgress}: the batch's timestamp) and whenever the query waits for data ({@code
 * status}); it is seen with records at the start of a batch whose offsets for it moved ({@link
 * #readRecords}). The driver polls both every second ({@link IdleRule}); once a side has been seen
 * empty for {@code --kafkaIdleAfter} since it was last seen with records, it drops a heartbeat line
 * into that side's heartbeat directory every {@code --heartbeatInterval}, stamped with <em>the time
 * the side was last seen empty</em>: a file stream unioned into the side before its watermark. The
 * side's watermark then follows the wall clock minus the bound, the next batch fires the expired
 * entries' timeouts, and pairing skips the heartbeat (a marker, {@link PeerSteps#isMarker}).
 * Because the stamp is a moment with nothing left to read, a heartbeat can only make late a record
 * appended after it more than the bound behind its event time, and only on a side quiet for 30 s,
 * as in streamrecon; a long micro-batch (the first one takes 20-30 s here) tells nothing about the
 * backlog until it ends, so it cannot make the records that wait for it late. A {@code rate} source
 * heartbeat stamped wall clock minus (bound + 30 s) under the {@code max} policy was not taken: it
 * knows nothing of the backlog, so it turns records late whenever a batch, or a producer, runs a
 * minute behind while data still flows, and it delays the last expiries 30 s beyond streamrecon's
 * rule. Heartbeat files are deleted once read ({@code cleanSource=delete}); the observation starts
 * afresh in a new JVM, as streamrecon's does.
 *
 * <p>Trigger: Structured Streaming's default (the next micro-batch as soon as the previous one
 * ends), or {@code --trigger=DURATION}. Prints a line {@code PeerStream started} once the query
 * runs and a progress line every {@code --progressInterval}; nothing per element.
 */
@Command(
    name = "peer-stream",
    mixinStandardHelpOptions = true,
    description =
        "The Structured Streaming peer on two Kafka topics (bin/bench soak --engine=peer).")
final class PeerStream implements Callable<Integer> {
  static final String HEARTBEAT = "HEARTBEAT";

  @Option(names = "--source", required = true, description = "kafka://host:port/topic")
  String source;

  @Option(names = "--target", required = true, description = "kafka://host:port/topic")
  String target;

  @Option(
      names = "--warehouse",
      required = true,
      description = "directory of the raw_events and deltas tables and of _checkpoints/peer")
  Path warehouse;

  @Option(
      names = "--kafkaProperties",
      defaultValue = "",
      description =
          "comma-separated consumer properties key=value (as streamrecon's), passed to"
              + " Spark's Kafka source as kafka.<key>")
  String kafkaProperties;

  @Option(names = "--timeout", defaultValue = "10m", description = "pairing timeout (event time)")
  String timeout;

  @Option(
      names = "--kafkaMaxOutOfOrderness",
      defaultValue = "30s",
      description = "watermark delay per side, as streamrecon's")
  String maxOutOfOrderness;

  @Option(
      names = "--kafkaIdleAfter",
      defaultValue = "30s",
      description = "how long a side must read nothing before its watermark follows the wall clock")
  String idleAfter;

  @Option(
      names = "--heartbeatInterval",
      defaultValue = "5s",
      description = "how often an idle side's heartbeat moves its watermark")
  String heartbeatInterval;

  @Option(
      names = "--progressInterval",
      defaultValue = "10s",
      description = "progress line interval")
  String progressInterval;

  @Option(
      names = "--trigger",
      defaultValue = "",
      description = "micro-batch interval; empty: the next batch as soon as the previous ends")
  String trigger;

  @Option(
      names = "--emitMatches",
      arity = "0..1",
      defaultValue = "false",
      description = "write MATCH rows to deltas too")
  boolean emitMatches;

  @Option(
      names = "--pairingBuckets",
      defaultValue = "0",
      description =
          "accepted for the soak's command line and ignored: Spark's state store keys"
              + " by natural id, there is no bucketing to choose")
  int pairingBuckets;

  @Option(names = "--sparkMaster", defaultValue = "local[2]")
  String sparkMaster;

  @Option(
      names = "--shufflePartitions",
      defaultValue = "4",
      description = "spark.sql.shuffle.partitions: the state store's partitions (as the file peer)")
  int shufflePartitions;

  @Option(
      names = "--stateStore",
      defaultValue = "hdfs",
      description =
          "hdfs (Spark's default, in memory, as the file peer) or rocksdb (with changelog"
              + " checkpointing)")
  String stateStore;

  public static void main(String[] args) {
    System.exit(new CommandLine(new PeerStream()).execute(args));
  }

  /** The validated settings. */
  record Settings(
      InputSpec source,
      InputSpec target,
      Map<String, String> kafka,
      long timeoutMillis,
      long delayMillis,
      long idleAfterMillis,
      long heartbeatMillis,
      long progressMillis,
      long triggerMillis) {}

  Settings settings() {
    InputSpec s = InputSpec.parse("source", source);
    InputSpec t = InputSpec.parse("target", target);
    if (!s.isKafka() || !t.isKafka()) {
      throw new IllegalArgumentException("--source and --target must be kafka://host:port/topic");
    }
    if (s.topic().equals(t.topic()) && s.bootstrapServers().equals(t.bootstrapServers())) {
      throw new IllegalArgumentException("--source and --target name the same topic");
    }
    if (!stateStore.equals("hdfs") && !stateStore.equals("rocksdb")) {
      throw new IllegalArgumentException("--stateStore must be hdfs or rocksdb, not " + stateStore);
    }
    return new Settings(
        s,
        t,
        KafkaProperties.parseInline(kafkaProperties),
        millis("--timeout", timeout),
        millis("--kafkaMaxOutOfOrderness", maxOutOfOrderness),
        millis("--kafkaIdleAfter", idleAfter),
        millis("--heartbeatInterval", heartbeatInterval),
        millis("--progressInterval", progressInterval),
        trigger.isBlank() ? 0 : millis("--trigger", trigger));
  }

  private static long millis(String option, String text) {
    return DurationParser.parse(option, text).getMillis();
  }

  @Override
  public Integer call() throws Exception {
    Settings s;
    try {
      s = settings();
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      return 2;
    }
    Path checkpoints = warehouse.resolve("_checkpoints");
    Map<Side, Path> heartbeatDirs = new EnumMap<>(Side.class);
    for (Side side : Side.values()) {
      heartbeatDirs.put(
          side,
          Files.createDirectories(checkpoints.resolve("peer-heartbeats").resolve(side.name())));
    }
    SparkSession.Builder builder =
        SparkSession.builder()
            .master(sparkMaster)
            .appName("streamrecon-peer-stream")
            .config("spark.ui.enabled", System.getProperty("spark.ui.enabled", "false"))
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.sql.shuffle.partitions", String.valueOf(shufflePartitions))
            .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
            .config(
                "spark.sql.catalog.spark_catalog",
                "org.apache.spark.sql.delta.catalog.DeltaCatalog")
            .config("spark.sql.streaming.multipleWatermarkPolicy", "min")
            .config("spark.sql.warehouse.dir", checkpoints.resolve("spark-warehouse").toString());
    if (stateStore.equals("rocksdb")) {
      builder.config(
          "spark.sql.streaming.stateStore.providerClass",
          "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider");
      // A checkpoint then uploads the batch's changes only, not a snapshot of the whole store:
      // the set-up a Structured Streaming job with hours of open state runs in production.
      builder.config(
          "spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled", "true");
    }
    SparkSession spark = builder.getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
    // cleanSource deletes a batch's heartbeat files at its commit, and tries again (warning that
    // they are gone) at every later commit that read no new heartbeat
    Configurator.setLevel(
        "org.apache.spark.sql.execution.streaming.FileStreamSource$SourceFileRemover", Level.ERROR);
    try {
      return run(spark, s, checkpoints, heartbeatDirs);
    } finally {
      spark.stop();
    }
  }

  private int run(SparkSession spark, Settings s, Path checkpoints, Map<Side, Path> heartbeatDirs)
      throws Exception {
    LongAccumulator dupAcc = spark.sparkContext().longAccumulator("duplicates");
    LongAccumulator supAcc = spark.sparkContext().longAccumulator("superseded");
    String delay = s.delayMillis() + " milliseconds";
    EventParser parser = new EventParser(ParseConfig.defaults());
    Dataset<PeerRows.InEvent> events =
        side(spark, s, Side.SOURCE, s.source(), heartbeatDirs.get(Side.SOURCE), parser, delay)
            .union(
                side(
                    spark,
                    s,
                    Side.TARGET,
                    s.target(),
                    heartbeatDirs.get(Side.TARGET),
                    parser,
                    delay));
    Dataset<PeerRows.Out> out = PeerSteps.pair(events, s.timeoutMillis(), dupAcc, supAcc);

    String runId = "peer-" + Instant.now().toString().replaceAll("[^0-9]", "").substring(0, 14);
    PeerBatchWriter writer =
        new PeerBatchWriter(
            warehouse.resolve(WarehouseTables.RAW_EVENTS).toString(),
            warehouse.resolve(WarehouseTables.DELTAS).toString(),
            PeerBatchWriter.DeltasLayout.STREAMRECON,
            emitMatches,
            runId);

    long now = System.currentTimeMillis();
    Map<Side, IdleRule> idle = new EnumMap<>(Side.class);
    Map<Side, String> topics = new EnumMap<>(Side.class);
    for (Side side : Side.values()) {
      idle.put(side, new IdleRule(s.idleAfterMillis(), s.heartbeatMillis(), now));
    }
    topics.put(Side.SOURCE, s.source().topic());
    topics.put(Side.TARGET, s.target().topic());

    DataStreamWriter<PeerRows.Out> w =
        out.writeStream()
            .queryName("peer")
            .option("checkpointLocation", checkpoints.resolve("peer").toString())
            .foreachBatch((VoidFunction2<Dataset<PeerRows.Out>, Long>) writer::write);
    if (s.triggerMillis() > 0) {
      w = w.trigger(Trigger.ProcessingTime(s.triggerMillis()));
    }
    StreamingQuery query = w.start();
    // Start-up is not the soak: "started" once the first batch ended or Spark found nothing to read
    // (its first batch plans the query, creates the tables and takes 20-60 s here).
    while (query.isActive() && query.lastProgress() == null && !waitingForData(query.status())) {
      TimeUnit.MILLISECONDS.sleep(200);
    }
    System.out.printf(
        Locale.ROOT,
        "PeerStream started: query %s, run %s, %s and %s from the earliest offsets, timeout %d ms,"
            + " watermark delay %d ms per side, idle after %d ms, trigger %s%s%n",
        query.id(),
        runId,
        s.source(),
        s.target(),
        s.timeoutMillis(),
        s.delayMillis(),
        s.idleAfterMillis(),
        s.triggerMillis() > 0 ? s.triggerMillis() + " ms" : "default",
        pairingBuckets > 0
            ? " (--pairingBuckets ignored: Spark keys its state by natural id)"
            : "");

    ScheduledExecutorService beats =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "peer-heartbeat");
              t.setDaemon(true);
              return t;
            });
    long[] lastBatchSeen = {-1};
    beats.scheduleWithFixedDelay(
        () -> {
          lastBatchSeen[0] = observe(query, idle, topics, lastBatchSeen[0]);
          heartbeats(idle, topics, heartbeatDirs);
        },
        1,
        1,
        TimeUnit.SECONDS);
    try {
      while (!query.awaitTermination(s.progressMillis())) {
        progress(query, writer, dupAcc, supAcc);
      }
    } finally {
      beats.shutdownNow();
    }
    if (query.exception().isDefined()) {
      System.err.println("PeerStream failed: " + query.exception().get());
      return 1;
    }
    return 0;
  }

  /** One side: its Kafka topic and its heartbeat directory, parsed and watermarked. */
  private static Dataset<PeerRows.InEvent> side(
      SparkSession spark,
      Settings s,
      Side side,
      InputSpec spec,
      Path heartbeatDir,
      EventParser parser,
      String delay) {
    Map<String, String> options = new LinkedHashMap<>();
    s.kafka().forEach((k, v) -> options.put("kafka." + k, v));
    options.put("kafka.bootstrap.servers", spec.bootstrapServers());
    options.put("subscribe", spec.topic());
    options.put("startingOffsets", "earliest");
    Dataset<Row> records =
        spark
            .readStream()
            .format("kafka")
            .options(options)
            .load()
            .where(col("value").isNotNull())
            .select(col("value").cast("string").as("value"), lit(side.name()).as("side"));
    Dataset<Row> heartbeats =
        spark
            .readStream()
            .option("cleanSource", "delete")
            .text(heartbeatDir.toString())
            .select(col("value"), lit(HEARTBEAT).as("side"));
    return PeerSteps.parseWithWatermark(records.union(heartbeats), parser, delay);
  }

  /**
   * Feeds each side's {@link IdleRule} what Spark saw of its backlog: the query waiting for data
   * (every source empty now), and the batches that ended since {@code lastBatch} (the side's Kafka
   * rows at each batch's start). The status is read first: once the query waits, the batch before
   * it is in {@code recentProgress}. Returns the last batch id seen.
   */
  private static long observe(
      StreamingQuery query, Map<Side, IdleRule> idle, Map<Side, String> topics, long lastBatch) {
    long now = System.currentTimeMillis();
    boolean waiting = waitingForData(query.status());
    long seen = lastBatch;
    for (StreamingQueryProgress p : query.recentProgress()) {
      if (p.batchId() <= lastBatch) {
        continue;
      }
      seen = Math.max(seen, p.batchId());
      long startedAt = Instant.parse(p.timestamp()).toEpochMilli();
      for (SourceProgress source : p.sources()) {
        for (Side side : Side.values()) {
          // Spark's Kafka source describes itself as KafkaV2[Subscribe[<topic>]]
          if (source.description().contains("[" + topics.get(side) + "]")) {
            idle.get(side).observed(startedAt, readRecords(source));
          }
        }
      }
    }
    if (waiting) {
      idle.values().forEach(rule -> rule.observed(now, false));
    }
    return seen;
  }

  /**
   * Whether a batch read records of this Kafka source: its offsets moved. Not numInputRows alone:
   * Spark reports 0 for every source of a batch whose execution plan has fewer leaves than its
   * logical plan ("Could not report metrics as number leaves ... did not match"), which the union
   * with a heartbeat stream that has no new file causes. The first batch (no start offset) counts
   * as having read.
   */
  static boolean readRecords(SourceProgress source) {
    return source.numInputRows() > 0
        || !java.util.Objects.equals(source.startOffset(), source.endOffset());
  }

  /**
   * Whether the query's last backlog check found nothing new on any source: between triggers, no
   * data, and past initialisation (whose status is neither active nor with data either).
   */
  static boolean waitingForData(StreamingQueryStatus status) {
    return !status.isTriggerActive()
        && !status.isDataAvailable()
        && status.message().startsWith("Waiting for");
  }

  /** Writes a heartbeat for each side that is due one (runs every second in the driver). */
  private static void heartbeats(
      Map<Side, IdleRule> idle, Map<Side, String> topics, Map<Side, Path> dirs) {
    for (Side side : Side.values()) {
      IdleRule rule = idle.get(side);
      long beat = rule.heartbeat();
      if (beat < 0) {
        continue;
      }
      if (rule.firstBeatOfSpell()) {
        System.out.printf(
            Locale.ROOT,
            "PeerStream: topic %s seen empty since its last records at %s; its watermark"
                + " follows the wall clock%n",
            topics.get(side),
            Instant.ofEpochMilli(rule.lastRecords()));
      }
      try {
        Path dir = dirs.get(side);
        // Its temporary file is hidden, so the file source skips it.
        LocalFiles.writeAtomically(
            dir.resolve("hb-" + beat + ".jsonl"),
            (heartbeatLine(beat) + "\n").getBytes(StandardCharsets.UTF_8));
      } catch (IOException e) {
        System.err.println("PeerStream: heartbeat of " + side + " not written: " + e);
      }
    }
  }

  static String heartbeatLine(long eventTimeMillis) {
    return "{\"id\":\"__heartbeat__\",\"eventTime\":\""
        + Instant.ofEpochMilli(eventTimeMillis)
        + "\"}";
  }

  private static void progress(
      StreamingQuery query, PeerBatchWriter writer, LongAccumulator dup, LongAccumulator sup) {
    StreamingQueryProgress p = query.lastProgress();
    long stateRows = 0;
    long stateBytes = 0;
    long late = 0;
    String watermark = "–";
    long batchMs = -1;
    if (p != null) {
      for (StateOperatorProgress o : p.stateOperators()) {
        stateRows += o.numRowsTotal();
        stateBytes += o.memoryUsedBytes();
        late += o.numRowsDroppedByWatermark();
      }
      watermark = p.eventTime().getOrDefault("watermark", "–");
      Long total = p.durationMs().get("triggerExecution");
      batchMs = total == null ? -1 : total;
    }
    System.out.printf(
        Locale.ROOT,
        "PeerStream progress: batches %d, raw rows stored %d, deltas rows %d, finals %s,"
            + " duplicates %d, superseded %d, watermark %s, state rows %d (%d bytes),"
            + " last batch %d ms, dropped late in it %d%n",
        writer.batches.get(),
        writer.rawRows.get(),
        writer.deltasRows.get(),
        writer.finals,
        dup.value(),
        sup.value(),
        watermark,
        stateRows,
        stateBytes,
        batchMs,
        late);
  }

  /**
   * What the driver has seen of one side's backlog, and the heartbeats it is due: once the side has
   * been seen empty for {@code idleAfter} since it was last seen with records, one every {@code
   * interval} of the times it is seen empty, stamped with such a time.
   */
  static final class IdleRule {
    private final long idleAfter;
    private final long interval;
    private long lastRecords;
    private long lastEmpty = Long.MIN_VALUE;
    private long lastBeat = Long.MIN_VALUE;
    private boolean firstOfSpell;

    /** Observation starts at {@code now} (start-up), as if records had just been seen. */
    IdleRule(long idleAfter, long interval, long now) {
      this.idleAfter = idleAfter;
      this.interval = interval;
      this.lastRecords = now;
    }

    /** At {@code at}, the side's backlog held records, or was empty. */
    synchronized void observed(long at, boolean records) {
      if (records) {
        lastRecords = Math.max(lastRecords, at);
      } else {
        lastEmpty = Math.max(lastEmpty, at);
      }
    }

    /** The event time of the heartbeat to write now, or -1 when none is due. */
    synchronized long heartbeat() {
      if (lastEmpty == Long.MIN_VALUE || lastEmpty - lastRecords < idleAfter) {
        return -1;
      }
      boolean first = lastBeat < lastRecords;
      if (!first && lastEmpty - lastBeat < interval) {
        return -1;
      }
      firstOfSpell = first;
      lastBeat = lastEmpty;
      return lastEmpty;
    }

    /** Whether the last heartbeat was the first since the side was last seen with records. */
    synchronized boolean firstBeatOfSpell() {
      return firstOfSpell;
    }

    synchronized long lastRecords() {
      return lastRecords;
    }
  }
}
