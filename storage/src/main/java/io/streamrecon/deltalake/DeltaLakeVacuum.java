package io.streamrecon.deltalake;

import io.delta.kernel.Snapshot;
import io.delta.kernel.Table;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.KernelException;
import io.delta.kernel.internal.DeltaLogActionUtils.DeltaAction;
import io.delta.kernel.internal.TableImpl;
import io.delta.kernel.internal.actions.DeletionVectorDescriptor;
import io.delta.kernel.utils.CloseableIterator;
import io.streamrecon.deltalake.DeltaLakeMaintenance.VacuumResult;
import java.io.IOException;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * Vacuum: deletes data files that no snapshot within the retention references and that are older
 * than the retention (so files of a bundle not yet committed survive). Never touches {@code
 * _delta_log}. Delta Kernel has no vacuum; it reads the snapshots and the commits, this class lists
 * and deletes. Deletion vector files that a referenced file uses are kept with it.
 */
final class DeltaLakeVacuum {
  private DeltaLakeVacuum() {}

  /**
   * Deletes the data files of {@code table} that no snapshot from {@code now - retain} on
   * references and that were last modified before {@code now - retain}. The referenced set is the
   * snapshot current at {@code now - retain} plus every file added by a later commit; {@code
   * _delta_log} and other directories starting with {@code _} or {@code .} are never listed, except
   * the row key sidecars ({@code RowKeys.SIDECAR_DIRECTORY}), which are deleted once older than the
   * retention (a replay reaches back one checkpoint, far less than the minimum retention). A table
   * folder without a log (a first run that failed before committing) references nothing, so all its
   * data files older than the retention are deleted. A table folder streamrecon did not write is
   * refused before anything is deleted ({@link WarehouseOwnership}).
   */
  static VacuumResult vacuum(
      Configuration conf, String warehouse, String table, Duration retain, Instant now)
      throws IOException {
    DeltaLakeMaintenance.checkVacuumRetention(retain);
    TableLayouts.forName(table);
    Path root = DeltaLakeCommitter.tablePath(warehouse, table);
    FileSystem fs = root.getFileSystem(conf);
    if (!fs.exists(root)) {
      return new VacuumResult(table, 0, 0, 0, -1);
    }
    WarehouseOwnership.requireOwnTables(conf, warehouse, java.util.List.of(table));
    long horizon = now.getMillis() - retain.getMillis();
    Engine engine = DeltaLakeEngine.create(conf);
    Snapshot latest = DeltaLakeSnapshot.kernelSnapshot(engine, root);
    if (latest == null) {
      // Data files of a first run that failed before its first commit: nothing references them.
      return deleteUnreferenced(fs, root, table, Set.of(), horizon, -1);
    }
    Table t = Table.forPath(engine, root.toString());
    long oldest = oldestVersionToKeep(engine, t, root, latest, horizon);
    Set<String> referenced = new HashSet<>();
    Snapshot oldestSnapshot = t.getSnapshotAsOfVersion(engine, oldest);
    for (Row add : DeltaLakeSnapshot.addActions(engine, root, oldestSnapshot)) {
      referenced.add(normalize(add.getString(add.getSchema().indexOf("path"))));
      // A deletion vector stored beside the table is referenced as long as its file is.
      String dv = deletionVectorFile(add);
      if (dv != null) {
        referenced.add(dv);
      }
    }
    if (oldest < latest.getVersion()) {
      try (CloseableIterator<ColumnarBatch> batches =
          ((TableImpl) t)
              .getChanges(engine, oldest + 1, latest.getVersion(), EnumSet.of(DeltaAction.ADD))) {
        while (batches.hasNext()) {
          ColumnarBatch batch = batches.next();
          int addAt = batch.getSchema().indexOf(DeltaAction.ADD.colName);
          try (CloseableIterator<Row> rows = batch.getRows()) {
            while (rows.hasNext()) {
              Row r = rows.next();
              if (!r.isNullAt(addAt)) {
                Row add = r.getStruct(addAt);
                referenced.add(normalize(add.getString(add.getSchema().indexOf("path"))));
                String dv = deletionVectorFile(add);
                if (dv != null) {
                  referenced.add(dv);
                }
              }
            }
          }
        }
      }
    }
    return deleteUnreferenced(fs, root, table, referenced, horizon, oldest);
  }

  /**
   * Deletes the files under {@code root} that are not {@code referenced} and were last modified
   * before {@code horizon}, and the row key sidecars older than it; other hidden files are kept.
   */
  private static VacuumResult deleteUnreferenced(
      FileSystem fs, Path root, String table, Set<String> referenced, long horizon, long oldest)
      throws IOException {
    String rootUri = fs.makeQualified(root).toUri().getPath();
    long deleted = 0;
    long bytes = 0;
    long kept = 0;
    RemoteIterator<LocatedFileStatus> files = fs.listFiles(root, true);
    while (files.hasNext()) {
      LocatedFileStatus status = files.next();
      String relative = relativize(rootUri, status.getPath().toUri().getPath());
      if (relative == null) {
        continue;
      }
      if (relative.startsWith(RowKeys.SIDECAR_DIRECTORY + "/")) {
        if (status.getModificationTime() < horizon && fs.delete(status.getPath(), false)) {
          deleted++;
          bytes += status.getLen();
        }
        continue;
      }
      if (hidden(relative)) {
        continue;
      }
      if (referenced.contains(relative) || status.getModificationTime() >= horizon) {
        kept++;
        continue;
      }
      if (fs.delete(status.getPath(), false)) {
        deleted++;
        bytes += status.getLen();
      }
    }
    return new VacuumResult(table, deleted, bytes, kept, oldest);
  }

  /** The version current at {@code horizon}: the newest committed at or before it, else first. */
  private static long oldestVersionToKeep(
      Engine engine, Table table, Path root, Snapshot latest, long horizon) {
    try {
      return table.getSnapshotAsOfTimestamp(engine, horizon).getVersion();
    } catch (KernelException e) {
      // The horizon is before the first commit still in the log, or after the latest: every
      // readable version is within the retention, or only the latest is.
      if (horizon >= latest.getTimestamp(engine)) {
        return latest.getVersion();
      }
      return earliestReadableVersion(engine, table, latest);
    }
  }

  private static long earliestReadableVersion(Engine engine, Table table, Snapshot latest) {
    for (long v = 0; v <= latest.getVersion(); v++) {
      try {
        table.getSnapshotAsOfVersion(engine, v);
        return v;
      } catch (KernelException e) {
        // Older commit files were cleaned up after a checkpoint; try the next.
      }
    }
    return latest.getVersion();
  }

  /**
   * The table-relative path of the deletion vector file of an {@code add} action ({@code u}: a file
   * beside the table named from a UUID), or null when it has none or the vector is inline.
   */
  private static String deletionVectorFile(Row add) {
    int at = add.getSchema().indexOf("deletionVector");
    if (at < 0 || add.isNullAt(at)) {
      return null;
    }
    DeletionVectorDescriptor dv = DeletionVectorDescriptor.fromRow(add.getStruct(at));
    if (!"u".equals(dv.getStorageType())) {
      return null;
    }
    String encoded = dv.getPathOrInlineDv();
    String prefix = encoded.substring(0, encoded.length() - 20);
    java.util.UUID uuid =
        io.delta.kernel.internal.deletionvectors.Base85Codec.decodeUUID(
            encoded.substring(encoded.length() - 20));
    return (prefix.isEmpty() ? "" : prefix + "/") + "deletion_vector_" + uuid + ".bin";
  }

  private static String normalize(String path) {
    return new Path(path).toUri().getPath();
  }

  private static String relativize(String root, String path) {
    String prefix = root.endsWith("/") ? root : root + "/";
    return path.startsWith(prefix) ? path.substring(prefix.length()) : null;
  }

  /** Delta keeps its log and other metadata under names starting with {@code _} or {@code .}. */
  static boolean hidden(String relative) {
    for (String part : relative.split("/")) {
      if (part.startsWith("_") || part.startsWith(".")) {
        return true;
      }
    }
    return false;
  }
}
