package io.streamrecon.pipeline;

import io.streamrecon.json.ParseConfig;
import io.streamrecon.transforms.deltalake.DeltaLakeIO;
import io.streamrecon.transforms.pairing.PairEvents;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.beam.sdk.options.Default;
import org.apache.beam.sdk.options.DefaultValueFactory;
import org.apache.beam.sdk.options.Description;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.StreamingOptions;

/**
 * The options of a reconciliation run, given as {@code --name=value}. Durations accept ISO-8601
 * ({@code PT10M}) or short forms ({@code 10m}, {@code 30s}, {@code 2h}, {@code 500ms}). The values
 * are checked and turned into typed settings by {@link ReconcileSettings#from}; Beam's own options
 * ({@code --runner}, {@code --streaming}, ...) apply as usual.
 */
public interface ReconcileOptions extends StreamingOptions {
  /** The warehouse when none is given, for a run and every command that takes the option. */
  String DEFAULT_WAREHOUSE = "./warehouse";

  /** What {@code --warehouse} means, for a run and every command that takes it. */
  String WAREHOUSE_DESCRIPTION =
      "Directory or Hadoop URI under which the Delta Lake tables are written";

  @Description(
      "Source stream: a JSON Lines file path or glob (any Beam file system), or"
          + " kafka://host:port[,host:port]/topic")
  String getSource();

  void setSource(String value);

  @Description("Target stream, same forms as --source")
  String getTarget();

  void setTarget(String value);

  @Description(WAREHOUSE_DESCRIPTION)
  @Default.String(DEFAULT_WAREHOUSE)
  String getWarehouse();

  void setWarehouse(String value);

  @Description("JSON Pointer(s) of the natural id; comma-separated for a composite key")
  @Default.String(ParseConfig.DEFAULT_KEY_FIELD)
  String getKeyField();

  void setKeyField(String value);

  @Description(
      "JSON Pointer of the event time (ISO-8601 with offset, or epoch millis); empty = the"
          + " record's own time (Kafka record timestamp, or file read time)")
  @Default.String(ParseConfig.DEFAULT_TIME_FIELD)
  String getTimeField();

  void setTimeField(String value);

  @Description("Comma-separated JSON Pointers removed before hashing and diffing")
  @Default.String("")
  String getIgnoreFields();

  void setIgnoreFields(String value);

  @Description(
      "Comparison rules file (docs/design.md#comparison-rules): ignore, rename, unordered,"
          + " tolerance, lenientTypes, normalize, instants; empty for none")
  @Default.String("")
  String getRules();

  void setRules(String value);

  @Description("Pairing timeout in event time (PT10M or 10m)")
  @Default.String(ReconcileSettings.DEFAULT_TIMEOUT)
  String getTimeout();

  void setTimeout(String value);

  @Description(
      "How far behind the watermark an event may be before it counts as late (empty = the timeout:"
          + " an event later than that has missed its partner's entry anyway)")
  @Default.String("")
  String getAllowedLateness();

  void setAllowedLateness(String value);

  @Description(
      "Expiry clock: event (the default: an entry expires when the watermark passes its first"
          + " event time plus the timeout; on the SparkRunner in streaming mode the watermark the"
          + " runner tracks per micro-batch) or processing (wall-clock grace after the key's last"
          + " event)")
  @Default.String("")
  String getExpiry();

  void setExpiry(String value);

  @Description("Processing-time grace for --expiry=processing; empty = the --timeout")
  @Default.String("")
  String getProcessingGrace();

  void setProcessingGrace(String value);

  @Description(
      "Buckets natural ids are hashed into for pairing: the runner keeps one key, one timer and"
          + " its bookkeeping per bucket, however many ids it sees; 1 to 65536 (1024; unless given, 64"
          + " on the DirectRunner and 4096 on Spark streaming). Keep it across restarts of one"
          + " job: restored state is found by bucket. Raise it for hours of open state: on Flink"
          + " each new entry rewrites its bucket's slot of the expiry index (16384 held a 6-hour"
          + " timeout at 500 ids/s)")
  @Default.Integer(PairEvents.DEFAULT_BUCKETS)
  int getPairingBuckets();

  void setPairingBuckets(int value);

  @Description("Also write MATCH records to the deltas table")
  @Default.Boolean(false)
  boolean getEmitMatches();

  void setEmitMatches(boolean value);

  @Description(
      "Id of this run, stored with every row and naming its folders: 1 to 128 letters, digits,"
          + " '_', '-' or '.', starting with a letter or digit, without '..'; default generated"
          + " from the start time")
  @Default.InstanceFactory(RunIdFactory.class)
  String getRunId();

  void setRunId(String value);

  @Description(
      "Delta Lake commit interval in streaming mode; on Spark streaming, unless given, one commit"
          + " per micro-batch (raw_events there always commits per micro-batch with event-time"
          + " expiry)")
  @Default.String("5s")
  String getCommitInterval();

  void setCommitInterval(String value);

  @Description(
      "Streaming: compact a partition's small files after a commit once it holds"
          + " --autoCompactFiles of them (see README, Maintaining the tables)")
  @Default.Boolean(false)
  boolean getAutoCompact();

  void setAutoCompact(boolean value);

  @Description(
      "Files under the target size in one partition that trigger --autoCompact (2 to 10000)")
  @Default.Integer(DeltaLakeIO.DEFAULT_AUTO_COMPACT_FILES)
  int getAutoCompactFiles();

  void setAutoCompactFiles(int value);

  @Description(
      "Kafka consumer properties, comma-separated key=value (security.protocol, sasl.*, ssl.*,"
          + " group.id, ...); values with commas go in double quotes. A secret (sasl.jaas.config,"
          + " a key ending in password or secret, ...) only as a reference such as ${env:NAME}"
          + " (docs/operations.md, Secrets)")
  @Default.String("")
  String getKafkaProperties();

  void setKafkaProperties(String value);

  @Description(
      "A Java properties file of Kafka consumer properties; --kafkaProperties win. Its secrets are"
          + " not read at start: the Kafka client reads them from the file where it makes a"
          + " consumer, so the file must be at this path there too")
  @Default.String("")
  String getKafkaPropertiesFile();

  void setKafkaPropertiesFile(String value);

  @Description("Kafka watermark: the largest event time seen per partition minus this bound")
  @Default.String("30s")
  String getKafkaMaxOutOfOrderness();

  void setKafkaMaxOutOfOrderness(String value);

  @Description(
      "Kafka watermark: a partition found empty by every backlog check for this long (1s to 1h)"
          + " is idle, and its watermark follows the wall clock")
  @Default.String("30s")
  String getKafkaIdleAfter();

  void setKafkaIdleAfter(String value);

  @Description(
      "Kafka watermark: the most the source's records are appended behind their event time (0s"
          + " to 7d). An idle source partition's watermark stays this far behind the wall clock, so"
          + " a silent source holds the target's expiry this long at most; empty = the largest lag"
          + " each partition's records showed before it went quiet (none beyond 24h: a replay)")
  @Default.String("")
  String getSourceLag();

  void setSourceLag(String value);

  @Description("Kafka watermark: as --sourceLag, for the target's records")
  @Default.String("")
  String getTargetLag();

  void setTargetLag(String value);

  @Description("Read only committed records of transactional Kafka producers")
  @Default.Boolean(false)
  boolean getKafkaReadCommitted();

  void setKafkaReadCommitted(boolean value);

  @Description("Stop after this many records per Kafka topic (0 = unbounded)")
  @Default.Long(0)
  long getKafkaMaxRecords();

  void setKafkaMaxRecords(long value);

  @Description("Stop reading Kafka after this long (empty = unbounded)")
  @Default.String("")
  String getKafkaMaxReadTime();

  void setKafkaMaxReadTime(String value);

  @Description("Largest accepted event in bytes; larger inputs become dead letters")
  @Default.Integer(ParseConfig.DEFAULT_MAX_EVENT_BYTES)
  int getMaxEventBytes();

  void setMaxEventBytes(int value);

  @Description("How often a long run logs its progress counters (0s = never)")
  @Default.String("30s")
  String getProgressInterval();

  void setProgressInterval(String value);

  @Description(
      "Unbounded runs: start the job over instead of resuming it. Its checkpoints under"
          + " <warehouse>/_checkpoints/<jobName> are moved aside and a new run id begins")
  @Default.Boolean(false)
  boolean getFresh();

  void setFresh(boolean value);

  @Description(
      "Allow an unbounded (Kafka) run on the DirectRunner, which keeps its state in memory only:"
          + " a crash loses open entries. The SparkRunner (the default for Kafka) and the FlinkRunner"
          + " run embedded and restart from their checkpoints")
  @Default.Boolean(false)
  boolean getAllowStateLossOnCrash();

  void setAllowStateLossOnCrash(boolean value);

  @Description(
      "Bounded runs: thresholds that end a finished run with exit code 4, comma-separated"
          + " METRIC>VALUE or METRIC>=VALUE, like mismatch>0,missing>0.1%,deadLetters>0;"
          + " metrics mismatch, missingInTarget, missingInSource, missing, deadLetters, late,"
          + " duplicate, superseded; VALUE a count or a percentage"
          + " (docs/operations.md, Gating a pipeline). Empty for none")
  @Default.String("")
  String getFailOn();

  void setFailOn(String value);

  @Description(
      "Bounded runs: a local file the run's summary is written to as one JSON object, at the"
          + " end of the run"
          + " (docs/operations.md, Gating a pipeline); empty for none")
  @Default.String("")
  String getSummaryJson();

  void setSummaryJson(String value);

  @Description(
      "A local file ending in .prom the run's final metrics are written to, in Prometheus' text"
          + " format, when the run ends: for the node exporter's textfile collector, as a batch"
          + " run leaves nothing to scrape (docs/operations.md, Watching a job); empty for none")
  @Default.String("")
  String getMetricsTextFile();

  void setMetricsTextFile(String value);

  /** {@code run-<UTC start time>-<random>}: unique enough to tell runs apart in the tables. */
  class RunIdFactory implements DefaultValueFactory<String> {
    private static final DateTimeFormatter FORMAT =
        DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'");

    @Override
    public String create(PipelineOptions options) {
      return "run-"
          + FORMAT.format(ZonedDateTime.now(ZoneOffset.UTC))
          + "-"
          + String.format("%06x", ThreadLocalRandom.current().nextInt(1 << 24));
    }
  }
}
