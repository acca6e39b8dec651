package io.streamrecon.transforms.deltalake;

import io.streamrecon.deltalake.CommittedRows;
import io.streamrecon.deltalake.DataFile;
import io.streamrecon.deltalake.DeltaLakeCommit;
import io.streamrecon.deltalake.DeltaLakeCommitter;
import io.streamrecon.deltalake.DeltaLakeCompaction;
import io.streamrecon.deltalake.DeltaLakeMaintenance;
import io.streamrecon.deltalake.TableLayout;
import io.streamrecon.deltalake.TableLayouts;
import io.streamrecon.deltalake.WarehouseTables;
import io.streamrecon.model.EventRef;
import io.streamrecon.model.MetricNames;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.io.range.OffsetRange;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.splittabledofn.RestrictionTracker;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.values.KV;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.joda.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stage 2 of a {@link DeltaLakeIO} write: commits one pane of data files (all files of a commit
 * interval, grouped under one key, so one committer per table) in one Delta transaction.
 *
 * <p>Replays are harmless by content ({@link DeltaLakeCommitter}): rows this writer stored before
 * are not stored again and are counted ({@code deltalake_copies_recognised_<table>}); for
 * raw_events their pointers name the stored copy. The pane index is only recorded with the commit.
 * Each commit's duration and the rows it added are kept per table ({@link
 * MetricNames#commitMillis}, {@link MetricNames#rowsCommitted}).
 */
final class CommitFiles {
  private CommitFiles() {}

  private static final Counter COMMITS =
      Metrics.counter(DeltaLakeIO.NAMESPACE, "deltalake_commits");
  private static final Counter REPLAYED =
      Metrics.counter(DeltaLakeIO.NAMESPACE, "deltalake_commits_replayed");
  private static final Counter AUTO_COMPACTIONS =
      Metrics.counter(DeltaLakeIO.NAMESPACE, "deltalake_auto_compacted_partitions");
  private static final Counter AUTO_COMPACTED_FILES =
      Metrics.counter(DeltaLakeIO.NAMESPACE, "deltalake_auto_compacted_files");
  private static final Counter AUTO_COMPACT_FAILURES =
      Metrics.counter(DeltaLakeIO.NAMESPACE, "deltalake_auto_compaction_failures");

  /**
   * Bound of one auto-compaction step: partitions compacted after one commit. A backlog of many
   * partitions is worked off over the next commits instead of holding one commit up.
   */
  static final int AUTO_COMPACT_PARTITIONS_PER_COMMIT = 2;

  private static final Logger LOG = LoggerFactory.getLogger(CommitFiles.class);

  /** Counter name of the copies a writer recognised and did not store again. */
  static String recognisedCounterName(String table) {
    return "deltalake_copies_recognised_" + table;
  }

  static DeltaLakeCommitter.CommitResult commit(
      DeltaLakeCommitter committer,
      String appId,
      PaneInfo pane,
      List<DataFile> files,
      String table) {
    long started = System.nanoTime();
    DeltaLakeCommitter.CommitResult outcome =
        committer.commit(appId, pane.getIndex(), files, pane.isLast());
    Metrics.distribution(DeltaLakeIO.NAMESPACE, MetricNames.commitMillis(table))
        .update((System.nanoTime() - started) / 1_000_000);
    (outcome.alreadyCommitted() ? REPLAYED : COMMITS).inc();
    Metrics.counter(DeltaLakeIO.NAMESPACE, MetricNames.rowsCommitted(table))
        .inc(outcome.committedRows());
    if (!outcome.recognised().isEmpty()) {
      Metrics.counter(DeltaLakeIO.NAMESPACE, recognisedCounterName(table))
          .inc(outcome.recognised().size());
    }
    return outcome;
  }

  /**
   * The bounded auto-compaction step after a commit ({@code withAutoCompact}). It runs here, in the
   * table's committer, under the lock the commit holds, rather than on a thread of its own: no two
   * auto-compactions of a table race in one JVM, a step never overlaps the next commit of the same
   * writer, and nothing outlives a bundle. Its commits are the ones {@code compact} makes
   * (dataChange=false, conflicts re-checked), so a concurrent writer or compaction is safe. A
   * failure is counted and logged, never fails the bundle: the pane is committed already, and the
   * next commit tries again.
   */
  static void autoCompact(
      DeltaLakeCommitter committer, Configuration conf, TableLayout<?> layout, int smallFiles) {
    if (smallFiles <= 0) {
      return;
    }
    try {
      DeltaLakeMaintenance.CompactResult r =
          DeltaLakeCompaction.autoCompact(
              conf,
              committer.engine(),
              committer.tableRoot(),
              layout,
              smallFiles,
              DeltaLakeMaintenance.DEFAULT_TARGET_FILE_SIZE,
              AUTO_COMPACT_PARTITIONS_PER_COMMIT);
      if (r.partitionsCompacted() > 0) {
        AUTO_COMPACTIONS.inc(r.partitionsCompacted());
        AUTO_COMPACTED_FILES.inc(r.filesRemoved());
      }
    } catch (IOException | RuntimeException e) {
      AUTO_COMPACT_FAILURES.inc();
      LOG.warn("auto-compaction of {} failed; retried after the next commit", layout.name, e);
    }
  }

  static List<DataFile> copy(Iterable<DataFile> files) {
    List<DataFile> list = new ArrayList<>();
    files.forEach(list::add);
    return list;
  }

  /** Commits a pane and emits one {@link DeltaLakeCommit}. */
  static class CommitFn extends DoFn<KV<String, Iterable<DataFile>>, DeltaLakeCommit> {
    private final String warehouse;
    private final String table;
    private final String appId;
    private final int autoCompactFiles;
    private transient Configuration conf;
    private transient DeltaLakeCommitter committer;

    CommitFn(String warehouse, String table, String appId, int autoCompactFiles) {
      this.warehouse = warehouse;
      this.table = table;
      this.appId = appId;
      this.autoCompactFiles = autoCompactFiles;
    }

    @Setup
    public void setup() {
      committer = DeltaLakeCommitter.shared(warehouse, TableLayouts.forName(table));
      conf = committer.conf();
    }

    @ProcessElement
    public void process(
        @Element KV<String, Iterable<DataFile>> group,
        PaneInfo pane,
        OutputReceiver<DeltaLakeCommit> out) {
      commitPane(group, pane, out);
    }

    final void commitPane(
        KV<String, Iterable<DataFile>> group, PaneInfo pane, OutputReceiver<DeltaLakeCommit> out) {
      List<DataFile> files = copy(group.getValue());
      if (files.isEmpty()) {
        return;
      }
      synchronized (committer) {
        commitLocked(files, pane, out);
      }
    }

    private void commitLocked(
        List<DataFile> files, PaneInfo pane, OutputReceiver<DeltaLakeCommit> out) {
      DeltaLakeCommitter.CommitResult outcome = commit(committer, appId, pane, files, table);
      out.output(
          new DeltaLakeCommit(
              table,
              outcome.tableVersion(),
              appId,
              pane.getIndex(),
              outcome.committed().size(),
              outcome.committedRows(),
              outcome.alreadyCommitted(),
              outcome.recognised().size()));
      autoCompact(committer, conf, TableLayouts.forName(table), autoCompactFiles);
    }
  }

  /**
   * Commits a pane of raw_events files, then emits one {@link CommittedRows} per committed file and
   * one per stored file that holds copies recognised in the pane, timestamped with the pane's
   * timestamp. {@link ExpandPointersFn} makes the pointers: a batch run commits its whole input in
   * one pane, and a runner may keep all outputs of one element in memory (the classic Spark runner
   * does), so emitting every pointer here held all of them live at once.
   */
  static class CommitRawEventsFn extends DoFn<KV<String, Iterable<DataFile>>, CommittedRows> {
    private final String warehouse;
    private final String appId;
    private final int autoCompactFiles;
    private transient Configuration conf;
    private transient DeltaLakeCommitter committer;

    CommitRawEventsFn(String warehouse, String appId, int autoCompactFiles) {
      this.warehouse = warehouse;
      this.appId = appId;
      this.autoCompactFiles = autoCompactFiles;
    }

    String appId() {
      return appId;
    }

    @Setup
    public void setup() {
      committer = DeltaLakeCommitter.shared(warehouse, TableLayouts.RAW_EVENTS);
      conf = committer.conf();
    }

    @ProcessElement
    public void process(
        @Element KV<String, Iterable<DataFile>> group,
        PaneInfo pane,
        OutputReceiver<CommittedRows> out)
        throws IOException {
      commitPane(group, pane, out);
    }

    final void commitPane(
        KV<String, Iterable<DataFile>> group, PaneInfo pane, OutputReceiver<CommittedRows> out)
        throws IOException {
      List<DataFile> files = copy(group.getValue());
      if (files.isEmpty()) {
        return;
      }
      synchronized (committer) {
        commitLocked(files, pane, out);
      }
    }

    private void commitLocked(
        List<DataFile> files, PaneInfo pane, OutputReceiver<CommittedRows> out) throws IOException {
      DeltaLakeCommitter.CommitResult outcome =
          commit(committer, appId, pane, files, WarehouseTables.RAW_EVENTS);
      for (DataFile file : outcome.committed()) {
        out.output(CommittedRows.committedRows(file, outcome.tableVersion()));
      }
      // A copy still goes on to pairing (after a restore the pairing state has not seen it), but
      // pointing at the stored row.
      for (CommittedRows rows : CommittedRows.recognisedRows(outcome.recognised())) {
        out.output(rows);
      }
      autoCompact(committer, conf, TableLayouts.RAW_EVENTS, autoCompactFiles);
    }
  }

  /**
   * Turns each {@link CommittedRows} into an {@link EventRef} per row, pointing at the committed
   * file and row, timestamped with the event time (or the commit's pane timestamp, the input's
   * timestamp, when the event is older than everything the pane held back). Keeps nothing, and
   * decodes one row's keys at a time.
   */
  static final class ExpandPointersFn extends DoFn<CommittedRows, EventRef> {
    private final String warehouse;
    private transient Configuration conf;
    private transient Path tableRoot;

    ExpandPointersFn(String warehouse) {
      this.warehouse = warehouse;
    }

    @Setup
    public void setup() {
      conf = new Configuration();
      tableRoot = DeltaLakeCommitter.tablePath(warehouse, WarehouseTables.RAW_EVENTS);
    }

    @ProcessElement
    public void process(
        @Element CommittedRows rows, @Timestamp Instant paneTimestamp, OutputReceiver<EventRef> out)
        throws IOException {
      expand(rows, conf, tableRoot, paneTimestamp, out);
    }

    static void expand(
        CommittedRows rows,
        Configuration conf,
        Path tableRoot,
        Instant paneTimestamp,
        OutputReceiver<EventRef> out)
        throws IOException {
      CommittedRows.forEachEventRef(
          rows,
          conf,
          tableRoot,
          ref -> {
            Instant eventTime = ref.eventTime();
            out.outputWithTimestamp(
                ref, eventTime.isBefore(paneTimestamp) ? paneTimestamp : eventTime);
          });
    }
  }

  /**
   * {@link ExpandPointersFn} for a bounded input, splittable only so that Beam's classic Spark
   * runner streams its output: in batch that runner collects every output of one input element in a
   * list before passing any on, which held a whole file's pointers (about 100,000, 35 MB, per task
   * at 1M records). For a splittable DoFn it hands outputs on through a queue of 500 instead (the
   * experiment {@code use_bounded_concurrent_output_for_sdf}). The restriction is one position,
   * claimed before the first row and never split: a pointer's row index counts from the file's
   * start. Unbounded inputs keep {@link ExpandPointersFn}: a splittable DoFn there costs keyed
   * state per element on Flink, and the classic Spark runner's streaming mode does not run one.
   */
  @DoFn.BoundedPerElement
  static final class SplittableExpandPointersFn extends DoFn<CommittedRows, EventRef> {
    private final String warehouse;
    private transient Configuration conf;
    private transient Path tableRoot;

    SplittableExpandPointersFn(String warehouse) {
      this.warehouse = warehouse;
    }

    @Setup
    public void setup() {
      conf = new Configuration();
      tableRoot = DeltaLakeCommitter.tablePath(warehouse, WarehouseTables.RAW_EVENTS);
    }

    /** The whole file: one position. */
    @GetInitialRestriction
    public OffsetRange wholeFile(@Element CommittedRows rows) {
      return new OffsetRange(0, 1);
    }

    @GetRestrictionCoder
    public Coder<OffsetRange> restrictionCoder() {
      return OffsetRange.Coder.of();
    }

    @ProcessElement
    public void process(
        @Element CommittedRows rows,
        RestrictionTracker<OffsetRange, Long> tracker,
        @Timestamp Instant paneTimestamp,
        OutputReceiver<EventRef> out)
        throws IOException {
      if (!tracker.tryClaim(tracker.currentRestriction().getFrom())) {
        return;
      }
      ExpandPointersFn.expand(rows, conf, tableRoot, paneTimestamp, out);
    }
  }

  /**
   * {@link CommitFn} whose input the runner must replay identically after a restore ({@code
   * RequiresStableInput}; Flink persists it with the checkpoint). The classic Spark runner rejects
   * the annotation.
   */
  static final class StableCommitFn extends CommitFn {
    StableCommitFn(String warehouse, String table, String appId, int autoCompactFiles) {
      super(warehouse, table, appId, autoCompactFiles);
    }

    @Override
    @ProcessElement
    @RequiresStableInput
    public void process(
        @Element KV<String, Iterable<DataFile>> group,
        PaneInfo pane,
        OutputReceiver<DeltaLakeCommit> out) {
      commitPane(group, pane, out);
    }
  }

  /** {@link CommitRawEventsFn} with stable input, as {@link StableCommitFn}. */
  static final class StableCommitRawEventsFn extends CommitRawEventsFn {
    StableCommitRawEventsFn(String warehouse, String appId, int autoCompactFiles) {
      super(warehouse, appId, autoCompactFiles);
    }

    @Override
    @ProcessElement
    @RequiresStableInput
    public void process(
        @Element KV<String, Iterable<DataFile>> group,
        PaneInfo pane,
        OutputReceiver<CommittedRows> out)
        throws IOException {
      commitPane(group, pane, out);
    }
  }
}
