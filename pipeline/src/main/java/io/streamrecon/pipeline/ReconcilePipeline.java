package io.streamrecon.pipeline;

import io.streamrecon.deltalake.DeltaLakeIO;
import io.streamrecon.model.DeadLetter;
import io.streamrecon.model.DeltaRecord;
import io.streamrecon.model.EventRef;
import io.streamrecon.model.ModelCoders;
import io.streamrecon.model.RawInput;
import io.streamrecon.model.Side;
import io.streamrecon.model.Status;
import io.streamrecon.model.Verdict;
import io.streamrecon.transforms.Diff;
import io.streamrecon.transforms.PairEvents;
import io.streamrecon.transforms.ParseEvents;
import io.streamrecon.transforms.RecordVerdicts;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.beam.runners.direct.DirectOptions;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.coders.VoidCoder;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.options.ExperimentalOptions;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.PBegin;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds and runs the reconciliation graph (SPEC §1):
 *
 * <pre>
 * ReadSource, ReadTarget ─► MergeSides ─► ParseEvents ─► WriteRawEvents ─┬► PairEvents
 *                                            │                            └► CountRawEvents
 *                                            │ dead letters ─► CountDeadLetters ─► WriteDeadLetters
 * PairEvents ─ MISMATCHES ─► FetchPayloads ─► DiffPayloads ─────────────┐
 *            ─ VERDICTS ─► SelectReportedVerdicts ─► RecordVerdicts ─────┴► MergeDeltaRecords ─► WriteDeltas
 *            ─ LATE ─► WriteLateEvents
 * </pre>
 */
public final class ReconcilePipeline {
  private static final Logger LOG = LoggerFactory.getLogger(ReconcilePipeline.class);

  private ReconcilePipeline() {}

  /** Adds the graph for the given options to {@code pipeline}; the options are validated. */
  public static Pipeline build(Pipeline pipeline, ReconcileOptions options) {
    return build(pipeline, ReconcileSettings.from(options));
  }

  /** Adds the graph for already validated settings to {@code pipeline}. */
  public static Pipeline build(Pipeline pipeline, ReconcileSettings s) {
    return build(pipeline, s, WriterIdentity.perProcess(s.runId()));
  }

  /**
   * Adds the graph for validated settings; {@code writer} says how the Delta Lake writers identify
   * their transactions (stable across restarts of a job whose runner restores state).
   */
  public static Pipeline build(Pipeline pipeline, ReconcileSettings s, WriterIdentity writer) {
    PCollection<RawInput> source = pipeline.apply("ReadSource", read(Side.SOURCE, s.source(), s));
    PCollection<RawInput> target = pipeline.apply("ReadTarget", read(Side.TARGET, s.target(), s));

    PCollection<RawInput> merged =
        PCollectionList.of(source)
            .and(target)
            .apply("MergeSides", Flatten.pCollections())
            .setCoder(ModelCoders.RawInputCoder.of());
    ParseEvents parse =
        ParseEvents.create()
            .withKeyFields(s.keyFields())
            .withTimeField(s.timeField())
            .withIgnoreFields(s.ignoreFields())
            .withRules(s.rules())
            .withMaxEventBytes(s.maxEventBytes());
    PCollection<DeadLetter> deadLetters;
    PCollection<EventRef> stored;
    if (merged.isBounded() == PCollection.IsBounded.BOUNDED) {
      // One collection of parse outcomes, consumed once by the writer, which passes the dead
      // letters on. With ParseEvents' two outputs the classic SparkRunner persists the parsed
      // events, payloads and all, to read each output back: the largest cost of a batch run
      // (bench/REPORT.md, "Parsed events straight into the writer"). Streaming keeps the two
      // outputs: its graph, and with it the names its restored jobs' commits carry, stays.
      PCollectionTuple written =
          merged
              .apply("ParseEvents", parse.outcomes())
              .apply(
                  "WriteRawEvents",
                  writerSettings(DeltaLakeIO.writeRawEvents(), s, writer).fromOutcomes());
      deadLetters = written.get(DeltaLakeIO.FromOutcomes.DEAD_LETTERS);
      stored = written.get(DeltaLakeIO.FromOutcomes.EVENT_REFS);
    } else {
      PCollectionTuple parsed = merged.apply("ParseEvents", parse);
      deadLetters = parsed.get(ParseEvents.DEAD_LETTERS);
      stored =
          parsed
              .get(ParseEvents.EVENTS)
              .apply(
                  "WriteRawEvents",
                  writerSettings(DeltaLakeIO.writeRawEvents(), s, writer));
    }

    deadLetters
        .apply("CountDeadLetters", ParDo.of(new CountDeadLettersFn()))
        .setCoder(ModelCoders.DeadLetterCoder.of())
        .apply(
            "WriteDeadLetters",
            writerSettings(DeltaLakeIO.writeDeadLetters(), s, writer));

    // A branch of its own, not a step before PairEvents: with two consumers the classic
    // SparkRunner caches the write's output, so each micro-batch commits and counts it once. In
    // line, the processing-time PairEvents read its uncached input twice per micro-batch (once
    // for its timer keys), re-running the commit (skipped as a replay) and doubling the count.
    stored.apply("CountRawEvents", ParDo.of(new CountRawEventsFn())).setCoder(VoidCoder.of());

    judge(stored, s, writer);
    return pipeline;
  }

  /**
   * The judging half of the graph, shared by {@code run} and {@code replay}: pairs the stored
   * events, fetches and diffs the payloads of MISMATCHes, and writes the DeltaRecords and late
   * events ({@code PairEvents}, {@code FetchPayloads}, {@code DiffPayloads}, {@code
   * RecordVerdicts}, {@code WriteDeltas}, {@code WriteLateEvents}). The steps are applied at the
   * top level of {@code stored}'s pipeline under the names a live run's restored jobs expect.
   *
   * @param stored events already in {@code raw_events}, each timestamped with its event time;
   *     their pointers name the stored rows
   */
  public static void judge(
      PCollection<EventRef> stored, ReconcileSettings s, WriterIdentity writer) {
    PCollectionTuple paired =
        stored.apply(
            "PairEvents",
            PairEvents.create()
                .withTimeout(s.timeout())
                .withAllowedLateness(s.allowedLateness())
                .withExpiry(
                    s.expiry() == ExpiryClock.PROCESSING
                        ? PairEvents.Expiry.PROCESSING_TIME
                        : PairEvents.Expiry.EVENT_TIME)
                .withProcessingGrace(s.processingGrace())
                .withBuckets(s.pairingBuckets())
                .withPlainMatches(s.emitMatches()));

    PCollection<DeltaRecord> diffed =
        paired
            .get(PairEvents.MISMATCHES)
            .apply("FetchPayloads", DeltaLakeIO.fetchPayloads().withWarehouse(s.warehouse()))
            .apply(
                "DiffPayloads",
                Diff.create()
                    .withIgnoreFields(s.ignoreFields())
                    .withRules(s.rules())
                    .withEmitMatches(s.emitMatches())
                    .withRunId(s.runId()));

    PCollection<DeltaRecord> recorded =
        paired
            .get(PairEvents.VERDICTS)
            .apply("SelectReportedVerdicts", ParDo.of(new SelectReportedFn(s.emitMatches())))
            .setCoder(ModelCoders.VerdictCoder.of())
            .apply(
                "RecordVerdicts",
                RecordVerdicts.create().withRunId(s.runId()).withRulesId(s.rules().id()));

    PCollectionList.of(diffed)
        .and(recorded)
        .apply("MergeDeltaRecords", Flatten.pCollections())
        .setCoder(ModelCoders.DeltaRecordCoder.of())
        .apply(
            "WriteDeltas",
            writerSettings(DeltaLakeIO.writeDeltas(), s, writer));

    paired
        .get(PairEvents.LATE)
        .apply(
            "WriteLateEvents",
            writerSettings(DeltaLakeIO.writeLateEvents(), s, writer));
  }

  /**
   * The settings every Delta Lake writer gets; the one place to change when DeltaLakeIO's writers
   * gain options.
   */
  static DeltaLakeIO.WriteRawEvents writerSettings(
      DeltaLakeIO.WriteRawEvents w, ReconcileSettings s, WriterIdentity writer) {
    return w.withWarehouse(s.warehouse())
        .withRunId(s.runId())
        .withCommitInterval(s.commitInterval())
        .withWriterId(writer.writerId())
        .withStableInput(writer.stableInput())
        .withAutoCompact(s.autoCompactFiles());
  }

  /** As {@link #writerSettings(DeltaLakeIO.WriteRawEvents, ReconcileSettings, WriterIdentity)}. */
  static <T> DeltaLakeIO.Write<T> writerSettings(
      DeltaLakeIO.Write<T> w, ReconcileSettings s, WriterIdentity writer) {
    return w.withWarehouse(s.warehouse())
        .withRunId(s.runId())
        .withCommitInterval(s.commitInterval())
        .withWriterId(writer.writerId())
        .withStableInput(writer.stableInput())
        .withAutoCompact(s.autoCompactFiles());
  }

  /**
   * How the Delta Lake writers of one process name their transactions.
   *
   * @param writerId the SetTransaction app id stem: the job's run id when the runner restores
   *     state (so replayed commits are recognised), else unique per process (a process that starts
   *     from empty state must not have its commits mistaken for replays of an earlier one's)
   * @param stableInput true where the runner supports {@code @RequiresStableInput} (Flink)
   */
  public record WriterIdentity(String writerId, boolean stableInput) {
    /** A writer id no other process shares: for bounded runs and runners without restore. */
    public static WriterIdentity perProcess(String runId) {
      return new WriterIdentity(
          runId + "/" + java.util.UUID.randomUUID().toString().substring(0, 8), false);
    }
  }

  /**
   * Validates the options, checks inputs and warehouse, runs the pipeline and, for a bounded run,
   * waits for it and prints the summary to standard output. An unbounded run logs progress every
   * {@code --progressInterval} until it is cancelled.
   */
  public static Outcome run(ReconcileOptions options) {
    ReconcileSettings s = ReconcileSettings.from(options);
    PipelineResult result = start(options);
    ScheduledExecutorService progress = startProgress(result, s);
    StopOnSignal stop = StopOnSignal.install(result);
    try {
      result.waitUntilFinish();
    } finally {
      stop.finished();
      if (progress != null) {
        progress.shutdownNow();
      }
    }
    if (s.bounded() && result.getState() == PipelineResult.State.DONE) {
      removeRowKeySidecars(s);
    }
    return new Outcome(result, Summary.of(result));
  }

  /**
   * A finished bounded run's row key sidecars (its large data files' keys, kept on storage instead
   * of in the commit's grouped pane) are no longer needed. Failing to remove them costs only disk:
   * VACUUM removes them later.
   */
  static void removeRowKeySidecars(ReconcileSettings s) {
    try {
      io.streamrecon.deltalake.DeltaLakeMaintenance.removeRowKeySidecars(
          new org.apache.hadoop.conf.Configuration(), s.warehouse(), s.runId());
    } catch (java.io.IOException | RuntimeException e) {
      LOG.warn("could not remove the row key sidecars of run {}; VACUUM will", s.runId(), e);
    }
  }

  /**
   * Validates the options, checks inputs and warehouse, and starts the pipeline without waiting:
   * for unbounded (Kafka) runs that the caller stops with {@link PipelineResult#cancel}.
   */
  public static PipelineResult start(ReconcileOptions options) {
    ReconcileSettings s = ReconcileSettings.from(options);
    if (s.streaming()) {
      options.setStreaming(true);
    }
    Preflight.check(options, s);
    WriterIdentity writer = WriterIdentity.perProcess(s.runId());
    if (!s.bounded()) {
      writer = prepareRecovery(options, s);
      s = ReconcileSettings.from(options);
    }
    RulesArchive.save(s.warehouse(), s.rules());
    // The DirectRunner blocks in run() by default; start() must return while an unbounded run goes on.
    options.as(DirectOptions.class).setBlockOnRun(false);
    boundSparkBatchStorage(options);
    boundSparkBatchSort(options);
    streamSparkBatchReads(options);
    Pipeline pipeline = build(Pipeline.create(options), s, writer);
    LOG.info(
        "run {}: source {}, target {}, warehouse {}, timeout {}, expiry {}, rules {}",
        s.runId(),
        s.source(),
        s.target(),
        s.warehouse(),
        DurationParser.format(s.timeout()),
        s.expiry(),
        s.rules().id() == null ? "none" : s.rules().id());
    return pipeline.run();
  }

  /** The Spark runner's options interface holding {@code storageLevel}. */
  static final String SPARK_OPTIONS = "org.apache.beam.runners.spark.SparkCommonPipelineOptions";

  static final String SPARK_DEFAULT_STORAGE_LEVEL = "MEMORY_ONLY";
  static final String SPARK_BATCH_STORAGE_LEVEL = "DISK_ONLY";

  /**
   * On the SparkRunner in batch, persists to local disk only unless another level was chosen.
   * ParseEvents has two consumed outputs (events, dead letters), so the classic SparkRunner
   * persists its whole output, payloads included, at {@code --storageLevel} and never releases it
   * (Beam 2.70 {@code TransformTranslator}, ParDo with more than one consumed output; {@code
   * --cacheDisabled} does not apply there). {@code MEMORY_ONLY} (Beam's default) keeps it as live
   * objects: 7.5 GB at 1M records. {@code MEMORY_AND_DISK_SER} keeps coded bytes, but in memory
   * until Spark's storage memory is full, so live heap still grew with the input (676 MB at 100k,
   * the size of the input). {@code DISK_ONLY} writes the coded partitions to {@code
   * spark.local.dir} once and streams them back for each consumer: heap does not depend on input
   * size, at the cost of local disk about the size of the input (not persisting would parse every
   * event twice, and parsing is about a third of the CPU). Streaming is left alone: the runner
   * caches its micro-batches serialized in memory whatever the level, and Spark Streaming releases
   * them.
   *
   * <p>Only an explicit {@code --storageLevel} other than Beam's default is kept. The option is
   * reached through the runner's own interface by reflection: this module has no compile
   * dependency on the Spark runner, and Beam rejects a second declaration of the property unless
   * its {@code @Default} is the runner's own factory.
   */
  static void boundSparkBatchStorage(PipelineOptions options) {
    boundSparkBatchStorage(options, SPARK_OPTIONS);
  }

  static void boundSparkBatchStorage(PipelineOptions options, String optionsInterface) {
    if (!Runners.isSparkBatch(options)) {
      return;
    }
    try {
      Class<? extends PipelineOptions> sparkOptions =
          Class.forName(optionsInterface, true, options.getRunner().getClassLoader())
              .asSubclass(PipelineOptions.class);
      Object view = options.as(sparkOptions);
      Object level = sparkOptions.getMethod("getStorageLevel").invoke(view);
      if (level == null || SPARK_DEFAULT_STORAGE_LEVEL.equals(level)) {
        sparkOptions
            .getMethod("setStorageLevel", String.class)
            .invoke(view, SPARK_BATCH_STORAGE_LEVEL);
      }
    } catch (ClassNotFoundException e) {
      // A runner named like Spark's without Spark's options: nothing to set.
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot set the SparkRunner's storageLevel", e);
    }
  }

  /**
   * For a production run (the command line, the benchmark) on the DirectRunner: turns off its
   * immutability and encodability checks unless the user set them. They encode every element
   * before and after every step and clone it into the next bundle, to catch a DoFn that mutates its
   * input or a coder that does not round-trip. Tests that run the pipeline through this class keep
   * them on; at 100k records they made a run 2.7 times slower (142 s with them, 52 s without;
   * bench/REPORT.md). Other runners never make these checks.
   */
  public static void skipDirectRunnerChecks(PipelineOptions options) {
    if (!Runners.isDirect(options)) {
      return;
    }
    DirectOptions direct = options.as(DirectOptions.class);
    if (!RunnerRecovery.isExplicit(options, "enforceImmutability")) {
      direct.setEnforceImmutability(false);
    }
    if (!RunnerRecovery.isExplicit(options, "enforceEncodability")) {
      direct.setEnforceEncodability(false);
    }
  }

  /** Spark's count of elements after which a sorter or aggregation map spills, memory or not. */
  public static final String SPARK_SPILL_THRESHOLD =
      "spark.shuffle.spill.numElementsForceSpillThreshold";

  /**
   * The spill threshold set for a batch run on the SparkRunner. Below what one task of a 100k-record
   * run sorts (about 50,000 pointers), so that a larger input does not fill the sorter further:
   * 100,000 let a 1M run hold twice a 100k run's pointers (issue 9, point 5).
   */
  static final String SPARK_BATCH_SPILL_THRESHOLD = "25000";

  /**
   * On the SparkRunner in batch, makes Spark's sorters spill every {@value
   * #SPARK_BATCH_SPILL_THRESHOLD} elements unless {@value #SPARK_SPILL_THRESHOLD} is already set.
   * PairEvents sorts each bucket's pointers by event time before pairing
   * ({@code @RequiresTimeSortedInput}, a {@code repartitionAndSortWithinPartitions} on this
   * runner), and Spark's sorter otherwise spills only when execution memory runs out, so the sort
   * held every pointer of the run on the heap (590 MB of coded pointers at 1M records). With the
   * threshold it holds at most that many per running task, whatever the input size.
   *
   * <p>Spark reads its settings from system properties when the runner creates its context ({@code
   * new SparkConf()}), and offers no other hook through Beam's options, so this sets the system
   * property; call it before the context is made. A context the caller provides ({@code
   * --usesProvidedSparkContext}) keeps its own configuration.
   */
  public static void boundSparkBatchSort(PipelineOptions options) {
    if (!Runners.isSparkBatch(options)) {
      return;
    }
    if (System.getProperty(SPARK_SPILL_THRESHOLD) == null) {
      System.setProperty(SPARK_SPILL_THRESHOLD, SPARK_BATCH_SPILL_THRESHOLD);
    }
  }

  /** The Beam experiment that lets the classic Spark runner stream a splittable DoFn's output. */
  static final String SPARK_SDF_BOUNDED_OUTPUT = "use_bounded_concurrent_output_for_sdf";

  /**
   * On the SparkRunner in batch, turns on {@value #SPARK_SDF_BOUNDED_OUTPUT} unless it is set.
   * That runner keeps every output of one input element in a list before passing any on (Beam 2.70
   * {@code UnboundedSparkInputDataProcessor}), so reading a file, one input element, held all its
   * lines: heap followed file size. With the experiment, a splittable DoFn's outputs go on through
   * a queue of 500 filled by a second thread ({@code BoundedSparkInputDataProcessor}). {@link
   * ReadJsonLines} reads with one, and {@code DeltaLakeIO}'s ExpandPointers (a committed file's
   * pointers, one input element) expands a bounded input with one. Other steps are unchanged: the
   * experiment applies only to splittable DoFns.
   */
  public static void streamSparkBatchReads(PipelineOptions options) {
    if (Runners.isSparkBatch(options)) {
      // Adds it only if it is not there yet.
      ExperimentalOptions.addExperiment(
          options.as(ExperimentalOptions.class), SPARK_SDF_BOUNDED_OUTPUT);
    }
  }

  /**
   * For an unbounded run: refuses the DirectRunner unless state loss is accepted, finds or creates
   * the job's manifest (its run id goes into the options), and lets the runner's {@link
   * RunnerRecovery} point its checkpoints at the job's root and restore the newest.
   */
  static WriterIdentity prepareRecovery(ReconcileOptions options, ReconcileSettings s) {
    if (Runners.isDirect(options) && !options.getAllowStateLossOnCrash()) {
      throw new IllegalArgumentException(
          "an unbounded Kafka run on the DirectRunner keeps its state in memory only, so a crash"
              + " loses open entries: use --runner=FlinkRunner (embedded, restarts from its"
              + " checkpoints), bound the run with --kafkaMaxRecords or --kafkaMaxReadTime, or pass"
              + " --allowStateLossOnCrash=true");
    }
    JobIdentity job = JobCheckpoints.prepare(options, s);
    options.setJobName(job.jobName());
    options.setRunId(job.runId());
    RunnerRecovery.Recovery recovery = null;
    for (RunnerRecovery r : java.util.ServiceLoader.load(RunnerRecovery.class)) {
      if (r.handles(options)) {
        recovery = r.configure(options, job);
        break;
      }
    }
    if (recovery == null) {
      LOG.warn(
          "job {} (run {}): runner {} keeps no checkpoints here; a crash loses its open entries",
          job.jobName(),
          job.runId(),
          options.getRunner() == null ? "?" : options.getRunner().getSimpleName());
      return WriterIdentity.perProcess(job.runId());
    }
    LOG.info(
        "job {} (run {}, {}): {}",
        job.jobName(),
        job.runId(),
        job.resumed() ? "resumed" : "first start",
        recovery.description());
    return recovery.restoresState()
        ? new WriterIdentity(job.runId(), recovery.stableInput())
        : WriterIdentity.perProcess(job.runId());
  }

  /** A finished run: Beam's result and the counts. */
  public record Outcome(PipelineResult result, Summary summary) {}

  private static ScheduledExecutorService startProgress(PipelineResult result, ReconcileSettings s) {
    long every = s.progressInterval().getMillis();
    if (every <= 0) {
      return null;
    }
    ScheduledExecutorService exec =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "streamrecon-progress");
              t.setDaemon(true);
              return t;
            });
    exec.scheduleAtFixedRate(
        () -> {
          try {
            LOG.info(Summary.of(result).progressLine());
          } catch (RuntimeException e) {
            LOG.debug("metrics not available yet", e);
          }
        },
        every,
        every,
        TimeUnit.MILLISECONDS);
    return exec;
  }

  private static PTransform<PBegin, PCollection<RawInput>> read(
      Side side, InputSpec spec, ReconcileSettings s) {
    if (!spec.isKafka()) {
      return ReadJsonLines.of(side, spec.filePattern()).withMaxEventBytes(s.maxEventBytes());
    }
    return ReadKafka.of(side, spec)
        .withConsumerProperties(s.kafkaProperties())
        .withTimeField(s.timeField())
        .withMaxOutOfOrderness(s.kafkaMaxOutOfOrderness())
        .withIdleAfter(s.kafkaIdleAfter())
        .withReadCommitted(s.kafkaReadCommitted())
        .withMaxRecords(s.kafkaMaxRecords())
        .withMaxReadTime(s.kafkaMaxReadTime());
  }

  /**
   * Keeps the verdicts that become DeltaRecords: MISSING always; MATCH only with {@code
   * --emitMatches} or when it supersedes an earlier verdict (a resolved mismatch must be visible).
   * PairEvents already leaves plain MATCHes out when {@code --emitMatches} is off ({@code
   * withPlainMatches}), so that they are not carried through its persisted output; this step keeps
   * the rule in the graph, whose shape jobs restored from older checkpoints expect.
   */
  static final class SelectReportedFn extends DoFn<Verdict, Verdict> {
    private final boolean emitMatches;

    SelectReportedFn(boolean emitMatches) {
      this.emitMatches = emitMatches;
    }

    @ProcessElement
    public void process(@Element Verdict v, OutputReceiver<Verdict> out) {
      if (v.status() != Status.MATCH || emitMatches || v.supersedes() != null) {
        out.output(v);
      }
    }
  }

  /** Counts dead letters per side for the summary; passes them through. */
  static final class CountDeadLettersFn extends DoFn<DeadLetter, DeadLetter> {
    private final Map<Side, Counter> counters = new EnumMap<>(Side.class);

    CountDeadLettersFn() {
      for (Side side : Side.values()) {
        counters.put(side, Metrics.counter(Summary.NAMESPACE, Summary.deadLetterCounter(side)));
      }
    }

    @ProcessElement
    public void process(@Element DeadLetter d, OutputReceiver<DeadLetter> out) {
      counters.get(d.side()).inc();
      out.output(d);
    }
  }

  /** Counts events stored in raw_events for the summary; outputs nothing. */
  static final class CountRawEventsFn extends DoFn<EventRef, Void> {
    private final Counter raw = Metrics.counter(Summary.NAMESPACE, Summary.RAW_EVENTS);

    @ProcessElement
    public void process(@Element EventRef e) {
      raw.inc();
    }
  }
}
