package io.streamrecon.deltalake;

import io.delta.kernel.Snapshot;
import io.delta.kernel.Table;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.TableNotFoundException;
import io.delta.kernel.internal.InternalScanFileUtils;
import io.delta.kernel.internal.actions.DeletionVectorDescriptor;
import io.delta.kernel.internal.util.VectorUtils;
import io.delta.kernel.utils.CloseableIterator;
import java.io.IOException;
import java.io.UncheckedIOException;
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
 *
 * <p>The log is read with Delta Kernel: any table Kernel can read (protocol up to (3,7) with the
 * reader features Kernel supports, such as deletion vectors, change data feed or column statistics
 * settings Spark adds) reads here.
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
   * @param deletionVector the rows another engine deleted without rewriting the file, or {@code
   *     null} when none is; {@code numRecords} counts them too
   */
  public record TableFile(
      String path,
      Map<String, String> partitionValues,
      long size,
      String stats,
      DeletionVector deletionVector) {
    public TableFile {
      Objects.requireNonNull(path, "path");
      partitionValues = partitionValues == null ? Map.of() : partitionValues;
    }

    /** A file without a deletion vector. */
    public TableFile(String path, Map<String, String> partitionValues, long size, String stats) {
      this(path, partitionValues, size, stats, null);
    }
  }

  /**
   * The deletion vector descriptor of a file's {@code add} action, as the Delta protocol defines
   * it; {@link DeletedRows} loads the rows it names.
   *
   * @param storageType {@code u} (a file beside the table named by a UUID), {@code p} (an absolute
   *     path) or {@code i} (inline)
   * @param offset where the vector starts in its file, or {@code null}
   * @param cardinality how many rows it deletes
   */
  public record DeletionVector(
      String storageType,
      String pathOrInlineDv,
      Integer offset,
      int sizeInBytes,
      long cardinality) {
    public DeletionVector {
      Objects.requireNonNull(storageType, "storageType");
      Objects.requireNonNull(pathOrInlineDv, "pathOrInlineDv");
    }

    static DeletionVector of(Row descriptor) {
      if (descriptor == null) {
        return null;
      }
      DeletionVectorDescriptor d = DeletionVectorDescriptor.fromRow(descriptor);
      return new DeletionVector(
          d.getStorageType(),
          d.getPathOrInlineDv(),
          d.getOffset().orElse(null),
          d.getSizeInBytes(),
          d.getCardinality());
    }
  }

  private final Engine engine;
  private final Path root;
  private final long version;
  private final List<TableFile> files;

  private DeltaLakeSnapshot(Engine engine, Path root, long version, List<TableFile> files) {
    this.engine = engine;
    this.root = root;
    this.version = version;
    this.files = List.copyOf(files);
  }

  /**
   * The latest snapshot of the table at {@code root}, or {@code null} when no table is there (no
   * commit yet).
   */
  public static DeltaLakeSnapshot latest(Configuration conf, Path root) {
    return latest(DeltaLakeEngine.create(conf), root);
  }

  /** {@link #latest(Configuration, Path)} through an engine the caller holds. */
  static DeltaLakeSnapshot latest(Engine engine, Path root) {
    Snapshot snapshot = kernelSnapshot(engine, root);
    return snapshot == null ? null : of(engine, root, snapshot);
  }

  /** Kernel's latest snapshot of the table at {@code root}, or {@code null} when there is none. */
  public static Snapshot kernelSnapshot(Engine engine, Path root) {
    try {
      return Table.forPath(engine, root.toString()).getLatestSnapshot(engine);
    } catch (TableNotFoundException e) {
      return null;
    }
  }

  static DeltaLakeSnapshot of(Engine engine, Path root, Snapshot snapshot) {
    List<TableFile> files = new ArrayList<>();
    for (Row add : addActions(engine, root, snapshot)) {
      int stats = add.getSchema().indexOf("stats");
      int dv = add.getSchema().indexOf("deletionVector");
      files.add(
          new TableFile(
              add.getString(add.getSchema().indexOf("path")),
              VectorUtils.toJavaMap(add.getMap(add.getSchema().indexOf("partitionValues"))),
              add.getLong(add.getSchema().indexOf("size")),
              add.isNullAt(stats) ? null : add.getString(stats),
              dv < 0 || add.isNullAt(dv) ? null : DeletionVector.of(add.getStruct(dv))));
    }
    files.sort(Comparator.comparing(TableFile::path));
    return new DeltaLakeSnapshot(engine, root, snapshot.getVersion(), files);
  }

  /**
   * The {@code add} action of every live file of {@code snapshot}, with its statistics, in log
   * order: for the code that rewrites or removes files (compaction, retention), which needs the
   * whole action.
   */
  static List<Row> addActions(Engine engine, Path root, Snapshot snapshot) {
    List<Row> adds = new ArrayList<>();
    try (CloseableIterator<FilteredColumnarBatch> batches =
        snapshot.getScanBuilder().build().getScanFiles(engine, true)) {
      while (batches.hasNext()) {
        try (CloseableIterator<Row> rows = batches.next().getRows()) {
          while (rows.hasNext()) {
            adds.add(rows.next().getStruct(InternalScanFileUtils.ADD_FILE_ORDINAL));
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading the log of " + root, e);
    }
    return adds;
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

  /**
   * The rows of {@code file} (one of {@link #files()}) deleted by its deletion vector: a reader
   * skips them. Loads the vector on every call; call it once per file read.
   */
  public DeletedRows deletedRows(TableFile file) {
    return DeletedRows.load(engine, root, file.deletionVector());
  }
}
