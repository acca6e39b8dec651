package io.streamrecon.pipeline;

import io.streamrecon.deltalake.WarehouseIds;
import io.streamrecon.json.ComparisonRules;
import io.streamrecon.json.ParseConfig;
import io.streamrecon.model.Side;
import io.streamrecon.pipeline.io.InputSpec;
import io.streamrecon.pipeline.io.KafkaProperties;
import io.streamrecon.pipeline.io.ReadKafka;
import io.streamrecon.pipeline.runner.RunnerProfile;
import io.streamrecon.pipeline.runner.RunnerSupport;
import io.streamrecon.transforms.deltalake.DeltaLakeIO;
import io.streamrecon.transforms.pairing.PairEvents;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.joda.time.Duration;

/**
 * The checked, typed form of {@link ReconcileOptions}. {@link #from} validates every option and
 * reports the first bad one with its name and the valid range, so that the command line can print
 * one clear line.
 *
 * @param kafkaMaxReadTime {@code null} for no limit
 * @param sourceLag {@code --sourceLag}, {@code null} when not declared (observed per partition)
 * @param targetLag {@code --targetLag}, {@code null} when not declared (observed per partition)
 * @param processingGrace wall-clock grace for {@link PairEvents.Expiry#PROCESSING_TIME}
 * @param pairingBuckets the pairing's bucket count, see {@code PairEvents#withBuckets}
 * @param rules the comparison rules of {@code --rules}, {@link ComparisonRules#none()} without;
 *     {@code --ignoreFields} are kept apart in {@code ignoreFields}
 * @param commitInterval how often the writers of deltas, late events and dead letters commit
 * @param rawCommitInterval how often the raw_events writer commits, see {@link
 *     #rawCommitInterval(RunnerProfile, PairEvents.Expiry, Duration)}
 * @param autoCompactFiles the small-file threshold of {@code --autoCompact}, 0 when it is off
 * @param failOn the thresholds of {@code --failOn}, {@link FailOnRules#none()} without
 * @param summaryJson the local file of {@code --summaryJson}, {@code null} without
 * @param runner the runner's choices this run was validated with, which the graph follows too
 */
public record ReconcileSettings(
    InputSpec source,
    InputSpec target,
    String warehouse,
    List<String> keyFields,
    String timeField,
    List<String> ignoreFields,
    Duration timeout,
    Duration allowedLateness,
    PairEvents.Expiry expiry,
    Duration processingGrace,
    int pairingBuckets,
    boolean emitMatches,
    String runId,
    Duration commitInterval,
    Duration rawCommitInterval,
    Map<String, String> kafkaProperties,
    Duration kafkaMaxOutOfOrderness,
    Duration kafkaIdleAfter,
    Duration sourceLag,
    Duration targetLag,
    boolean kafkaReadCommitted,
    long kafkaMaxRecords,
    Duration kafkaMaxReadTime,
    int maxEventBytes,
    Duration progressInterval,
    boolean streaming,
    ComparisonRules rules,
    int autoCompactFiles,
    FailOnRules failOn,
    Path summaryJson,
    RunnerProfile runner) {

  public ReconcileSettings {
    keyFields = List.copyOf(keyFields);
    ignoreFields = List.copyOf(ignoreFields);
    kafkaProperties = Map.copyOf(kafkaProperties);
  }

  /**
   * The default of {@code --timeout}, and of the maintenance commands' {@code --timeout} that names
   * the running job's: {@link PairEvents#DEFAULT_TIMEOUT} as the option writes it.
   */
  public static final String DEFAULT_TIMEOUT = "10m";

  /**
   * Validates the options: the inputs, then the runner's profile for a run reading them, then the
   * judging, the writers, and what a run gives at its end.
   *
   * @throws IllegalArgumentException whose message names the option and the valid range
   */
  public static ReconcileSettings from(ReconcileOptions o) {
    Inputs in = inputs(o);
    boolean streaming = o.isStreaming() || !in.bounded();
    RunnerProfile runner = RunnerProfile.of(o, streaming);
    Judging judging = judging(o, runner);
    Writing writing = writing(o, runner, judging.expiry());
    FailOnRules failOn = FailOnRules.parse(o.getFailOn());
    if (!failOn.isEmpty() && !in.bounded()) {
      // A streaming job has no end at which its counts are final; a threshold met mid-stream
      // would either stop the job or be lost when it is stopped.
      throw new IllegalArgumentException(
          "--failOn applies to bounded runs only: an unbounded Kafka run has no final counts to"
              + " judge; bound it with --kafkaMaxRecords or --kafkaMaxReadTime, or drop --failOn");
    }
    Path summaryJson = summaryJson(o.getSummaryJson());
    if (summaryJson != null && !in.bounded()) {
      // A streaming job ends on a signal, and the JVM exits once its shutdown hooks are done,
      // whether or not the file has been written: a file that may be missing gates nothing.
      throw new IllegalArgumentException(
          "--summaryJson applies to bounded runs only: an unbounded Kafka run ends on a signal,"
              + " before a summary could be written; bound it with --kafkaMaxRecords or"
              + " --kafkaMaxReadTime, or drop --summaryJson");
    }
    return new ReconcileSettings(
        in.source(),
        in.target(),
        writing.warehouse(),
        judging.keyFields(),
        judging.timeField(),
        judging.ignoreFields(),
        judging.timeout(),
        judging.allowedLateness(),
        judging.expiry(),
        judging.processingGrace(),
        judging.pairingBuckets(),
        o.getEmitMatches(),
        writing.runId(),
        writing.commitInterval(),
        writing.rawCommitInterval(),
        in.kafkaProperties(),
        in.kafkaMaxOutOfOrderness(),
        in.kafkaIdleAfter(),
        in.sourceLag(),
        in.targetLag(),
        o.getKafkaReadCommitted(),
        in.kafkaMaxRecords(),
        in.kafkaMaxReadTime(),
        in.maxEventBytes(),
        DurationParser.parse("progressInterval", o.getProgressInterval()),
        streaming,
        judging.rules(),
        writing.autoCompactFiles(),
        failOn,
        summaryJson,
        runner);
  }

  /** This run's settings under the run id a resumed job keeps. */
  public ReconcileSettings withRunId(String id) {
    return new ReconcileSettings(
        source,
        target,
        warehouse,
        keyFields,
        timeField,
        ignoreFields,
        timeout,
        allowedLateness,
        expiry,
        processingGrace,
        pairingBuckets,
        emitMatches,
        WarehouseIds.check("runId", id),
        commitInterval,
        rawCommitInterval,
        kafkaProperties,
        kafkaMaxOutOfOrderness,
        kafkaIdleAfter,
        sourceLag,
        targetLag,
        kafkaReadCommitted,
        kafkaMaxRecords,
        kafkaMaxReadTime,
        maxEventBytes,
        progressInterval,
        streaming,
        rules,
        autoCompactFiles,
        failOn,
        summaryJson,
        runner);
  }

  /** What the run reads, and how, checked. */
  private record Inputs(
      InputSpec source,
      InputSpec target,
      Map<String, String> kafkaProperties,
      Duration kafkaMaxOutOfOrderness,
      Duration kafkaIdleAfter,
      Duration sourceLag,
      Duration targetLag,
      long kafkaMaxRecords,
      Duration kafkaMaxReadTime,
      int maxEventBytes) {
    boolean bounded() {
      return ReconcileSettings.bounded(source, target, kafkaMaxRecords, kafkaMaxReadTime);
    }
  }

  private static Inputs inputs(ReconcileOptions o) {
    InputSpec source = InputSpec.parse("source", o.getSource());
    InputSpec target = InputSpec.parse("target", o.getTarget());
    Map<String, String> kafka =
        KafkaProperties.fromOptions(o.getKafkaPropertiesFile(), o.getKafkaProperties());
    Duration outOfOrder =
        DurationParser.parse("kafkaMaxOutOfOrderness", o.getKafkaMaxOutOfOrderness());
    Duration idleAfter =
        DurationParser.parseAtLeast(
            "kafkaIdleAfter", o.getKafkaIdleAfter(), Duration.standardSeconds(1));
    if (idleAfter.isLongerThan(Duration.standardHours(1))) {
      throw new IllegalArgumentException(
          "--kafkaIdleAfter=" + o.getKafkaIdleAfter() + " is too long: must be at most 1h");
    }
    Duration sourceLag = appendLag("sourceLag", o.getSourceLag());
    Duration targetLag = appendLag("targetLag", o.getTargetLag());
    if (o.getKafkaMaxRecords() < 0) {
      throw new IllegalArgumentException(
          "--kafkaMaxRecords=" + o.getKafkaMaxRecords() + " must be 0 (unbounded) or more");
    }
    Duration maxReadTime =
        o.getKafkaMaxReadTime() == null || o.getKafkaMaxReadTime().isBlank()
            ? null
            : DurationParser.parseAtLeast(
                "kafkaMaxReadTime", o.getKafkaMaxReadTime(), Duration.millis(1));
    int maxEventBytes = o.getMaxEventBytes();
    if (maxEventBytes < 1 || maxEventBytes > ParseConfig.MAX_EVENT_BYTES_LIMIT) {
      throw new IllegalArgumentException(
          "--maxEventBytes="
              + maxEventBytes
              + " is out of range: 1 to "
              + ParseConfig.MAX_EVENT_BYTES_LIMIT
              + " (64 MiB)");
    }
    return new Inputs(
        source,
        target,
        kafka,
        outOfOrder,
        idleAfter,
        sourceLag,
        targetLag,
        o.getKafkaMaxRecords(),
        maxReadTime,
        maxEventBytes);
  }

  /** How events are parsed, paired and compared, checked. */
  private record Judging(
      List<String> keyFields,
      String timeField,
      List<String> ignoreFields,
      Duration timeout,
      Duration allowedLateness,
      PairEvents.Expiry expiry,
      Duration processingGrace,
      int pairingBuckets,
      ComparisonRules rules) {}

  private static Judging judging(ReconcileOptions o, RunnerProfile runner) {
    List<String> keyFields = pointers("keyField", o.getKeyField());
    if (keyFields.isEmpty()) {
      throw new IllegalArgumentException(
          "--keyField must name at least one JSON Pointer, like /id or /orderId,/lineNo");
    }
    String timeField = o.getTimeField() == null ? "" : o.getTimeField().trim();
    if (!timeField.isEmpty()) {
      checkPointer("timeField", timeField);
    }
    List<String> ignoreFields = pointers("ignoreFields", o.getIgnoreFields());
    Duration timeout = DurationParser.parseAtLeast("timeout", o.getTimeout(), Duration.millis(1));
    // Blank means the timeout, as PairEvents defaults it: see PairEvents#withAllowedLateness.
    Duration lateness =
        o.getAllowedLateness() == null || o.getAllowedLateness().isBlank()
            ? timeout
            : DurationParser.parse("allowedLateness", o.getAllowedLateness());
    PairEvents.Expiry expiry = expiry(o);
    Duration grace =
        o.getProcessingGrace() == null || o.getProcessingGrace().isBlank()
            ? timeout
            : DurationParser.parseAtLeast(
                "processingGrace", o.getProcessingGrace(), Duration.millis(1));
    int buckets = pairingBuckets(o, runner);
    if (buckets < 1 || buckets > PairEvents.MAX_BUCKETS) {
      throw new IllegalArgumentException(
          "--pairingBuckets="
              + buckets
              + " is out of range: 1 to "
              + PairEvents.MAX_BUCKETS
              + " (1024 by default)");
    }
    // Read and validated here, so that a bad rules file stops the run before it starts.
    ComparisonRules rules =
        o.getRules() == null || o.getRules().isBlank()
            ? ComparisonRules.none()
            : ComparisonRules.fromFile(o.getRules().trim());
    return new Judging(
        keyFields, timeField, ignoreFields, timeout, lateness, expiry, grace, buckets, rules);
  }

  /** {@code --pairingBuckets} if given, else the runner's choice, else the option's default. */
  private static int pairingBuckets(ReconcileOptions o, RunnerProfile runner) {
    if (RunnerSupport.isExplicit(o, "pairingBuckets") || runner.pairingBuckets() == 0) {
      return o.getPairingBuckets();
    }
    return runner.pairingBuckets();
  }

  /** Where and how the Delta Lake writers write, checked. */
  private record Writing(
      String warehouse,
      String runId,
      Duration commitInterval,
      Duration rawCommitInterval,
      int autoCompactFiles) {}

  private static Writing writing(
      ReconcileOptions o, RunnerProfile runner, PairEvents.Expiry expiry) {
    String warehouse = o.getWarehouse();
    if (warehouse == null || warehouse.isBlank()) {
      throw new IllegalArgumentException(
          "--warehouse must not be empty: a directory or Hadoop URI for the Delta Lake tables");
    }
    // The run id names folders in the warehouse (the run's row key sidecars).
    String runId = WarehouseIds.check("runId", o.getRunId());
    Duration commit = commitInterval(o, runner);
    int autoCompactFiles = 0;
    if (o.getAutoCompact()) {
      autoCompactFiles = o.getAutoCompactFiles();
      if (autoCompactFiles < DeltaLakeIO.MIN_AUTO_COMPACT_FILES
          || autoCompactFiles > DeltaLakeIO.MAX_AUTO_COMPACT_FILES) {
        throw new IllegalArgumentException(
            "--autoCompactFiles="
                + autoCompactFiles
                + " is out of range: "
                + DeltaLakeIO.MIN_AUTO_COMPACT_FILES
                + " to "
                + DeltaLakeIO.MAX_AUTO_COMPACT_FILES
                + " small files per partition ("
                + DeltaLakeIO.DEFAULT_AUTO_COMPACT_FILES
                + " by default)");
      }
    }
    return new Writing(
        warehouse.trim(),
        runId,
        commit,
        rawCommitInterval(runner, expiry, commit),
        autoCompactFiles);
  }

  /** The declared lag of {@code side}'s records, {@code null} when it is observed. */
  public Duration appendLag(Side side) {
    return side == Side.SOURCE ? sourceLag : targetLag;
  }

  /** True when the run reads only bounded input and ends by itself. */
  public boolean bounded() {
    return bounded(source, target, kafkaMaxRecords, kafkaMaxReadTime);
  }

  private static boolean bounded(
      InputSpec source, InputSpec target, long kafkaMaxRecords, Duration kafkaMaxReadTime) {
    boolean kafka = source.isKafka() || target.isKafka();
    return !kafka || kafkaMaxRecords > 0 || kafkaMaxReadTime != null;
  }

  /**
   * The file of {@code --summaryJson}, null when blank. Checked before the run, so that a run is
   * not wasted on a summary it cannot write: a path, not a folder, under no file.
   */
  private static Path summaryJson(String value) {
    if (value == null || value.isBlank()) {
      return null;
    }
    Path path;
    try {
      path = Path.of(value.strip());
    } catch (InvalidPathException e) {
      throw new IllegalArgumentException(
          "--summaryJson=" + value + ": not a file path; give a local file such as summary.json");
    }
    if (Files.isDirectory(path)) {
      throw new IllegalArgumentException(
          "--summaryJson=" + value + " is a folder: give a file in it, such as summary.json");
    }
    for (Path p = path.toAbsolutePath().getParent(); p != null; p = p.getParent()) {
      if (Files.exists(p)) {
        if (!Files.isDirectory(p)) {
          throw new IllegalArgumentException(
              "--summaryJson=" + value + ": " + p + " is a file, not a folder");
        }
        break;
      }
    }
    return path;
  }

  /**
   * {@code --sourceLag} or {@code --targetLag}: empty (observed per partition), or 0 to {@link
   * ReadKafka#MAX_APPEND_LAG}.
   */
  private static Duration appendLag(String option, String text) {
    if (text == null || text.isBlank()) {
      return null;
    }
    Duration lag = DurationParser.parse(option, text);
    if (lag.isLongerThan(ReadKafka.MAX_APPEND_LAG)) {
      throw new IllegalArgumentException(
          "--"
              + option
              + "="
              + text
              + " is too long: must be 0s to "
              + DurationParser.format(ReadKafka.MAX_APPEND_LAG)
              + ", or empty to observe the lag per partition");
    }
    return lag;
  }

  private static PairEvents.Expiry expiry(ReconcileOptions o) {
    String e = o.getExpiry() == null ? "" : o.getExpiry().trim().toLowerCase(Locale.ROOT);
    switch (e) {
      case "event":
      case "":
        return PairEvents.Expiry.EVENT_TIME;
      case "processing":
        return PairEvents.Expiry.PROCESSING_TIME;
      default:
        throw new IllegalArgumentException(
            "--expiry=" + o.getExpiry() + " is not valid: event, processing (empty: event)");
    }
  }

  /** {@code --commitInterval} if given, else the runner's choice, else the option's default. */
  private static Duration commitInterval(ReconcileOptions o, RunnerProfile runner) {
    if (runner.commitInterval() != null && !RunnerSupport.isExplicit(o, "commitInterval")) {
      return runner.commitInterval();
    }
    return DurationParser.parseAtLeast(
        "commitInterval", o.getCommitInterval(), Duration.millis(100));
  }

  /**
   * The raw_events writer's commit interval: {@code commitInterval}, except with event-time expiry
   * on a runner that commits raw_events every micro-batch ({@link
   * RunnerProfile#rawEventsCommitEachMicroBatch}), whatever {@code --commitInterval} says.
   */
  private static Duration rawCommitInterval(
      RunnerProfile runner, PairEvents.Expiry expiry, Duration commitInterval) {
    if (runner.rawEventsCommitEachMicroBatch() && expiry == PairEvents.Expiry.EVENT_TIME) {
      return DeltaLakeIO.COMMIT_EACH_MICRO_BATCH;
    }
    return commitInterval;
  }

  private static List<String> pointers(String option, String text) {
    List<String> result = new ArrayList<>();
    if (text == null || text.isBlank()) {
      return result;
    }
    for (String p : text.split(",")) {
      String t = p.trim();
      if (!t.isEmpty()) {
        checkPointer(option, t);
        result.add(t);
      }
    }
    return result;
  }

  private static void checkPointer(String option, String pointer) {
    if (!pointer.startsWith("/")) {
      throw new IllegalArgumentException(
          "--"
              + option
              + ": '"
              + pointer
              + "' is not a JSON Pointer (RFC 6901): it must start with '/', like /id or"
              + " /customer/id");
    }
  }
}
