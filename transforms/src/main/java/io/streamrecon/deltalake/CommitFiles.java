package io.streamrecon.deltalake;

import io.streamrecon.model.EventRef;
import io.streamrecon.model.ModelCoders;
import io.streamrecon.model.Pointer;
import io.streamrecon.model.Side;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.values.KV;
import org.apache.hadoop.conf.Configuration;
import org.joda.time.Instant;

/**
 * Stage 2 of a {@link DeltaLakeIO} write: commits one pane of data files (all files of a commit
 * interval, grouped under one key, so one committer per table) in one Delta transaction.
 *
 * <p>The pane index is the transaction version of the {@code SetTransaction}: it grows by one with
 * every firing of the key and is the same when a runner retries the pane, so a retried commit is
 * recognised and skipped.
 */
final class CommitFiles {
  private CommitFiles() {}

  private static final Counter COMMITS = Metrics.counter(DeltaLakeIO.NAMESPACE, "deltalake_commits");
  private static final Counter REPLAYED =
      Metrics.counter(DeltaLakeIO.NAMESPACE, "deltalake_commits_replayed");

  static DeltaLakeCommitter.Outcome commit(
      DeltaLakeCommitter committer, String appId, PaneInfo pane, List<DataFile> files) {
    DeltaLakeCommitter.Outcome outcome = committer.commit(appId, pane.getIndex(), files);
    (outcome.alreadyCommitted() ? REPLAYED : COMMITS).inc();
    return outcome;
  }

  static List<DataFile> copy(Iterable<DataFile> files) {
    List<DataFile> list = new ArrayList<>();
    files.forEach(list::add);
    return list;
  }

  /** Commits a pane and emits one {@link DeltaLakeCommit}. */
  static final class CommitFn extends DoFn<KV<String, Iterable<DataFile>>, DeltaLakeCommit> {
    private final String warehouse;
    private final String table;
    private final String appId;
    private transient DeltaLakeCommitter committer;

    CommitFn(String warehouse, String table, String appId) {
      this.warehouse = warehouse;
      this.table = table;
      this.appId = appId;
    }

    @Setup
    public void setup() {
      committer = new DeltaLakeCommitter(new Configuration(), warehouse, TableLayouts.forName(table));
    }

    @ProcessElement
    public void process(
        @Element KV<String, Iterable<DataFile>> group,
        PaneInfo pane,
        OutputReceiver<DeltaLakeCommit> out) {
      List<DataFile> files = copy(group.getValue());
      if (files.isEmpty()) {
        return;
      }
      DeltaLakeCommitter.Outcome outcome = commit(committer, appId, pane, files);
      out.output(
          new DeltaLakeCommit(
              table,
              outcome.tableVersion(),
              appId,
              pane.getIndex(),
              files.size(),
              files.stream().mapToLong(DataFile::numRecords).sum(),
              outcome.alreadyCommitted()));
    }
  }

  /**
   * Commits a pane of raw_events files, then emits an {@link EventRef} per row, pointing at the
   * committed file and row, timestamped with the event time (or the pane's timestamp, when the
   * event is older than everything the pane held back).
   */
  static final class CommitRawEventsFn extends DoFn<KV<String, Iterable<DataFile>>, EventRef> {
    private final String warehouse;
    private final String appId;
    private transient DeltaLakeCommitter committer;

    CommitRawEventsFn(String warehouse, String appId) {
      this.warehouse = warehouse;
      this.appId = appId;
    }

    @Setup
    public void setup() {
      committer = new DeltaLakeCommitter(new Configuration(), warehouse, TableLayouts.RAW_EVENTS);
    }

    @ProcessElement
    public void process(
        @Element KV<String, Iterable<DataFile>> group,
        PaneInfo pane,
        @Timestamp Instant paneTimestamp,
        OutputReceiver<EventRef> out)
        throws IOException {
      List<DataFile> files = copy(group.getValue());
      if (files.isEmpty()) {
        return;
      }
      DeltaLakeCommitter.Outcome outcome = commit(committer, appId, pane, files);
      for (DataFile file : files) {
        for (EventRef ref : eventRefs(file, outcome.tableVersion())) {
          Instant eventTime = ref.eventTime();
          out.outputWithTimestamp(ref, eventTime.isBefore(paneTimestamp) ? paneTimestamp : eventTime);
        }
      }
    }

    /** The EventRefs of a committed raw_events file, in row order. */
    static List<EventRef> eventRefs(DataFile file, long tableVersion) throws IOException {
      Side side = Side.valueOf(file.partitionValues().get("side"));
      ByteArrayInputStream keys = new ByteArrayInputStream(file.rowKeys());
      List<EventRef> refs = new ArrayList<>();
      long row = 0;
      while (keys.available() > 0) {
        String naturalId = ModelCoders.readString(keys);
        Instant eventTime = ModelCoders.readInstant(keys);
        String sha256 = ModelCoders.readHash(keys);
        Pointer pointer = new Pointer(tableVersion, file.path(), row, side, naturalId, sha256);
        refs.add(new EventRef(side, naturalId, eventTime, sha256, pointer));
        row++;
      }
      if (row != file.numRecords()) {
        throw new IllegalStateException(
            file + " describes " + file.numRecords() + " rows but carries keys of " + row);
      }
      return refs;
    }
  }
}
