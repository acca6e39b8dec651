package io.streamrecon.deltalake;

import io.delta.standalone.DeltaLog;
import io.delta.standalone.Snapshot;
import io.delta.standalone.actions.AddFile;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * The live data files of one Delta Lake table at one version: the single read path through the
 * transaction log for every reader of stored rows (lookups, reports, replay). Readers see data
 * files, their partition values and their statistics, never the log library's own types, so the
 * library behind the log can change in this one class.
 */
public final class DeltaLakeSnapshot {

  /**
   * One live data file.
   *
   * @param path relative to the table root, as the log holds it
   * @param partitionValues partition column to value, as text ({@code null} for a null value)
   * @param size bytes
   * @param stats the file's statistics JSON ({@code numRecords}, {@code minValues}, {@code
   *     maxValues}, {@code nullCount}), or {@code null} when the writer left none
   */
  public record TableFile(String path, Map<String, String> partitionValues, long size, String stats) {
    public TableFile {
      Objects.requireNonNull(path, "path");
      partitionValues = partitionValues == null ? Map.of() : partitionValues;
    }
  }

  private final Path root;
  private final long version;
  private final List<TableFile> files;

  private DeltaLakeSnapshot(Path root, long version, List<TableFile> files) {
    this.root = root;
    this.version = version;
    this.files = List.copyOf(files);
  }

  /**
   * The latest snapshot of the table at {@code root}, or {@code null} when no table is there (no
   * commit yet).
   */
  public static DeltaLakeSnapshot latest(Configuration conf, Path root) {
    DeltaLog log = DeltaLog.forTable(conf, root);
    if (!log.tableExists()) {
      return null;
    }
    Snapshot snapshot = log.update();
    List<TableFile> files = new ArrayList<>();
    for (AddFile f : snapshot.getAllFiles()) {
      files.add(new TableFile(f.getPath(), f.getPartitionValues(), f.getSize(), f.getStats()));
    }
    files.sort(Comparator.comparing(TableFile::path));
    return new DeltaLakeSnapshot(root, snapshot.getVersion(), files);
  }

  /** The latest snapshot of {@code table} under {@code warehouse}, or {@code null} if none. */
  public static DeltaLakeSnapshot latest(String warehouse, String table) {
    return latest(new Configuration(), DeltaLakeCommitter.tablePath(warehouse, table));
  }

  /** The table root. */
  public Path root() {
    return root;
  }

  /** The table version this snapshot reads. */
  public long version() {
    return version;
  }

  /** The live data files, sorted by path. */
  public List<TableFile> files() {
    return files;
  }
}
