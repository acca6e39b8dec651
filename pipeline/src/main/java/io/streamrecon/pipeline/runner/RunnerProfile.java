package io.streamrecon.pipeline.runner;

import io.streamrecon.pipeline.io.ReadKafka;
import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.sdk.options.PipelineOptions;
import org.joda.time.Duration;

/**
 * Every choice of a run that depends on its runner, made once, before the graph is built: the
 * settings take their runner-dependent defaults from it and the graph its shape. The runner's
 * {@link RunnerSupport} makes it ({@link RunnerSupport#profile}); the DirectRunner's is made here,
 * and a runner with no support registered gets {@link #untuned}. This is the one class that asks
 * which runner the options name.
 *
 * @param runnerName the simple name of the options' runner class, for logs and reports; {@code
 *     null} when the options name none
 * @param directRunner true on the DirectRunner: it keeps its state in memory only, so an unbounded
 *     run there loses its open entries in a crash, and its per-element immutability and
 *     encodability checks can be turned off for production runs ({@link #isDirectRunner})
 * @param pairingBuckets the pairing's bucket count unless {@code --pairingBuckets} is given; 0 for
 *     the option's default
 * @param commitInterval how often the Delta Lake writers commit unless {@code --commitInterval} is
 *     given; {@code null} for the option's default
 * @param rawEventsCommitEachMicroBatch true when, with event-time expiry, the raw_events writer
 *     commits every micro-batch whatever {@code --commitInterval} says
 * @param parsedInputsAsOneCollection true when an unbounded run's parsed inputs go to the
 *     raw_events writer as one collection, as a bounded run's always do; false for ParseEvents' two
 *     outputs
 * @param polledWatermark true when event-time expiry reads the runner's watermark through the
 *     runner module's {@code WatermarkSource} on every call instead of setting event-time timers
 * @param kafkaSplits how an unbounded Kafka read splits its topic
 */
public record RunnerProfile(
    String runnerName,
    boolean directRunner,
    int pairingBuckets,
    Duration commitInterval,
    boolean rawEventsCommitEachMicroBatch,
    boolean parsedInputsAsOneCollection,
    boolean polledWatermark,
    ReadKafka.Splits kafkaSplits) {

  /**
   * Pairing buckets on the DirectRunner unless {@code --pairingBuckets} is given. The DirectRunner
   * scans every pending timer of every key on each watermark refresh and fires timers one bundle
   * per key, so its cost follows the number of keys. It runs three threads and restores no state,
   * so neither parallelism nor restarts need more keys.
   */
  static final int DIRECT_RUNNER_BUCKETS = 64;

  public RunnerProfile {
    if (kafkaSplits == null) {
      throw new IllegalArgumentException("kafkaSplits must be set");
    }
    if (pairingBuckets < 0) {
      throw new IllegalArgumentException("pairingBuckets must be 0 (the default) or more");
    }
  }

  /**
   * The profile of the options' runner for a run that is {@code streaming} (unbounded input, or
   * {@code --streaming}) or not.
   */
  public static RunnerProfile of(PipelineOptions options, boolean streaming) {
    if (isDirectRunner(options)) {
      return new RunnerProfile(
          runnerName(options),
          true,
          DIRECT_RUNNER_BUCKETS,
          null,
          false,
          false,
          false,
          ReadKafka.Splits.KAFKA_IO);
    }
    return RunnerSupport.find(options)
        .map(s -> s.profile(options, streaming))
        .orElseGet(() -> untuned(options));
  }

  /**
   * The options' runner's name and no runner-specific choice: every default as the options give it,
   * KafkaIO's own splits, the graph as a streaming runner with event-time timers needs it.
   */
  public static RunnerProfile untuned(PipelineOptions options) {
    return new RunnerProfile(
        runnerName(options), false, 0, null, false, false, false, ReadKafka.Splits.KAFKA_IO);
  }

  /**
   * True when the options run on the DirectRunner, Beam's default when none is named. Asked apart
   * from a profile where a caller tunes the options before it has settings.
   */
  public static boolean isDirectRunner(PipelineOptions options) {
    return options.getRunner() == null || DirectRunner.class.isAssignableFrom(options.getRunner());
  }

  /** The simple name of the options' runner class, {@code null} when none is named. */
  public static String runnerName(PipelineOptions options) {
    return options.getRunner() == null ? null : options.getRunner().getSimpleName();
  }

  /** This profile with {@code pairingBuckets} buckets unless {@code --pairingBuckets} is given. */
  public RunnerProfile withPairingBuckets(int buckets) {
    return new RunnerProfile(
        runnerName,
        directRunner,
        buckets,
        commitInterval,
        rawEventsCommitEachMicroBatch,
        parsedInputsAsOneCollection,
        polledWatermark,
        kafkaSplits);
  }

  /** This profile committing every {@code interval} unless {@code --commitInterval} is given. */
  public RunnerProfile withCommitInterval(Duration interval) {
    return new RunnerProfile(
        runnerName,
        directRunner,
        pairingBuckets,
        interval,
        rawEventsCommitEachMicroBatch,
        parsedInputsAsOneCollection,
        polledWatermark,
        kafkaSplits);
  }

  /** This profile with {@link #rawEventsCommitEachMicroBatch} set. */
  public RunnerProfile withRawEventsCommitEachMicroBatch() {
    return new RunnerProfile(
        runnerName,
        directRunner,
        pairingBuckets,
        commitInterval,
        true,
        parsedInputsAsOneCollection,
        polledWatermark,
        kafkaSplits);
  }

  /** This profile with {@link #parsedInputsAsOneCollection} set. */
  public RunnerProfile withParsedInputsAsOneCollection() {
    return new RunnerProfile(
        runnerName,
        directRunner,
        pairingBuckets,
        commitInterval,
        rawEventsCommitEachMicroBatch,
        true,
        polledWatermark,
        kafkaSplits);
  }

  /** This profile with {@link #polledWatermark} set. */
  public RunnerProfile withPolledWatermark() {
    return new RunnerProfile(
        runnerName,
        directRunner,
        pairingBuckets,
        commitInterval,
        rawEventsCommitEachMicroBatch,
        parsedInputsAsOneCollection,
        true,
        kafkaSplits);
  }

  /** This profile splitting an unbounded Kafka read as {@code splits} says. */
  public RunnerProfile withKafkaSplits(ReadKafka.Splits splits) {
    return new RunnerProfile(
        runnerName,
        directRunner,
        pairingBuckets,
        commitInterval,
        rawEventsCommitEachMicroBatch,
        parsedInputsAsOneCollection,
        polledWatermark,
        splits);
  }
}
