package io.streamrecon.transforms.deltalake;

import static io.streamrecon.deltalake.WarehouseTables.DELTAS;
import static io.streamrecon.deltalake.WarehouseTables.LATE_EVENTS;
import static io.streamrecon.deltalake.WarehouseTables.RAW_EVENTS;

import io.streamrecon.deltalake.CommittedRows;
import io.streamrecon.deltalake.DataFile;
import io.streamrecon.deltalake.DeltaLakeCommit;
import io.streamrecon.deltalake.DeltaLakeCommitter;
import io.streamrecon.deltalake.RawEventsSelection;
import io.streamrecon.deltalake.TableLayouts;
import io.streamrecon.deltalake.WarehouseIds;
import io.streamrecon.deltalake.WarehouseTables;
import io.streamrecon.model.DeadLetter;
import io.streamrecon.model.DeltaRecord;
import io.streamrecon.model.Event;
import io.streamrecon.model.EventRef;
import io.streamrecon.model.LateEvent;
import io.streamrecon.model.MetricNames;
import io.streamrecon.model.ParsedInput;
import io.streamrecon.model.PayloadPair;
import io.streamrecon.model.Pointer;
import io.streamrecon.model.StoredPayload;
import io.streamrecon.model.Verdict;
import io.streamrecon.transforms.ModelCoders;
import io.streamrecon.transforms.ModelCoders.EventRefCoder;
import io.streamrecon.transforms.ModelCoders.PayloadPairCoder;
import io.streamrecon.transforms.ModelCoders.StoredPayloadCoder;
import org.apache.beam.sdk.coders.IterableCoder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.WithKeys;
import org.apache.beam.sdk.transforms.windowing.AfterPane;
import org.apache.beam.sdk.transforms.windowing.AfterProcessingTime;
import org.apache.beam.sdk.transforms.windowing.DefaultTrigger;
import org.apache.beam.sdk.transforms.windowing.GlobalWindows;
import org.apache.beam.sdk.transforms.windowing.Repeatedly;
import org.apache.beam.sdk.transforms.windowing.TimestampCombiner;
import org.apache.beam.sdk.transforms.windowing.Trigger;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.TupleTagList;
import org.joda.time.Duration;

/**
 * Reads and writes the Delta Lake tables of docs/design.md#tables-and-pointers under a warehouse
 * directory (a local path or any Hadoop {@code FileSystem} URI): {@code raw_events}, {@code
 * deltas}, {@code dead_letters} and {@code late_events}. Data files are snappy Parquet written with
 * parquet-hadoop; commits go through Delta Kernel (docs/delta-kernel.md), carry per-file statistics
 * and are idempotent.
 *
 * <p>A write has two stages. Each bundle writes its elements into Parquet files and describes them.
 * The descriptions are grouped under one key in the global window (one committer per table) and
 * committed in one Delta transaction per pane: in streaming the pane fires a commit interval after
 * its first file, in batch once at the end. The grouping holds the watermark at the earliest
 * uncommitted element, so nothing downstream runs ahead of the data it points to.
 *
 * <p>Writes are idempotent by content: a row the same writer ({@code withWriterId}) stored in its
 * recent commits (a replayed Kafka record, a re-emitted verdict) is not stored again, and a
 * replayed raw event's pointer names the stored copy; see {@link DeltaLakeCommitter}.
 *
 * <p>Metrics (namespace {@value #NAMESPACE}): {@code deltalake_files_written}, {@code
 * deltalake_rows_written}, {@code deltalake_commits}, {@code deltalake_commits_replayed} (nothing
 * new in the pane), {@code deltalake_copies_recognised_<table>} (rows not stored again), {@code
 * lookup_file_opens}, {@code lookup_rows_read}, {@code lookup_fallbacks}, {@code
 * lookup_fallback_files_skipped}.
 */
public final class DeltaLakeIO {
  private DeltaLakeIO() {}

  /** Beam metrics namespace. */
  public static final String NAMESPACE = MetricNames.NAMESPACE;

  /** Default streaming commit interval. */
  public static final Duration DEFAULT_COMMIT_INTERVAL = Duration.standardSeconds(5);

  /**
   * The commit interval that commits the files of a pane as soon as the runner evaluates its
   * trigger. Meant for runners that evaluate triggers once per micro-batch (Beam's classic
   * SparkRunner in streaming mode): there it commits each micro-batch's files in that batch, where
   * a processing-time delay, measured from the batch's time, can only fire a later batch, so that
   * one batch in two or three commits the data of several and carries their downstream work. On a
   * runner that fires triggers per element it would commit per bundle.
   */
  public static final Duration COMMIT_EACH_MICRO_BATCH = Duration.ZERO;

  /**
   * Default small-file threshold of auto-compaction: a partition is compacted once it holds this
   * many files under the target size (Delta Lake's own auto compaction uses 50 as well).
   */
  public static final int DEFAULT_AUTO_COMPACT_FILES = 50;

  /** Fewest small files that can trigger auto-compaction (two files are the least to merge). */
  public static final int MIN_AUTO_COMPACT_FILES = 2;

  /** Most: a partition of more small files than this makes every reader slow. */
  public static final int MAX_AUTO_COMPACT_FILES = 10_000;

  static final Duration MAX_COMMIT_INTERVAL = Duration.standardHours(1);
  static final int MAX_RUN_ID_LENGTH = 128;

  /**
   * Writes parsed events to {@code raw_events}; emits one {@link EventRef} per event once
   * committed.
   */
  public static WriteRawEvents writeRawEvents() {
    return new WriteRawEvents(WriteConfig.DEFAULT);
  }

  /** Writes difference records to {@code deltas}. */
  public static Write<DeltaRecord> writeDeltas() {
    return new Write<>(DELTAS, WriteConfig.DEFAULT);
  }

  /** Writes failed inputs to {@code dead_letters}. */
  public static Write<DeadLetter> writeDeadLetters() {
    return new Write<>(WarehouseTables.DEAD_LETTERS, WriteConfig.DEFAULT);
  }

  /** Writes events past allowed lateness to {@code late_events}. */
  public static Write<LateEvent> writeLateEvents() {
    return new Write<>(LATE_EVENTS, WriteConfig.DEFAULT);
  }

  /**
   * Reads stored events from {@code raw_events}, selected by run, event-time window and natural id;
   * bounded. See {@link ReadRawEvents}.
   */
  public static ReadRawEvents readRawEvents() {
    return new ReadRawEvents(null, RawEventsSelection.ALL);
  }

  /** Reads the payload behind each pointer from {@code raw_events}. */
  public static Lookup lookup() {
    return new Lookup(null);
  }

  /** Reads both payloads of each MISMATCH verdict from {@code raw_events}. */
  public static FetchPayloads fetchPayloads() {
    return new FetchPayloads(null);
  }

  // ------------------------------------------------------------------ configuration

  /** The settings every writer shares; immutable. */
  record WriteConfig(
      String warehouse,
      String runId,
      Duration commitInterval,
      String writerId,
      boolean stableInput,
      int autoCompactFiles) {
    static final WriteConfig DEFAULT =
        new WriteConfig(null, null, DEFAULT_COMMIT_INTERVAL, null, false, 0);

    WriteConfig withWarehouse(String value) {
      return new WriteConfig(
          WarehouseTables.checkWarehouse(value),
          runId,
          commitInterval,
          writerId,
          stableInput,
          autoCompactFiles);
    }

    WriteConfig withWriterId(String value) {
      if (value == null || value.isBlank() || value.length() > MAX_RUN_ID_LENGTH) {
        throw new IllegalArgumentException(
            "writerId must be 1 to "
                + MAX_RUN_ID_LENGTH
                + " non-blank characters, got "
                + quote(value));
      }
      return new WriteConfig(
          warehouse, runId, commitInterval, value, stableInput, autoCompactFiles);
    }

    WriteConfig withStableInput(boolean value) {
      return new WriteConfig(warehouse, runId, commitInterval, writerId, value, autoCompactFiles);
    }

    WriteConfig withAutoCompact(int smallFiles) {
      if (smallFiles != 0
          && (smallFiles < MIN_AUTO_COMPACT_FILES || smallFiles > MAX_AUTO_COMPACT_FILES)) {
        throw new IllegalArgumentException(
            "autoCompact: the small-file threshold must be 0 (off) or "
                + MIN_AUTO_COMPACT_FILES
                + " to "
                + MAX_AUTO_COMPACT_FILES
                + " files per partition, got "
                + smallFiles);
      }
      return new WriteConfig(warehouse, runId, commitInterval, writerId, stableInput, smallFiles);
    }

    /** The id of the writer across restarts: {@link #writerId} if set, else the run id. */
    String effectiveWriterId() {
      return writerId != null ? writerId : runId;
    }

    WriteConfig withRunId(String value) {
      // The run id names the folder of the run's row key sidecars.
      if (!WarehouseIds.isValid(value)) {
        throw new IllegalArgumentException(
            "runId must be " + WarehouseIds.FORM + ", got " + quote(value));
      }
      return new WriteConfig(
          warehouse, value, commitInterval, writerId, stableInput, autoCompactFiles);
    }

    WriteConfig withCommitInterval(Duration value) {
      if (value == null || value.getMillis() < 0 || value.isLongerThan(MAX_COMMIT_INTERVAL)) {
        throw new IllegalArgumentException(
            "commitInterval must be between 0 (COMMIT_EACH_MICRO_BATCH) and "
                + MAX_COMMIT_INTERVAL
                + ", got "
                + value);
      }
      return new WriteConfig(warehouse, runId, value, writerId, stableInput, autoCompactFiles);
    }

    void validate(String transform) {
      if (warehouse == null) {
        throw new IllegalStateException(transform + ": withWarehouse(...) is required");
      }
      if (runId == null) {
        throw new IllegalStateException(transform + ": withRunId(...) is required");
      }
    }
  }

  /**
   * The app id of a writer's {@code SetTransaction}s, {@code
   * streamrecon/<writerId>/<table>/<input>}: the writer id (stable across restarts of a job), the
   * table and the name of the written PCollection (which tells two writers of one table in one
   * pipeline apart, and stays the same as long as the pipeline graph does, which a restore from a
   * checkpoint needs anyway). Nothing random: a restarted job is the same writer, and its replays
   * are recognised by content ({@link DeltaLakeCommitter}) among that writer's recent commits.
   */
  static String appId(String writerId, String table, String inputName) {
    return "streamrecon/" + writerId + "/" + table + "/" + inputName;
  }

  /** Stage 1 and the grouping of stage 2, shared by all writers. */
  static <T> PCollection<KV<String, Iterable<DataFile>>> writeAndGroup(
      PCollection<T> input, String table, WriteConfig config) {
    PCollection<DataFile> files =
        intoGlobalWindow(input)
            .apply(
                "WriteDataFiles",
                ParDo.of(new WriteDataFilesFn<T>(config.warehouse(), table, config.runId())))
            .setCoder(DataFileCoder.of());
    return group(files, table, config);
  }

  static <T> PCollection<T> intoGlobalWindow(PCollection<T> input) {
    return input
        .apply("IntoGlobalWindow", Window.<T>into(new GlobalWindows()))
        .setCoder(input.getCoder());
  }

  /** The grouping of stage 2: the written files of each commit pane under the table's key. */
  static PCollection<KV<String, Iterable<DataFile>>> group(
      PCollection<DataFile> files, String table, WriteConfig config) {
    Trigger trigger;
    if (files.isBounded() == PCollection.IsBounded.BOUNDED) {
      trigger = DefaultTrigger.of();
    } else if (config.commitInterval().equals(COMMIT_EACH_MICRO_BATCH)) {
      trigger = Repeatedly.forever(AfterPane.elementCountAtLeast(1));
    } else {
      trigger =
          Repeatedly.forever(
              AfterProcessingTime.pastFirstElementInPane().plusDelayOf(config.commitInterval()));
    }
    KvCoder<String, DataFile> keyedCoder = KvCoder.of(StringUtf8Coder.of(), DataFileCoder.of());
    return files
        .apply("KeyByTable", WithKeys.<String, DataFile>of(table))
        .setCoder(keyedCoder)
        .apply(
            "CommitTrigger",
            Window.<KV<String, DataFile>>into(new GlobalWindows())
                .triggering(trigger)
                .discardingFiredPanes()
                .withAllowedLateness(Duration.ZERO)
                // The global window's end-of-time pane would otherwise fire empty.
                .withOnTimeBehavior(Window.OnTimeBehavior.FIRE_IF_NON_EMPTY)
                // Hold the watermark at the earliest uncommitted element, not at the end of time.
                .withTimestampCombiner(TimestampCombiner.EARLIEST))
        .setCoder(keyedCoder)
        .apply("GroupDataFiles", GroupByKey.create())
        .setCoder(KvCoder.of(StringUtf8Coder.of(), IterableCoder.of(DataFileCoder.of())));
  }

  // ------------------------------------------------------------------ transforms

  /**
   * Writes {@link Event}s to {@code raw_events} (partitioned by side and event date) and emits, per
   * event and only after its commit succeeded, an {@link EventRef} whose {@link Pointer} names the
   * committed table version, data file and row. Each EventRef carries its event time as timestamp
   * (moved forward to the commit pane's timestamp if it is older).
   */
  public static final class WriteRawEvents
      extends PTransform<PCollection<Event>, PCollection<EventRef>> {
    private final WriteConfig config;

    private WriteRawEvents(WriteConfig config) {
      this.config = config;
    }

    /** Where the tables live: a local path or a Hadoop FileSystem URI. Required. */
    public WriteRawEvents withWarehouse(String warehouse) {
      return new WriteRawEvents(config.withWarehouse(warehouse));
    }

    /** The run id written with every row and part of the commit app id. Required. */
    public WriteRawEvents withRunId(String runId) {
      return new WriteRawEvents(config.withRunId(runId));
    }

    /**
     * Streaming: how long files wait for their commit, at most. Default 5 s, up to 1 h; {@link
     * #COMMIT_EACH_MICRO_BATCH} on runners that evaluate triggers once per micro-batch.
     */
    public WriteRawEvents withCommitInterval(Duration commitInterval) {
      return new WriteRawEvents(config.withCommitInterval(commitInterval));
    }

    /**
     * The writer's id, stable across restarts of the same job (e.g. a job id kept with its
     * checkpoints, new when the job starts fresh): rows this writer stored before a crash are
     * recognised when the restored job replays them. Default: the run id, so a job restarted with a
     * new run id is a new writer whose replays are stored again.
     */
    public WriteRawEvents withWriterId(String writerId) {
      return new WriteRawEvents(config.withWriterId(writerId));
    }

    /**
     * Whether the commit step is {@code @RequiresStableInput} (Flink then replays its input
     * identically after a restore). Default false: the classic Spark runner rejects it.
     */
    public WriteRawEvents withStableInput(boolean stableInput) {
      return new WriteRawEvents(config.withStableInput(stableInput));
    }

    /**
     * Auto-compaction: after each commit, the committer compacts (as {@code DeltaLakeMaintenance
     * .compact} does, with the default target file size) the partitions that hold at least {@code
     * smallFiles} files under the target, at most {@link
     * CommitFiles#AUTO_COMPACT_PARTITIONS_PER_COMMIT} partitions per commit. 0 (the default) turns
     * it off; else {@link #MIN_AUTO_COMPACT_FILES} to {@link #MAX_AUTO_COMPACT_FILES}.
     */
    public WriteRawEvents withAutoCompact(int smallFiles) {
      return new WriteRawEvents(config.withAutoCompact(smallFiles));
    }

    /**
     * The same write for parse results: stores each {@link ParsedInput}'s event and passes its dead
     * letters on, so that one collection, consumed once, carries both from the parser (see {@link
     * ParsedInput} for why).
     */
    public FromParsedInputs fromParsedInputs() {
      return new FromParsedInputs(config);
    }

    @Override
    public PCollection<EventRef> expand(PCollection<Event> input) {
      config.validate("DeltaLakeIO.writeRawEvents()");
      checkWritable(config.warehouse(), RAW_EVENTS);
      return commitAndExpand(writeAndGroup(input, RAW_EVENTS, config), config, input.getName());
    }

    static PCollection<EventRef> commitAndExpand(
        PCollection<KV<String, Iterable<DataFile>>> grouped, WriteConfig config, String inputName) {
      String appId = appId(config.effectiveWriterId(), RAW_EVENTS, inputName);
      CommitFiles.CommitRawEventsFn fn =
          config.stableInput()
              ? new CommitFiles.StableCommitRawEventsFn(
                  config.warehouse(), appId, config.autoCompactFiles())
              : new CommitFiles.CommitRawEventsFn(
                  config.warehouse(), appId, config.autoCompactFiles());
      // The commit step emits one small element per file and ExpandPointers the pointers, so no
      // step's output for one element is every pointer of a pane (a batch run's whole input).
      PCollection<CommittedRows> committed =
          grouped.apply("CommitDataFiles", ParDo.of(fn)).setCoder(CommittedRowsCoder.of());
      DoFn<CommittedRows, EventRef> expand =
          committed.isBounded() == PCollection.IsBounded.BOUNDED
              ? new CommitFiles.SplittableExpandPointersFn(config.warehouse())
              : new CommitFiles.ExpandPointersFn(config.warehouse());
      return committed.apply("ExpandPointers", ParDo.of(expand)).setCoder(EventRefCoder.of());
    }
  }

  /**
   * {@link WriteRawEvents} for {@link ParsedInput}s ({@link WriteRawEvents#fromParsedInputs()}):
   * outputs the committed events' {@link EventRef}s under {@link #EVENT_REFS} and the dead letters
   * it passed on under {@link #DEAD_LETTERS}.
   */
  public static final class FromParsedInputs
      extends PTransform<PCollection<ParsedInput>, PCollectionTuple> {
    /** One per event stored, once its commit succeeded, as {@link WriteRawEvents} emits them. */
    public static final TupleTag<EventRef> EVENT_REFS = new TupleTag<EventRef>("eventRefs") {};

    /** The dead letters among the outcomes, unchanged, in the global window. */
    public static final TupleTag<DeadLetter> DEAD_LETTERS =
        new TupleTag<DeadLetter>("deadLetters") {};

    private static final TupleTag<DataFile> FILES = new TupleTag<DataFile>("files") {};

    private final WriteConfig config;

    private FromParsedInputs(WriteConfig config) {
      this.config = config;
    }

    @Override
    public PCollectionTuple expand(PCollection<ParsedInput> input) {
      config.validate("DeltaLakeIO.writeRawEvents().fromParsedInputs()");
      checkWritable(config.warehouse(), RAW_EVENTS);
      checkWritable(config.warehouse(), WarehouseTables.DEAD_LETTERS);
      PCollectionTuple written =
          intoGlobalWindow(input)
              .apply(
                  "WriteDataFiles",
                  ParDo.of(
                          new WriteDataFilesFn.FromParsedInputs(
                              config.warehouse(), config.runId(), DEAD_LETTERS))
                      .withOutputTags(FILES, TupleTagList.of(DEAD_LETTERS)));
      PCollection<DataFile> files = written.get(FILES).setCoder(DataFileCoder.of());
      PCollection<DeadLetter> deadLetters =
          written.get(DEAD_LETTERS).setCoder(ModelCoders.DeadLetterCoder.of());
      PCollection<EventRef> refs =
          WriteRawEvents.commitAndExpand(group(files, RAW_EVENTS, config), config, input.getName());
      return PCollectionTuple.of(EVENT_REFS, refs).and(DEAD_LETTERS, deadLetters);
    }
  }

  /**
   * Writes records to one of the tables {@code deltas}, {@code dead_letters} or {@code
   * late_events}; emits one {@link DeltaLakeCommit} per commit.
   *
   * @param <T> {@link DeltaRecord}, {@link DeadLetter} or {@link LateEvent}
   */
  public static final class Write<T>
      extends PTransform<PCollection<T>, PCollection<DeltaLakeCommit>> {
    private final String table;
    private final WriteConfig config;

    private Write(String table, WriteConfig config) {
      this.table = table;
      this.config = config;
    }

    /** Where the tables live: a local path or a Hadoop FileSystem URI. Required. */
    public Write<T> withWarehouse(String warehouse) {
      return new Write<>(table, config.withWarehouse(warehouse));
    }

    /** The run id written with every row and part of the commit app id. Required. */
    public Write<T> withRunId(String runId) {
      return new Write<>(table, config.withRunId(runId));
    }

    /**
     * Streaming: how long files wait for their commit, at most. Default 5 s, up to 1 h; {@link
     * #COMMIT_EACH_MICRO_BATCH} on runners that evaluate triggers once per micro-batch.
     */
    public Write<T> withCommitInterval(Duration commitInterval) {
      return new Write<>(table, config.withCommitInterval(commitInterval));
    }

    /** See {@link WriteRawEvents#withWriterId}. */
    public Write<T> withWriterId(String writerId) {
      return new Write<>(table, config.withWriterId(writerId));
    }

    /** See {@link WriteRawEvents#withStableInput}. */
    public Write<T> withStableInput(boolean stableInput) {
      return new Write<>(table, config.withStableInput(stableInput));
    }

    /** See {@link WriteRawEvents#withAutoCompact}. */
    public Write<T> withAutoCompact(int smallFiles) {
      return new Write<>(table, config.withAutoCompact(smallFiles));
    }

    /** The table this writer appends to. */
    public String table() {
      return table;
    }

    @Override
    public PCollection<DeltaLakeCommit> expand(PCollection<T> input) {
      config.validate("DeltaLakeIO.write(" + table + ")");
      checkWritable(config.warehouse(), table);
      String appId = appId(config.effectiveWriterId(), table, input.getName());
      CommitFiles.CommitFn fn =
          config.stableInput()
              ? new CommitFiles.StableCommitFn(
                  config.warehouse(), table, appId, config.autoCompactFiles())
              : new CommitFiles.CommitFn(
                  config.warehouse(), table, appId, config.autoCompactFiles());
      return writeAndGroup(input, table, config)
          .apply("CommitDataFiles", ParDo.of(fn))
          .setCoder(DeltaLakeCommitCoder.of());
    }
  }

  /**
   * Reads the payload behind each {@link Pointer} from {@code raw_events}: per bundle, each data
   * file is opened once and only the payload column of the wanted rows is read. A pointer whose
   * file was compacted away, or whose row a deletion vector deletes, is resolved by its fallback
   * key (counter {@code lookup_fallbacks}); one whose row is gone from the table gives a {@link
   * StoredPayload} without payload, "deleted" (docs/design.md#tables-and-pointers).
   */
  public static final class Lookup
      extends PTransform<PCollection<Pointer>, PCollection<StoredPayload>> {
    private final String warehouse;

    private Lookup(String warehouse) {
      this.warehouse = warehouse;
    }

    /** Where the tables live: a local path or a Hadoop FileSystem URI. Required. */
    public Lookup withWarehouse(String warehouse) {
      return new Lookup(WarehouseTables.checkWarehouse(warehouse));
    }

    @Override
    public PCollection<StoredPayload> expand(PCollection<Pointer> input) {
      if (warehouse == null) {
        throw new IllegalStateException("DeltaLakeIO.lookup(): withWarehouse(...) is required");
      }
      return input
          .apply("ReadPayloads", ParDo.of(new ReadPayloads.LookupFn(warehouse)))
          .setCoder(StoredPayloadCoder.of());
    }
  }

  /**
   * Reads both payloads of each MISMATCH {@link Verdict} (both sides present) from {@code
   * raw_events}, batched like {@link Lookup}. Only MISMATCH verdicts should reach it: a MATCH needs
   * no payload and must cause no read. A payload deleted from the table is {@code null} in the
   * {@link PayloadPair}, counted as {@link MetricNames#PAYLOADS_DELETED}.
   */
  public static final class FetchPayloads
      extends PTransform<PCollection<Verdict>, PCollection<PayloadPair>> {
    private final String warehouse;

    private FetchPayloads(String warehouse) {
      this.warehouse = warehouse;
    }

    /** Where the tables live: a local path or a Hadoop FileSystem URI. Required. */
    public FetchPayloads withWarehouse(String warehouse) {
      return new FetchPayloads(WarehouseTables.checkWarehouse(warehouse));
    }

    @Override
    public PCollection<PayloadPair> expand(PCollection<Verdict> input) {
      if (warehouse == null) {
        throw new IllegalStateException(
            "DeltaLakeIO.fetchPayloads(): withWarehouse(...) is required");
      }
      return input
          .apply("ReadPayloadPairs", ParDo.of(new ReadPayloads.FetchFn(warehouse)))
          .setCoder(PayloadPairCoder.of());
    }
  }

  /**
   * Refuses, while the pipeline is built and so before any data file is written, a table that
   * exists with a table feature Delta Kernel cannot write (docs/delta-kernel.md): one line naming
   * the table and the features.
   */
  static void checkWritable(String warehouse, String table) {
    DeltaLakeCommitter.checkWritable(
        new org.apache.hadoop.conf.Configuration(), warehouse, TableLayouts.forName(table));
  }

  private static String quote(String s) {
    return s == null ? "null" : "\"" + s + "\"";
  }
}
