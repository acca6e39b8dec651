package io.streamrecon.bench.deltalake;

import io.delta.kernel.Snapshot;
import io.delta.kernel.Table;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.TableNotFoundException;
import io.delta.kernel.internal.DeltaLogActionUtils.DeltaAction;
import io.delta.kernel.internal.TableImpl;
import io.delta.kernel.utils.CloseableIterator;
import io.streamrecon.deltalake.DeltaLakeEngine;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * The commit that made each data file of a table visible: its version and the {@code
 * commitInfo.timestamp} of {@code _delta_log/<version>.json} (the committing JVM's wall clock,
 * taken by Delta Kernel as it commits), read once through Kernel's commit actions. Only files added
 * with {@code dataChange=true} are mapped: a file written by compaction holds rows that first
 * became visible in an earlier commit, which its own commit cannot tell.
 */
public final class DataFileCommits {
  private DataFileCommits() {}

  /** A commit: table version and {@code commitInfo.timestamp} in epoch milliseconds. */
  public record Commit(long version, long timestampMillis) {}

  /**
   * Data file path (relative to the table, as in the log's {@code add} actions) to the commit that
   * added it; empty while the table does not exist. A version without a {@code commitInfo} maps
   * none of its files.
   */
  public static Map<String, Commit> of(Configuration conf, String warehouse, String table) {
    Path root = new Path(warehouse, table);
    Engine engine = DeltaLakeEngine.create(conf);
    Map<String, Commit> added = new HashMap<>();
    TableImpl t = (TableImpl) Table.forPath(engine, root.toString());
    Snapshot snapshot;
    try {
      snapshot = t.getLatestSnapshot(engine);
    } catch (TableNotFoundException e) {
      return added;
    }
    Map<Long, Long> timestamps = new TreeMap<>();
    Map<Long, List<String>> paths = new TreeMap<>();
    try (CloseableIterator<ColumnarBatch> batches =
        t.getChanges(
            engine,
            0,
            snapshot.getVersion(),
            EnumSet.of(DeltaAction.ADD, DeltaAction.COMMITINFO))) {
      while (batches.hasNext()) {
        ColumnarBatch batch = batches.next();
        int versionAt = batch.getSchema().indexOf("version");
        int addAt = batch.getSchema().indexOf(DeltaAction.ADD.colName);
        int infoAt = batch.getSchema().indexOf(DeltaAction.COMMITINFO.colName);
        try (CloseableIterator<Row> rows = batch.getRows()) {
          while (rows.hasNext()) {
            Row r = rows.next();
            long version = r.getLong(versionAt);
            if (!r.isNullAt(infoAt)) {
              Row info = r.getStruct(infoAt);
              int ts = info.getSchema().indexOf("timestamp");
              if (!info.isNullAt(ts)) {
                timestamps.put(version, info.getLong(ts));
              }
            }
            if (!r.isNullAt(addAt)) {
              Row add = r.getStruct(addAt);
              if (add.getBoolean(add.getSchema().indexOf("dataChange"))) {
                paths
                    .computeIfAbsent(version, v -> new ArrayList<>())
                    .add(add.getString(add.getSchema().indexOf("path")));
              }
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading the log of " + root, e);
    }
    for (Map.Entry<Long, List<String>> e : paths.entrySet()) {
      Long ts = timestamps.get(e.getKey());
      if (ts != null) {
        Commit commit = new Commit(e.getKey(), ts);
        e.getValue().forEach(p -> added.put(p, commit));
      }
    }
    return added;
  }
}
