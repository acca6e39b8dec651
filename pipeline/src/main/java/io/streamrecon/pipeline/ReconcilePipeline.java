package io.streamrecon.pipeline;

import io.streamrecon.model.DeadLetter;
import io.streamrecon.model.DeltaRecord;
import io.streamrecon.model.EventRef;
import io.streamrecon.model.RawInput;
import io.streamrecon.model.Side;
import io.streamrecon.pipeline.io.InputSpec;
import io.streamrecon.pipeline.io.ReadJsonLines;
import io.streamrecon.pipeline.io.ReadKafka;
import io.streamrecon.transforms.Diff;
import io.streamrecon.transforms.ModelCoders;
import io.streamrecon.transforms.ParseEvents;
import io.streamrecon.transforms.RecordVerdicts;
import io.streamrecon.transforms.WatermarkSource;
import io.streamrecon.transforms.deltalake.DeltaLakeIO;
import io.streamrecon.transforms.pairing.PairEvents;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.coders.VoidCoder;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.PBegin;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.apache.beam.sdk.values.PCollectionTuple;

/**
 * Builds the reconciliation graph (docs/design.md#data-flow); {@link
 * io.streamrecon.pipeline.run.ReconcileRun} runs it. The step names below are part of the contract:
 * a restored streaming job finds its state by them.
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
    if (merged.isBounded() == PCollection.IsBounded.BOUNDED
        || s.runner().parsedInputsAsOneCollection()) {
      // One collection of parsed inputs, consumed once by the writer, which passes the dead
      // letters on. With ParseEvents' two outputs a runner that persists a step's outputs (the
      // classic SparkRunner) stores the parsed events, payloads and all, to read each output back:
      // in batch the largest cost of a run. Streaming runners keep the two outputs unless their
      // profile asks otherwise: their graph, and with it the names their restored jobs' commits
      // carry, stays.
      PCollectionTuple written =
          merged
              .apply("ParseEvents", parse.parsedInputs())
              .apply(
                  "WriteRawEvents",
                  writerSettings(DeltaLakeIO.writeRawEvents(), s, writer).fromParsedInputs());
      deadLetters = written.get(DeltaLakeIO.FromParsedInputs.DEAD_LETTERS);
      stored = written.get(DeltaLakeIO.FromParsedInputs.EVENT_REFS);
    } else {
      PCollectionTuple parsed = merged.apply("ParseEvents", parse);
      deadLetters = parsed.get(ParseEvents.DEAD_LETTERS);
      stored =
          parsed
              .get(ParseEvents.EVENTS)
              .apply("WriteRawEvents", writerSettings(DeltaLakeIO.writeRawEvents(), s, writer));
    }

    writeDeadLetters(deadLetters, s, writer);

    // A branch of its own, not a step before PairEvents: with two consumers the classic
    // SparkRunner caches the write's output, so each micro-batch commits and counts it once. In
    // line, the processing-time PairEvents read its uncached input twice per micro-batch (once
    // for its timer keys), re-running the commit (skipped as a replay) and doubling the count.
    countRawEvents(stored);

    judge(stored, s, writer);
    return pipeline;
  }

  /**
   * Counts the dead letters per side ({@code CountDeadLetters}) and writes them to {@code
   * dead_letters} ({@code WriteDeadLetters}), at the top level of their pipeline: shared by {@code
   * run} and {@code replay}.
   */
  public static void writeDeadLetters(
      PCollection<DeadLetter> deadLetters, ReconcileSettings s, WriterIdentity writer) {
    deadLetters
        .apply("CountDeadLetters", ParDo.of(new CountDeadLettersFn()))
        .setCoder(ModelCoders.DeadLetterCoder.of())
        .apply("WriteDeadLetters", writerSettings(DeltaLakeIO.writeDeadLetters(), s, writer));
  }

  /**
   * Counts the events stored in {@code raw_events} ({@code CountRawEvents}), for the summary's
   * count identities: shared by {@code run} and {@code replay}.
   */
  public static void countRawEvents(PCollection<EventRef> stored) {
    stored.apply("CountRawEvents", ParDo.of(new CountRawEventsFn())).setCoder(VoidCoder.of());
  }

  /**
   * The judging half of the graph, shared by {@code run} and {@code replay}: pairs the stored
   * events, fetches and diffs the payloads of MISMATCHes, and writes the DeltaRecords and late
   * events ({@code PairEvents}, {@code FetchPayloads}, {@code DiffPayloads}, {@code
   * RecordVerdicts}, {@code WriteDeltas}, {@code WriteLateEvents}). The steps are applied at the
   * top level of {@code stored}'s pipeline under the names a live run's restored jobs expect.
   *
   * @param stored events already in {@code raw_events}, each timestamped with its event time; their
   *     pointers name the stored rows
   */
  public static void judge(
      PCollection<EventRef> stored, ReconcileSettings s, WriterIdentity writer) {
    PairEvents pairing =
        PairEvents.create()
            .withTimeout(s.timeout())
            .withAllowedLateness(s.allowedLateness())
            .withExpiry(s.expiry())
            .withProcessingGrace(s.processingGrace())
            .withBuckets(s.pairingBuckets())
            .withEmitMatches(s.emitMatches());
    if (s.expiry() == PairEvents.Expiry.EVENT_TIME && s.runner().polledWatermark()) {
      // No event-time timers there: the pairing reads the watermark the runner tracks.
      pairing =
          pairing.withWatermarkSource(
              WatermarkSource.forRunner(stored.getPipeline().getOptions())
                  .orElseThrow(
                      () ->
                          new IllegalStateException(
                              "event-time expiry on the SparkRunner in streaming mode needs the"
                                  + " runner's watermark source (streamrecon-runner-spark on the"
                                  + " class path); or pass --expiry=processing")));
    }
    PCollectionTuple paired = stored.apply("PairEvents", pairing);

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
        .apply("WriteDeltas", writerSettings(DeltaLakeIO.writeDeltas(), s, writer));

    paired
        .get(PairEvents.LATE)
        .apply("WriteLateEvents", writerSettings(DeltaLakeIO.writeLateEvents(), s, writer));
  }

  /**
   * The settings every Delta Lake writer gets; the one place to change when DeltaLakeIO's writers
   * gain options.
   */
  public static DeltaLakeIO.WriteRawEvents writerSettings(
      DeltaLakeIO.WriteRawEvents w, ReconcileSettings s, WriterIdentity writer) {
    return w.withWarehouse(s.warehouse())
        .withRunId(s.runId())
        .withCommitInterval(s.rawCommitInterval())
        .withWriterId(writer.writerId())
        .withStableInput(writer.stableInput())
        .withAutoCompact(s.autoCompactFiles());
  }

  /**
   * As {@link #writerSettings(DeltaLakeIO.WriteRawEvents, ReconcileSettings, WriterIdentity)}, with
   * {@link ReconcileSettings#commitInterval} (raw_events has its own, {@link
   * ReconcileSettings#rawCommitInterval}).
   */
  public static <T> DeltaLakeIO.Write<T> writerSettings(
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
   * @param writerId the SetTransaction app id stem: the job's run id when the runner restores state
   *     (so replayed commits are recognised), else unique per process (a process that starts from
   *     empty state must not have its commits mistaken for replays of an earlier one's)
   * @param stableInput true where the runner supports {@code @RequiresStableInput} (Flink)
   */
  public record WriterIdentity(String writerId, boolean stableInput) {
    /** A writer id no other process shares: for bounded runs and runners without restore. */
    public static WriterIdentity perProcess(String runId) {
      return new WriterIdentity(
          runId + "/" + java.util.UUID.randomUUID().toString().substring(0, 8), false);
    }
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
        .withAppendLag(s.appendLag(side))
        .withReadCommitted(s.kafkaReadCommitted())
        .withMaxRecords(s.kafkaMaxRecords())
        .withMaxReadTime(s.kafkaMaxReadTime())
        .withSplits(s.runner().kafkaSplits());
  }
}
