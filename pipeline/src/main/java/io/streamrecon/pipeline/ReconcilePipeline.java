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
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
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
 * ReadSource, ReadTarget ─► MergeSides ─► ParseEvents ─► WriteRawEvents ─► PairEvents
 *                                            │ dead letters ─► WriteDeadLetters
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
    PCollection<RawInput> source = pipeline.apply("ReadSource", read(Side.SOURCE, s.source(), s));
    PCollection<RawInput> target = pipeline.apply("ReadTarget", read(Side.TARGET, s.target(), s));

    PCollectionTuple parsed =
        PCollectionList.of(source)
            .and(target)
            .apply("MergeSides", Flatten.pCollections())
            .setCoder(ModelCoders.RawInputCoder.of())
            .apply(
                "ParseEvents",
                ParseEvents.create()
                    .withKeyFields(s.keyFields())
                    .withTimeField(s.timeField())
                    .withIgnoreFields(s.ignoreFields())
                    .withMaxEventBytes(s.maxEventBytes()));

    parsed
        .get(ParseEvents.DEAD_LETTERS)
        .apply("CountDeadLetters", ParDo.of(new CountDeadLettersFn()))
        .setCoder(ModelCoders.DeadLetterCoder.of())
        .apply(
            "WriteDeadLetters",
            DeltaLakeIO.writeDeadLetters()
                .withWarehouse(s.warehouse())
                .withRunId(s.runId())
                .withCommitInterval(s.commitInterval()));

    PCollection<EventRef> stored =
        parsed
            .get(ParseEvents.EVENTS)
            .apply(
                "WriteRawEvents",
                DeltaLakeIO.writeRawEvents()
                    .withWarehouse(s.warehouse())
                    .withRunId(s.runId())
                    .withCommitInterval(s.commitInterval()))
            .apply("CountRawEvents", ParDo.of(new CountRawEventsFn()))
            .setCoder(ModelCoders.EventRefCoder.of());

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
                .withProcessingGrace(s.processingGrace()));

    PCollection<DeltaRecord> diffed =
        paired
            .get(PairEvents.MISMATCHES)
            .apply("FetchPayloads", DeltaLakeIO.fetchPayloads().withWarehouse(s.warehouse()))
            .apply(
                "DiffPayloads",
                Diff.create().withIgnoreFields(s.ignoreFields()).withRunId(s.runId()));

    PCollection<DeltaRecord> recorded =
        paired
            .get(PairEvents.VERDICTS)
            .apply("SelectReportedVerdicts", ParDo.of(new SelectReportedFn(s.emitMatches())))
            .setCoder(ModelCoders.VerdictCoder.of())
            .apply("RecordVerdicts", RecordVerdicts.create().withRunId(s.runId()));

    PCollectionList.of(diffed)
        .and(recorded)
        .apply("MergeDeltaRecords", Flatten.pCollections())
        .setCoder(ModelCoders.DeltaRecordCoder.of())
        .apply(
            "WriteDeltas",
            DeltaLakeIO.writeDeltas()
                .withWarehouse(s.warehouse())
                .withRunId(s.runId())
                .withCommitInterval(s.commitInterval()));

    paired
        .get(PairEvents.LATE)
        .apply(
            "WriteLateEvents",
            DeltaLakeIO.writeLateEvents()
                .withWarehouse(s.warehouse())
                .withRunId(s.runId())
                .withCommitInterval(s.commitInterval()));
    return pipeline;
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
    return new Outcome(result, Summary.of(result));
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
    // The DirectRunner blocks in run() by default; start() must return while an unbounded run goes on.
    options.as(DirectOptions.class).setBlockOnRun(false);
    Pipeline pipeline = build(Pipeline.create(options), s);
    LOG.info(
        "run {}: source {}, target {}, warehouse {}, timeout {}, expiry {}",
        s.runId(),
        s.source(),
        s.target(),
        s.warehouse(),
        DurationParser.format(s.timeout()),
        s.expiry());
    return pipeline.run();
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
        .withReadCommitted(s.kafkaReadCommitted())
        .withMaxRecords(s.kafkaMaxRecords())
        .withMaxReadTime(s.kafkaMaxReadTime());
  }

  /**
   * Keeps the verdicts that become DeltaRecords: MISSING always; MATCH only with {@code
   * --emitMatches} or when it supersedes an earlier verdict (a resolved mismatch must be visible).
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

  /** Counts events stored in raw_events for the summary; passes them through. */
  static final class CountRawEventsFn extends DoFn<EventRef, EventRef> {
    private final Counter raw = Metrics.counter(Summary.NAMESPACE, Summary.RAW_EVENTS);

    @ProcessElement
    public void process(@Element EventRef e, OutputReceiver<EventRef> out) {
      raw.inc();
      out.output(e);
    }
  }
}
