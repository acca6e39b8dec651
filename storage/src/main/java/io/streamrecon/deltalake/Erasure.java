package io.streamrecon.deltalake;

import io.delta.kernel.Snapshot;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.ConcurrentWriteException;
import io.delta.kernel.internal.actions.AddFile;
import io.streamrecon.deltalake.DeltaLakeMaintenance.ForgetResult;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.filter2.predicate.FilterApi;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.io.api.Binary;
import org.joda.time.Instant;

/**
 * Erasure of natural ids from one table (docs/design.md#erasure): every live file that can hold a
 * row of the ids (by its {@code natural_id} statistics; every file of {@code dead_letters}) is
 * read; each one that holds such a row is rewritten without the ids' values ({@link ErasedRows})
 * and swapped in one commit per table through Delta Kernel ({@code remove} + {@code add}, {@code
 * dataChange=true}). The old files stay on storage until a vacuum.
 *
 * <p>A concurrent commit that removed one of the same files first (a compaction, retention, a Spark
 * {@code DELETE}) makes Kernel refuse the commit; the table is then planned again from the new
 * snapshot, so the erasure covers the rewritten files too and no commit is lost. Rows appended
 * meanwhile are new data, which a later erasure covers.
 *
 * <p>A file with a deletion vector (rows another engine deleted) is rewritten without the rows the
 * vector deletes, so those deletions hold in the new file, which has no vector; its {@code remove}
 * carries the vector, as the protocol asks.
 */
final class Erasure {
  private Erasure() {}

  static ForgetResult forget(Configuration conf, String warehouse, String table, ErasedRows rows)
      throws IOException {
    Configuration withStore = DeltaLakeEngine.withAtomicLocalLogStore(conf);
    Engine engine = DeltaLakeEngine.create(withStore);
    Path root = DeltaLakeCommitter.tablePath(warehouse, table);
    TableLayout<?> layout = TableLayouts.forName(table);
    TableLayout<Map<String, Object>> rowLayout = DeltaLakeCompaction.rowLayout(layout);
    // The writer keeps a large file's row keys in a sidecar under this name until the commit.
    String sidecarRun = "forget-" + java.util.UUID.randomUUID();
    int conflicts = 0;
    RuntimeException last = null;
    for (int attempt = 1; attempt <= DeltaLakeMaintenance.MAX_ATTEMPTS; attempt++) {
      Snapshot snapshot = DeltaLakeSnapshot.kernelSnapshot(engine, root);
      if (snapshot == null) {
        return new ForgetResult(table, 0, 0, 0, 0, -1, conflicts, Set.of());
      }
      List<AddFile> inputs = new ArrayList<>();
      List<DataFile> outputs = new ArrayList<>();
      long removed = 0;
      long cleared = 0;
      Set<String> erasedIds = new HashSet<>();
      try {
        for (AddFile f : DeltaLakeCompaction.liveFiles(engine, root, snapshot)) {
          if (!rows.mayHold(table, DeltaLakeCompaction.stats(f))
              || changes(withStore, root, layout, f, rows) == 0) {
            continue;
          }
          Rewritten r = rewrite(withStore, root, layout, rowLayout, f, rows, sidecarRun);
          inputs.add(f);
          outputs.addAll(r.files);
          removed += r.removed;
          cleared += r.cleared;
          erasedIds.addAll(r.naturalIds);
        }
      } catch (IOException | RuntimeException e) {
        deleteQuietly(withStore, root, outputs);
        throw e;
      }
      if (inputs.isEmpty()) {
        return new ForgetResult(table, 0, 0, 0, 0, -1, conflicts, Set.of());
      }
      try {
        long version =
            DeltaLakeCommitter.commitRewrite(engine, root, snapshot, inputs, outputs, true);
        RowKeys.removeSidecarsOfRun(withStore, root, sidecarRun);
        return new ForgetResult(
            table, removed, cleared, inputs.size(), outputs.size(), version, conflicts, erasedIds);
      } catch (ConcurrentWriteException e) {
        // A file this commit removes was removed first by another commit: plan again from the
        // snapshot that commit made, so its files are erased too.
        conflicts++;
        last = e;
        deleteQuietly(withStore, root, outputs);
      }
    }
    throw new IllegalStateException(
        "could not commit the erasure of "
            + table
            + " after "
            + DeltaLakeMaintenance.MAX_ATTEMPTS
            + " attempts: other commits kept removing the same files; nothing was committed to "
            + table,
        last);
  }

  /**
   * Rows of {@code f} that erasure changes. Tables with a {@code natural_id} column read only the
   * row groups and pages Parquet's statistics, dictionaries and bloom filters admit for the ids.
   */
  private static long changes(
      Configuration conf, Path root, TableLayout<?> layout, AddFile f, ErasedRows rows)
      throws IOException {
    ParquetReader.Builder<Group> builder =
        DataFileFormat.reader(
            new GroupReadSupport(), HadoopInputFile.fromPath(new Path(root, f.getPath()), conf));
    DeletedRows deleted = deletedRows(conf, root, f);
    // A filtered read skips rows, so it cannot tell a row's position: a file with a deletion
    // vector is read whole, to leave out the rows the vector deletes.
    if (!WarehouseTables.DEAD_LETTERS.equals(layout.name) && deleted == DeletedRows.NONE) {
      Set<Binary> values = new HashSet<>();
      for (String id : rows.ids()) {
        values.add(Binary.fromString(id));
      }
      builder =
          builder.withFilter(
              FilterCompat.get(
                  FilterApi.in(FilterApi.binaryColumn(PayloadReader.NATURAL_ID), values)));
    }
    long changed = 0;
    Map<String, String> partitionValues = DeltaLakeCompaction.partitionValues(f);
    long position = 0;
    try (ParquetReader<Group> reader = builder.build()) {
      for (Group g = reader.read(); g != null; g = reader.read()) {
        if (deleted.contains(position++)) {
          continue;
        }
        if (rows.apply(layout.name, DeltaLakeCompaction.toRow(g, layout, partitionValues))
            .changed()) {
          changed++;
        }
      }
    }
    return changed;
  }

  private record Rewritten(
      List<DataFile> files, long removed, long cleared, Set<String> naturalIds) {}

  /** Every row of {@code f}, in order, as erasure leaves it, into one new file. */
  private static Rewritten rewrite(
      Configuration conf,
      Path root,
      TableLayout<?> layout,
      TableLayout<Map<String, Object>> rowLayout,
      AddFile f,
      ErasedRows rows,
      String sidecarRun)
      throws IOException {
    long expected = FileStats.numRecords(DeltaLakeCompaction.stats(f));
    DeletedRows deleted = deletedRows(conf, root, f);
    long alreadyDeleted = 0;
    long read = 0;
    long removed = 0;
    long cleared = 0;
    Set<String> naturalIds = new HashSet<>();
    Map<String, String> partitionValues = DeltaLakeCompaction.partitionValues(f);
    try (DataFileWriter<Map<String, Object>> writer =
        new DataFileWriter<>(
            conf,
            root,
            rowLayout,
            sidecarRun,
            Long.MAX_VALUE,
            expected < 0 ? DataFileWriter.DEFAULT_EXPECTED_ROWS : expected)) {
      Instant now = Instant.now();
      try (ParquetReader<Group> reader =
          DataFileFormat.reader(
                  new GroupReadSupport(),
                  HadoopInputFile.fromPath(new Path(root, f.getPath()), conf))
              .build()) {
        for (Group g = reader.read(); g != null; g = reader.read()) {
          if (deleted.contains(read++)) {
            alreadyDeleted++;
            continue;
          }
          ErasedRows.RowAfterErasure o =
              rows.apply(layout.name, DeltaLakeCompaction.toRow(g, layout, partitionValues));
          cleared += o.valuesCleared();
          if (o.changed()) {
            naturalIds.add(o.naturalId());
          }
          if (o.row() == null) {
            removed++;
          } else {
            writer.write(o.row(), now);
          }
        }
      }
      List<DataFile> files = writer.finish();
      long written = files.stream().mapToLong(DataFile::numRecords).sum();
      long kept = read - alreadyDeleted - removed;
      if ((expected >= 0 && read != expected) || written != kept) {
        deleteQuietly(conf, root, files);
        throw new IllegalStateException(
            "erasure of "
                + layout.name
                + " read "
                + read
                + " rows from "
                + f.getPath()
                + (expected >= 0 ? " (its stats count " + expected + ")" : "")
                + " and wrote "
                + written
                + " for "
                + kept
                + " kept; nothing committed");
      }
      return new Rewritten(files, removed, cleared, naturalIds);
    }
  }

  /** The rows of {@code f} its deletion vector deletes ({@link DeletedRows#NONE} without one). */
  private static DeletedRows deletedRows(Configuration conf, Path root, AddFile f) {
    return f.getDeletionVector()
        .map(
            d ->
                DeletedRows.load(
                    conf,
                    root,
                    new DeltaLakeSnapshot.DeletionVector(
                        d.getStorageType(),
                        d.getPathOrInlineDv(),
                        d.getOffset().orElse(null),
                        d.getSizeInBytes(),
                        d.getCardinality())))
        .orElse(DeletedRows.NONE);
  }

  private static void deleteQuietly(Configuration conf, Path root, List<DataFile> files) {
    for (DataFile f : files) {
      Path p = new Path(root, f.path());
      try {
        p.getFileSystem(conf).delete(p, false);
      } catch (IOException e) {
        // Never committed: VACUUM removes it later.
      }
    }
  }
}
