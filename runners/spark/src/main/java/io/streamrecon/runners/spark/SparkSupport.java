package io.streamrecon.runners.spark;

import io.streamrecon.pipeline.io.ReadKafka;
import io.streamrecon.pipeline.runner.JobIdentity;
import io.streamrecon.pipeline.runner.RunnerProfile;
import io.streamrecon.pipeline.runner.RunnerSupport;
import io.streamrecon.transforms.deltalake.DeltaLakeIO;
import org.apache.beam.runners.spark.SparkPipelineOptions;
import org.apache.beam.runners.spark.SparkRunner;
import org.apache.beam.sdk.options.ExperimentalOptions;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.StreamingOptions;

/**
 * The classic SparkRunner's needs: its {@link #profile}; in batch, three settings that keep a run's
 * heap independent of its input size (see {@link #tune}); in streaming, {@link SparkRecovery}'s
 * checkpoints.
 */
public final class SparkSupport implements RunnerSupport {
  /**
   * Pairing buckets on Spark streaming unless {@code --pairingBuckets} is given. Beam's Spark state
   * codes a bucket's whole state on every call of the pairing, so the pairing's cost per event
   * follows the entries per bucket: four times the default bucket count codes a quarter of the
   * entries, and the runner's per-key work each batch (a marker per key through the DoFn) stays
   * small beside it (bench/REPORT.md, "Where a Spark micro-batch's time goes").
   */
  public static final int STREAMING_BUCKETS = 4096;

  /** Beam's default {@code --storageLevel}. */
  static final String DEFAULT_STORAGE_LEVEL = "MEMORY_ONLY";

  /** The {@code --storageLevel} of a batch run unless the user chose another. */
  static final String BATCH_STORAGE_LEVEL = "DISK_ONLY";

  /** Spark's count of elements after which a sorter or aggregation map spills, memory or not. */
  static final String SPILL_THRESHOLD = "spark.shuffle.spill.numElementsForceSpillThreshold";

  /**
   * The spill threshold of a batch run: below what one task of a 100k-record run sorts (about
   * 50,000 pointers), so that a larger input does not fill the sorter further.
   */
  static final String BATCH_SPILL_THRESHOLD = "25000";

  /** The Beam experiment that lets the classic Spark runner stream a splittable DoFn's output. */
  static final String SDF_BOUNDED_OUTPUT = "use_bounded_concurrent_output_for_sdf";

  private final SparkRecovery recovery = new SparkRecovery();

  @Override
  public boolean handles(PipelineOptions options) {
    return options.getRunner() != null && SparkRunner.class.isAssignableFrom(options.getRunner());
  }

  /**
   * An unbounded Kafka read stays one split ({@link ReadKafka.Splits#ONE_SPLIT}): the runner takes
   * the latest of a source's split watermarks, which would pass a partition that is behind. In
   * streaming:
   *
   * <ul>
   *   <li>{@value #STREAMING_BUCKETS} pairing buckets ({@link #STREAMING_BUCKETS}).
   *   <li>A commit every micro-batch ({@link DeltaLakeIO#COMMIT_EACH_MICRO_BATCH}) unless {@code
   *       --commitInterval} is given: the runner evaluates a commit trigger once per batch, so a
   *       delay there commits the data of two or three batches in one, and the batch that carries
   *       it does their pairing, payload fetches and verdict writes at once.
   *   <li>With event-time expiry, raw_events committed every micro-batch whatever {@code
   *       --commitInterval} says. The pairing judges lateness and expiry by the sources' watermark
   *       as of the last completed micro-batch, and it receives an event only once raw_events has
   *       committed it (the event's pointer names the commit). A commit held for a later batch
   *       hands the pairing events whose own micro-batch has already moved that watermark, and
   *       after a restart with a backlog one batch can move it past all of them. Committed in the
   *       batch that read them, an event meets the watermark of the batches before its own, which
   *       its partition's watermark cannot have passed. (On Flink and the DirectRunner the commit
   *       step holds the watermark back until it has emitted, so any interval is safe there.)
   *   <li>The parsed inputs as one collection: with ParseEvents' two outputs the runner persists
   *       the parsed events to read each output back, a Java serialization and a decoding per
   *       output of every event of every micro-batch. (A Spark streaming job restores the graph it
   *       was started with from its checkpoint.)
   *   <li>Event-time expiry by a polled watermark ({@link SparkWatermarkSource}): the runner
   *       rejects event-time timers in streaming mode.
   * </ul>
   */
  @Override
  public RunnerProfile profile(PipelineOptions options, boolean streaming) {
    RunnerProfile batch =
        RunnerProfile.untuned(options).withKafkaSplits(ReadKafka.Splits.ONE_SPLIT);
    if (!streaming) {
      return batch;
    }
    return batch
        .withPairingBuckets(STREAMING_BUCKETS)
        .withCommitInterval(DeltaLakeIO.COMMIT_EACH_MICRO_BATCH)
        .withRawEventsCommitEachMicroBatch()
        .withParsedInputsAsOneCollection()
        .withPolledWatermark();
  }

  /**
   * Metrics for Prometheus ({@link SparkPrometheus}); in batch also {@link #boundStorage}, {@link
   * #boundSort}, {@link #streamReads}.
   */
  @Override
  public void tune(PipelineOptions options) {
    SparkPrometheus.exportByDefault();
    if (options.as(StreamingOptions.class).isStreaming()) {
      return;
    }
    boundStorage(options);
    boundSort();
    streamReads(options);
  }

  @Override
  public Recovery configure(PipelineOptions options, JobIdentity job) {
    return recovery.configure(options, job);
  }

  /**
   * Persists to local disk only unless another level was chosen. ParseEvents has two consumed
   * outputs in a streaming graph and the Delta Lake writers more, so the classic SparkRunner
   * persists such a step's whole output at {@code --storageLevel} and never releases it (a ParDo
   * with more than one consumed output; {@code --cacheDisabled} does not apply there). {@code
   * MEMORY_ONLY} keeps it as live objects, {@code MEMORY_AND_DISK_SER} as coded bytes in memory
   * until Spark's storage memory is full: either way heap grows with the input. {@code DISK_ONLY}
   * writes the coded partitions to {@code spark.local.dir} once and streams them back for each
   * consumer, at the cost of local disk about the size of the input (not persisting would parse
   * every event twice). Streaming is left alone: the runner caches its micro-batches serialized in
   * memory whatever the level, and Spark Streaming releases them. Only an explicit level other than
   * Beam's default is kept.
   */
  static void boundStorage(PipelineOptions options) {
    SparkPipelineOptions spark = options.as(SparkPipelineOptions.class);
    String level = spark.getStorageLevel();
    if (level == null || DEFAULT_STORAGE_LEVEL.equals(level)) {
      spark.setStorageLevel(BATCH_STORAGE_LEVEL);
    }
  }

  /**
   * Makes Spark's sorters spill every {@value #BATCH_SPILL_THRESHOLD} elements unless {@value
   * #SPILL_THRESHOLD} is already set. PairEvents sorts each bucket's pointers by event time
   * ({@code @RequiresTimeSortedInput}, a {@code repartitionAndSortWithinPartitions} on this
   * runner), and Spark's sorter otherwise spills only when execution memory runs out, so the sort
   * would hold every pointer of the run on the heap. With the threshold it holds at most that many
   * per running task, whatever the input size.
   *
   * <p>Spark reads its settings from system properties when the runner creates its context ({@code
   * new SparkConf()}) and offers no other hook through Beam's options, so this sets the system
   * property before the context is made. A context the caller provides ({@code
   * --usesProvidedSparkContext}) keeps its own configuration.
   */
  static void boundSort() {
    if (System.getProperty(SPILL_THRESHOLD) == null) {
      System.setProperty(SPILL_THRESHOLD, BATCH_SPILL_THRESHOLD);
    }
  }

  /**
   * Turns on {@value #SDF_BOUNDED_OUTPUT} unless it is set. The runner otherwise keeps every output
   * of one input element in a list before passing any on ({@code
   * UnboundedSparkInputDataProcessor}), so reading a file, one input element, held all its lines.
   * With the experiment a splittable DoFn's outputs go on through a bounded queue filled by a
   * second thread ({@code BoundedSparkInputDataProcessor}). The file reader is one, and so is
   * {@code DeltaLakeIO}'s pointer expansion; other steps are unchanged.
   */
  static void streamReads(PipelineOptions options) {
    ExperimentalOptions.addExperiment(options.as(ExperimentalOptions.class), SDF_BOUNDED_OUTPUT);
  }
}
