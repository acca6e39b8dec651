package io.streamrecon.deltalake;

import io.delta.kernel.Snapshot;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.ConcurrentWriteException;
import io.delta.kernel.internal.actions.AddFile;
import io.delta.kernel.internal.util.VectorUtils;
import io.streamrecon.deltalake.DeltaLakeMaintenance.CompactResult;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.schema.GroupType;
import org.joda.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compaction: bin-packs the small files of each partition into files of about a target size,
 * rewritten with the project's own Parquet writer and per-file stats, and commits the swap ({@code
 * remove} + {@code add}, {@code dataChange=false}) per partition through Delta Kernel. Appends
 * never conflict with it; a concurrent removal of the same files (another compaction, retention, a
 * Spark DELETE) makes the commit fail, after which the partition is checked again and retried or
 * given up.
 *
 * <p>Kernel commits the actions but has no compaction of its own: planning the bins, rewriting the
 * rows and building the {@code remove} actions is this class. Files with a deletion vector are not
 * compacted (the rewrite would have to drop the deleted rows), so deletions made by another engine
 * are kept.
 */
public final class DeltaLakeCompaction {
  private static final Logger LOG = LoggerFactory.getLogger(DeltaLakeCompaction.class);

  private DeltaLakeCompaction() {}

  /** Compressed bytes of a raw_events bin sorted in memory (several times that as rows). */
  static final long SORT_BUDGET_BYTES = 64L << 20;

  static CompactResult compact(
      Configuration conf, String warehouse, String table, long targetFileSize) throws IOException {
    if (targetFileSize < 1) {
      throw new IllegalArgumentException(
          "--targetFileSize=" + targetFileSize + " must be at least one byte");
    }
    TableLayout<?> layout = TableLayouts.forName(table);
    WarehouseOwnership.requireOwnTables(conf, warehouse, List.of(table));
    Path root = DeltaLakeCommitter.tablePath(warehouse, table);
    Configuration withStore = DeltaLakeEngine.withAtomicLocalLogStore(conf);
    return compact(
        withStore,
        DeltaLakeEngine.create(withStore),
        root,
        layout,
        targetFileSize,
        2,
        false,
        Integer.MAX_VALUE);
  }

  /**
   * The bounded step of auto-compaction ({@code --autoCompact}), run by a streaming committer right
   * after its own commit, with its own engine: compacts at most {@code maxPartitions} partitions,
   * those holding at least {@code minSmallFiles} files smaller than {@code targetFileSize} of one
   * size {@link #tier}, merging files of that tier only. The same commits as {@link #compact}, so
   * it is as safe beside other writers and compactions.
   */
  public static CompactResult autoCompact(
      Configuration conf,
      Engine engine,
      Path root,
      TableLayout<?> layout,
      int minSmallFiles,
      long targetFileSize,
      int maxPartitions)
      throws IOException {
    return compact(conf, engine, root, layout, targetFileSize, minSmallFiles, true, maxPartitions);
  }

  private static CompactResult compact(
      Configuration conf,
      Engine engine,
      Path root,
      TableLayout<?> layout,
      long targetFileSize,
      int minSmallFiles,
      boolean tiered,
      int maxPartitions)
      throws IOException {
    String table = layout.name;
    Snapshot snapshot = DeltaLakeSnapshot.kernelSnapshot(engine, root);
    if (snapshot == null) {
      return new CompactResult(table, 0, 0, 0, 0, 0, 0, 0, 0, List.of());
    }
    Map<String, List<List<AddFile>>> plan = new TreeMap<>();
    for (Map.Entry<String, List<List<AddFile>>> e :
        plan(liveFiles(engine, root, snapshot), targetFileSize, minSmallFiles, tiered).entrySet()) {
      if (plan.size() < maxPartitions) {
        plan.put(e.getKey(), e.getValue());
      }
    }
    TableLayout<Map<String, Object>> rows = rowLayout(layout);
    int partitions = 0;
    int removed = 0;
    int added = 0;
    long rowCount = 0;
    long bytesRemoved = 0;
    long bytesAdded = 0;
    int retried = 0;
    int abandoned = 0;
    List<Long> versions = new ArrayList<>();
    for (Map.Entry<String, List<List<AddFile>>> partition : plan.entrySet()) {
      List<AddFile> inputs = new ArrayList<>();
      List<DataFile> outputs = new ArrayList<>();
      for (List<AddFile> bin : partition.getValue()) {
        outputs.addAll(rewrite(conf, root, layout, rows, bin, targetFileSize));
        inputs.addAll(bin);
      }
      SwapCommit outcome = commitSwap(engine, root, layout, inputs, outputs);
      retried += outcome.conflicts;
      if (outcome.version < 0) {
        abandoned += partition.getValue().size();
        deleteQuietly(conf, root, outputs);
        continue;
      }
      versions.add(outcome.version);
      partitions++;
      removed += inputs.size();
      added += outputs.size();
      rowCount += outputs.stream().mapToLong(DataFile::numRecords).sum();
      bytesRemoved += inputs.stream().mapToLong(AddFile::getSize).sum();
      bytesAdded += outputs.stream().mapToLong(DataFile::sizeBytes).sum();
    }
    return new CompactResult(
        table,
        partitions,
        removed,
        added,
        rowCount,
        bytesRemoved,
        bytesAdded,
        retried,
        abandoned,
        versions);
  }

  /**
   * Partition directory to its bins: files under the target size, oldest first, packed until a bin
   * reaches the target; bins of one file are dropped (rewriting them gains nothing).
   */
  static Map<String, List<List<AddFile>>> plan(List<AddFile> live, long targetFileSize) {
    return plan(live, targetFileSize, 2, false);
  }

  /**
   * As {@link #plan(List, long)}, for the partitions with at least {@code minSmallFiles} small
   * files; {@code tiered}: only files of one size tier (within a factor of 4 of each other, see
   * {@link #tier}) are merged, and a tier only once it holds {@code minSmallFiles} files.
   */
  static Map<String, List<List<AddFile>>> plan(
      List<AddFile> live, long targetFileSize, int minSmallFiles, boolean tiered) {
    Map<String, Map<Integer, List<AddFile>>> small = new TreeMap<>();
    for (AddFile f : live) {
      // A file with a deletion vector (rows deleted by another engine) is left as it is: the
      // rewrite would need to apply the vector, which this compaction does not do.
      if (f.getSize() < targetFileSize && f.getDeletionVector().isEmpty()) {
        small
            .computeIfAbsent(
                TableLayout.partitionDirectory(new TreeMap<>(partitionValues(f))),
                k -> new TreeMap<>())
            .computeIfAbsent(tiered ? tier(f.getSize()) : 0, k -> new ArrayList<>())
            .add(f);
      }
    }
    Map<String, List<List<AddFile>>> plan = new TreeMap<>();
    for (Map.Entry<String, Map<Integer, List<AddFile>>> e : small.entrySet()) {
      List<List<AddFile>> bins = new ArrayList<>();
      for (List<AddFile> files : e.getValue().values()) {
        if (files.size() < minSmallFiles) {
          continue;
        }
        files.sort(
            Comparator.comparingLong(AddFile::getModificationTime).thenComparing(AddFile::getPath));
        List<AddFile> bin = new ArrayList<>();
        long size = 0;
        for (AddFile f : files) {
          bin.add(f);
          size += f.getSize();
          if (size >= targetFileSize) {
            bins.add(bin);
            bin = new ArrayList<>();
            size = 0;
          }
        }
        bins.add(bin);
      }
      bins.removeIf(b -> b.size() < 2);
      if (!bins.isEmpty()) {
        plan.put(e.getKey(), bins);
      }
    }
    return plan;
  }

  /**
   * Size tier of a file for auto-compaction: floor(log4(bytes)). Merging only files of one tier
   * keeps a growing compacted file from being rewritten with every few new small files: a row is
   * rewritten about once per tier it climbs (a few times between KB and the target size) instead of
   * once per compaction of its partition.
   */
  static int tier(long bytes) {
    return (63 - Long.numberOfLeadingZeros(Math.max(1, bytes))) / 2;
  }

  /** Streams the rows of a bin's files, in order, into new files of about the target size. */
  private static List<DataFile> rewrite(
      Configuration conf,
      Path root,
      TableLayout<?> layout,
      TableLayout<Map<String, Object>> rows,
      List<AddFile> bin,
      long targetFileSize)
      throws IOException {
    // Bloom filters are sized for the bin's rows (at most a file's worth): known from the stats.
    long binRows = 0;
    for (AddFile f : bin) {
      long n = FileStats.numRecords(stats(f));
      binRows += n < 0 ? DataFileWriter.DEFAULT_EXPECTED_ROWS : n;
    }
    try (DataFileWriter<Map<String, Object>> writer =
        new DataFileWriter<>(conf, root, rows, "compact", targetFileSize, binRows)) {
      Instant now = Instant.now();
      // raw_events rows are sorted by natural_id when the bin is small enough to sort in memory:
      // row-group stats and the column index then lead a key lookup to one page.
      long binBytes = bin.stream().mapToLong(AddFile::getSize).sum();
      List<Map<String, Object>> sorted =
          layout == TableLayouts.RAW_EVENTS && binBytes <= SORT_BUDGET_BYTES
              ? new ArrayList<>()
              : null;
      for (AddFile f : bin) {
        try (ParquetReader<Group> reader =
            DataFileFormat.reader(
                    new GroupReadSupport(),
                    HadoopInputFile.fromPath(new Path(root, f.getPath()), conf))
                .build()) {
          for (Group g = reader.read(); g != null; g = reader.read()) {
            Map<String, Object> row = toRow(g, layout, partitionValues(f));
            if (sorted != null) {
              sorted.add(row);
            } else {
              writer.write(row, now);
            }
          }
        }
      }
      if (sorted != null) {
        // Unsigned byte order of UTF-8 is code point order, the order Parquet's stats use.
        sorted.sort(
            (a, b) ->
                Arrays.compareUnsigned(
                    (byte[]) a.get(PayloadReader.NATURAL_ID),
                    (byte[]) b.get(PayloadReader.NATURAL_ID)));
        for (Map<String, Object> row : sorted) {
          writer.write(row, now);
        }
      }
      return writer.finish();
    }
  }

  /**
   * A stored row as column values the row layout writes back unchanged: top-level strings as their
   * bytes (payloads stay byte for byte), partition columns from the AddFile.
   */
  static Map<String, Object> toRow(
      Group g, TableLayout<?> layout, Map<String, String> partitionValues) {
    Map<String, Object> row = new LinkedHashMap<>();
    GroupType type = g.getType();
    for (ColumnSpec c : layout.columns) {
      if (c.partition) {
        row.put(c.name, partitionValues.get(c.name));
      } else if (c.kind == ColumnSpec.Kind.STRING
          && type.containsField(c.name)
          && g.getFieldRepetitionCount(type.getFieldIndex(c.name)) > 0) {
        row.put(c.name, g.getBinary(type.getFieldIndex(c.name), 0).getBytes());
      } else {
        row.put(c.name, DeltaLakeTables.value(g, c));
      }
    }
    return row;
  }

  /** The layout of {@code layout}'s table over rows held as column name to value maps. */
  @SuppressWarnings("unchecked")
  static TableLayout<Map<String, Object>> rowLayout(TableLayout<?> layout) {
    List<ColumnSpec> columns = layout.columns.stream().map(DeltaLakeCompaction::byName).toList();
    return new TableLayout<>(
        layout.name,
        (Class<Map<String, Object>>) (Class<?>) Map.class,
        columns,
        null,
        layout.identity.stream().map(c -> c.name).toList());
  }

  @SuppressWarnings("unchecked")
  private static ColumnSpec byName(ColumnSpec c) {
    String name = c.name;
    ColumnSpec.Getter getter = (record, context) -> ((Map<String, Object>) record).get(name);
    ColumnSpec copy =
        switch (c.kind) {
          case STRUCT ->
              ColumnSpec.struct(
                  name, getter, c.children.stream().map(DeltaLakeCompaction::byName).toList());
          case ARRAY_OF_STRUCT ->
              ColumnSpec.arrayOfStruct(
                  name, getter, c.children.stream().map(DeltaLakeCompaction::byName).toList());
          default -> ColumnSpec.of(name, c.kind, getter);
        };
    if (c.nullable) {
      copy = copy.nullable();
    }
    if (c.stats) {
      copy = copy.withStats();
    }
    if (c.partition) {
      copy = copy.partition();
    }
    if (!c.dictionary) {
      copy = copy.noDictionary();
    }
    if (c.bloomFilter) {
      copy = copy.withBloomFilter();
    }
    return copy;
  }

  private record SwapCommit(long version, int conflicts) {}

  /**
   * Commits the swap of {@code inputs} for {@code outputs}, retrying on conflicts. Before every
   * attempt the inputs must all still be in the snapshot the transaction reads: if one was removed
   * meanwhile the swap is given up, as committing it would bring the removed rows back (Kernel also
   * refuses a commit whose removes a winning commit removed first). Returns version -1 when given
   * up.
   */
  private static SwapCommit commitSwap(
      Engine engine,
      Path root,
      TableLayout<?> layout,
      List<AddFile> inputs,
      List<DataFile> outputs) {
    long inRows = 0;
    for (AddFile f : inputs) {
      inRows += FileStats.numRecords(stats(f));
    }
    long outRows = outputs.stream().mapToLong(DataFile::numRecords).sum();
    if (inRows >= 0
        && inputs.stream().allMatch(f -> FileStats.numRecords(stats(f)) >= 0)
        && inRows != outRows) {
      throw new IllegalStateException(
          "compaction of "
              + layout.name
              + " read "
              + outRows
              + " rows from files whose stats"
              + " count "
              + inRows
              + "; nothing committed");
    }
    int conflicts = 0;
    RuntimeException last = null;
    for (int attempt = 1; attempt <= DeltaLakeMaintenance.MAX_ATTEMPTS; attempt++) {
      Snapshot snapshot = DeltaLakeSnapshot.kernelSnapshot(engine, root);
      Set<String> current = new HashSet<>();
      for (AddFile f : liveFiles(engine, root, snapshot)) {
        current.add(f.getPath());
      }
      for (AddFile f : inputs) {
        if (!current.contains(f.getPath())) {
          LOG.warn(
              "{}: {} was removed by a concurrent commit; compaction of its partition given up",
              layout.name,
              f.getPath());
          return new SwapCommit(-1, conflicts);
        }
      }
      try {
        long version =
            DeltaLakeCommitter.commitRewrite(engine, root, snapshot, inputs, outputs, false);
        return new SwapCommit(version, conflicts);
      } catch (ConcurrentWriteException e) {
        conflicts++;
        last = e;
      }
    }
    throw new IllegalStateException(
        "could not commit the compaction of "
            + layout.name
            + " after "
            + DeltaLakeMaintenance.MAX_ATTEMPTS
            + " attempts",
        last);
  }

  /** The live files of {@code snapshot} as Kernel's {@code add} actions. */
  public static List<AddFile> liveFiles(Engine engine, Path root, Snapshot snapshot) {
    List<AddFile> files = new ArrayList<>();
    for (Row add : DeltaLakeSnapshot.addActions(engine, root, snapshot)) {
      files.add(new AddFile(add));
    }
    return files;
  }

  static String stats(AddFile f) {
    return f.getStatsJson().orElse(null);
  }

  static Map<String, String> partitionValues(AddFile f) {
    return VectorUtils.toJavaMap(f.getPartitionValues());
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
