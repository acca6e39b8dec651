package io.streamrecon.deltalake;

import io.delta.standalone.DeltaLog;
import io.delta.standalone.Operation;
import io.delta.standalone.OptimisticTransaction;
import io.delta.standalone.actions.Action;
import io.delta.standalone.actions.AddFile;
import io.streamrecon.model.Event;
import io.streamrecon.model.EventRef;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/** Writes and commits raw events without a pipeline, and compacts them like OPTIMIZE would. */
public final class RawEventsFixture {
  private RawEventsFixture() {}

  public static List<DataFile> writeFiles(String warehouse, List<Event> events) throws Exception {
    try (DataFileWriter<Event> writer =
        new DataFileWriter<>(
            new Configuration(),
            DeltaLakeCommitter.tablePath(warehouse, WarehouseTables.RAW_EVENTS),
            TableLayouts.RAW_EVENTS,
            "run-1")) {
      for (Event e : events) {
        writer.write(e, e.eventTime());
      }
      return writer.finish();
    }
  }

  /** Writes the events (one file per partition) in one commit and returns their EventRefs. */
  public static List<EventRef> commit(
      String warehouse, String appId, long txnVersion, List<Event> events) throws Exception {
    List<DataFile> files = writeFiles(warehouse, events);
    DeltaLakeCommitter committer =
        new DeltaLakeCommitter(new Configuration(), warehouse, TableLayouts.RAW_EVENTS);
    long version = committer.commit(appId, txnVersion, files).tableVersion();
    List<EventRef> refs = new ArrayList<>();
    for (DataFile f : files) {
      refs.addAll(CommittedRows.eventRefs(f, version));
    }
    return refs;
  }

  /**
   * What a {@code DELETE} with deletion vectors off does to {@code oldFile}: the file is removed
   * from the table (dataChange=true) and its other rows, {@code kept}, are added in a new file. The
   * old file stays on storage until a vacuum.
   */
  static void rewriteWithout(String warehouse, String oldFile, List<Event> kept) throws Exception {
    List<DataFile> rewritten = writeFiles(warehouse, kept);
    DeltaLog log =
        DeltaLog.forTable(
            new Configuration(),
            DeltaLakeCommitter.tablePath(warehouse, WarehouseTables.RAW_EVENTS));
    OptimisticTransaction txn = log.startTransaction();
    List<Action> actions = new ArrayList<>();
    for (AddFile f : log.update().getAllFiles()) {
      if (oldFile.equals(f.getPath())) {
        actions.add(f.remove(true));
      }
    }
    for (DataFile f : rewritten) {
      actions.add(
          new AddFile(
              f.path(),
              f.partitionValues(),
              f.sizeBytes(),
              f.modificationTime(),
              true,
              FileStats.JSON.writeValueAsString(f.stats()),
              null));
    }
    txn.commit(actions, new Operation(Operation.Name.DELETE), "test-delete");
  }

  /**
   * What OPTIMIZE followed by VACUUM does to the files behind {@code refsToCompact}: their rows
   * ({@code rows}, in a new order) go into one new file, the old files are removed from the table
   * with dataChange=false and deleted from storage.
   */
  public static void compact(String warehouse, List<String> oldFiles, List<Event> rows)
      throws Exception {
    List<DataFile> rewritten = writeFiles(warehouse, rows);
    DeltaLog log =
        DeltaLog.forTable(
            new Configuration(),
            DeltaLakeCommitter.tablePath(warehouse, WarehouseTables.RAW_EVENTS));
    OptimisticTransaction txn = log.startTransaction();
    List<Action> actions = new ArrayList<>();
    for (AddFile f : log.update().getAllFiles()) {
      if (oldFiles.contains(f.getPath())) {
        actions.add(f.remove(false));
      }
    }
    for (DataFile f : rewritten) {
      // delta-standalone writes the stats string raw: encode it once more as a JSON string.
      actions.add(
          new AddFile(
              f.path(),
              f.partitionValues(),
              f.sizeBytes(),
              f.modificationTime(),
              false,
              FileStats.JSON.writeValueAsString(f.stats()),
              null));
    }
    txn.commit(actions, new Operation(Operation.Name.MANUAL_UPDATE), "test-optimize");
    Path root = DeltaLakeCommitter.tablePath(warehouse, WarehouseTables.RAW_EVENTS);
    FileSystem fs = root.getFileSystem(new Configuration());
    for (String old : oldFiles) {
      fs.delete(new Path(root, old), false);
    }
  }
}
