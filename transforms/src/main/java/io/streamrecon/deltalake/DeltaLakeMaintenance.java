package io.streamrecon.deltalake;

import io.delta.standalone.CommitResult;
import io.delta.standalone.DeltaLog;
import io.delta.standalone.Operation;
import io.delta.standalone.OptimisticTransaction;
import io.delta.standalone.Snapshot;
import io.delta.standalone.VersionLog;
import io.delta.standalone.actions.Action;
import io.delta.standalone.actions.AddFile;
import io.delta.standalone.exceptions.DeltaConcurrentModificationException;
import java.io.IOException;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.schema.GroupType;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Table maintenance without Spark, safe while a pipeline appends to the same tables:
 *
 * <ul>
 *   <li>{@link #compact}: bin-packs the small files of each partition into files of about a target
 *       size, rewritten with the project's own Parquet writer and per-file stats, and commits the
 *       swap (RemoveFile + AddFile, {@code dataChange=false}) per partition. Appends never conflict
 *       with it; a concurrent removal of the same files (another compaction, retention) makes the
 *       commit fail, after which the partition is checked again and retried or given up.
 *   <li>{@link #vacuum}: deletes data files that no snapshot within the retention references and
 *       that are older than the retention (so files of a bundle not yet committed survive). Never
 *       touches {@code _delta_log}.
 *   <li>{@link #expireRawEvents}: removes the {@code raw_events} partitions whose event date lies
 *       wholly before a cutoff, in one commit ({@code dataChange=true}); refuses a retention that
 *       could remove a row an open pairing entry still points to.
 * </ul>
 */
public final class DeltaLakeMaintenance {
  private static final Logger LOG = LoggerFactory.getLogger(DeltaLakeMaintenance.class);

  private DeltaLakeMaintenance() {}

  /** Default target size of a compacted file, as Spark's OPTIMIZE uses for small tables. */
  public static final long DEFAULT_TARGET_FILE_SIZE = 128L << 20;

  /** The shortest vacuum retention accepted: longer than any write-to-commit delay of a bundle. */
  public static final Duration MIN_VACUUM_RETENTION = Duration.standardHours(1);

  /**
   * Added to the longest lifetime of a pairing entry (timeout + allowed lateness) before raw events
   * may be expired: covers a watermark that lags the wall clock by up to a day.
   */
  public static final Duration RETENTION_MARGIN = Duration.standardDays(1);

  /** The value of {@code operationParameters.operation} in the commit info of a compaction. */
  public static final String COMPACT_OPERATION = "OPTIMIZE";

  static final int MAX_ATTEMPTS = 20;

  /** Compressed bytes of a raw_events bin sorted in memory (several times that as rows). */
  static final long SORT_BUDGET_BYTES = 64L << 20;

  /** What {@link #compact} did to one table. */
  public record CompactResult(
      String table,
      int partitionsCompacted,
      int filesRemoved,
      int filesAdded,
      long rowsRewritten,
      long bytesRemoved,
      long bytesAdded,
      int conflictsRetried,
      int binsAbandoned,
      List<Long> versions) {

    /** One line for the command line. */
    public String describe() {
      return String.format(
          "%s: %d file(s) (%d bytes) rewritten into %d file(s) (%d bytes), %d row(s), %d"
              + " partition(s), commit version(s) %s%s",
          table,
          filesRemoved,
          bytesRemoved,
          filesAdded,
          bytesAdded,
          rowsRewritten,
          partitionsCompacted,
          versions,
          conflictsRetried + binsAbandoned == 0
              ? ""
              : "; " + conflictsRetried + " conflict(s) retried, " + binsAbandoned
                  + " bin(s) given up because a concurrent commit removed their files");
    }
  }

  /** What {@link #vacuum} deleted. */
  public record VacuumResult(
      String table, long filesDeleted, long bytesDeleted, long filesKept, long oldestVersionKept) {
    /** One line for the command line. */
    public String describe() {
      return String.format(
          "%s: deleted %d unreferenced file(s) (%d bytes); %d data file(s) kept; versions from %d"
              + " still readable",
          table, filesDeleted, bytesDeleted, filesKept, oldestVersionKept);
    }
  }

  /** What {@link #expireRawEvents} removed. */
  public record ExpireResult(
      LocalDate cutoff, List<String> partitions, long filesRemoved, long rowsRemoved, long version) {
    /** One line for the command line. */
    public String describe() {
      return partitions.isEmpty()
          ? "raw_events: no partition with event_date before " + cutoff
          : String.format(
              "raw_events: removed %d partition(s) with event_date before %s (%d file(s), %d"
                  + " row(s)) in version %d; run vacuum to delete the files",
              partitions.size(), cutoff, filesRemoved, rowsRemoved, version);
    }
  }

  // ------------------------------------------------------------------ compaction

  /**
   * Bin-packs the files smaller than {@code targetFileSize} of every partition of {@code table}
   * into files of about {@code targetFileSize}; a partition with fewer than two small files is left
   * alone. One commit per partition, so a conflict costs one partition's rewrite at most.
   */
  public static CompactResult compact(
      Configuration conf, String warehouse, String table, long targetFileSize) throws IOException {
    if (targetFileSize < 1) {
      throw new IllegalArgumentException(
          "--targetFileSize=" + targetFileSize + " must be at least one byte");
    }
    TableLayout<?> layout = TableLayouts.forName(table);
    Path root = DeltaLakeCommitter.tablePath(warehouse, table);
    DeltaLog log = DeltaLog.forTable(DeltaLakeCommitter.withAtomicLocalLogStore(conf), root);
    if (!log.tableExists()) {
      return new CompactResult(table, 0, 0, 0, 0, 0, 0, 0, 0, List.of());
    }
    return compact(conf, log, layout, targetFileSize, 2, false, Integer.MAX_VALUE);
  }

  /**
   * The bounded step of auto-compaction ({@code --autoCompact}), run by a streaming committer right
   * after its own commit, on its own (already updated) log: compacts at most {@code
   * maxPartitions} partitions, those holding at least {@code minSmallFiles} files smaller than
   * {@code targetFileSize} of one size {@link #tier}, merging files of that tier only. The same commits as {@link #compact}, so it is as safe beside other
   * writers and compactions.
   */
  static CompactResult autoCompact(
      Configuration conf,
      DeltaLog log,
      TableLayout<?> layout,
      int minSmallFiles,
      long targetFileSize,
      int maxPartitions)
      throws IOException {
    return compact(conf, log, layout, targetFileSize, minSmallFiles, true, maxPartitions);
  }

  private static CompactResult compact(
      Configuration conf,
      DeltaLog log,
      TableLayout<?> layout,
      long targetFileSize,
      int minSmallFiles,
      boolean tiered,
      int maxPartitions)
      throws IOException {
    String table = layout.name;
    Path root = log.getPath();
    Map<String, List<List<AddFile>>> plan = new TreeMap<>();
    for (Map.Entry<String, List<List<AddFile>>> e :
        plan(log.update(), targetFileSize, minSmallFiles, tiered).entrySet()) {
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
      SwapOutcome outcome = commitSwap(log, layout, inputs, outputs, targetFileSize);
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
        table, partitions, removed, added, rowCount, bytesRemoved, bytesAdded, retried, abandoned,
        versions);
  }

  /**
   * Partition directory to its bins: files under the target size, oldest first, packed until a
   * bin reaches the target; bins of one file are dropped (rewriting them gains nothing).
   */
  static Map<String, List<List<AddFile>>> plan(Snapshot snapshot, long targetFileSize) {
    return plan(snapshot, targetFileSize, 2, false);
  }

  /**
   * As {@link #plan(Snapshot, long)}, for the partitions with at least {@code minSmallFiles}
   * small files; {@code tiered}: only files of one size tier (within a factor of 4 of each other,
   * see {@link #tier}) are merged, and a tier only once it holds {@code minSmallFiles} files.
   */
  static Map<String, List<List<AddFile>>> plan(
      Snapshot snapshot, long targetFileSize, int minSmallFiles, boolean tiered) {
    Map<String, Map<Integer, List<AddFile>>> small = new TreeMap<>();
    for (AddFile f : snapshot.getAllFiles()) {
      if (f.getSize() < targetFileSize) {
        small
            .computeIfAbsent(
                TableLayout.partitionDirectory(new TreeMap<>(f.getPartitionValues())),
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
            Comparator.comparingLong(AddFile::getModificationTime)
                .thenComparing(AddFile::getPath));
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
   * rewritten about once per tier it climbs (a few times between KB and the target size) instead
   * of once per compaction of its partition.
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
      long n = FileStats.numRecords(f.getStats());
      binRows += n < 0 ? DataFileWriter.DEFAULT_EXPECTED_ROWS : n;
    }
    try (DataFileWriter<Map<String, Object>> writer =
        new DataFileWriter<>(conf, root, rows, "compact", targetFileSize, binRows)) {
      Instant now = Instant.now();
      // raw_events rows are sorted by natural_id when the bin is small enough to sort in memory:
      // row-group stats and the column index then lead a key lookup to one page.
      long binBytes = bin.stream().mapToLong(AddFile::getSize).sum();
      List<Map<String, Object>> sorted =
          layout == TableLayouts.RAW_EVENTS && binBytes <= SORT_BUDGET_BYTES ? new ArrayList<>() : null;
      for (AddFile f : bin) {
        try (ParquetReader<Group> reader =
            DataFileFormat.reader(
                    new GroupReadSupport(), HadoopInputFile.fromPath(new Path(root, f.getPath()), conf))
                .build()) {
          for (Group g = reader.read(); g != null; g = reader.read()) {
            Map<String, Object> row = toRow(g, layout, f.getPartitionValues());
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
                    (byte[]) a.get(PayloadReader.NATURAL_ID), (byte[]) b.get(PayloadReader.NATURAL_ID)));
        for (Map<String, Object> row : sorted) {
          writer.write(row, now);
        }
      }
      return writer.finish();
    }
  }

  /**
   * A stored row as column values the row layout writes back unchanged: top-level strings as
   * their bytes (payloads stay byte for byte), partition columns from the AddFile.
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
    List<ColumnSpec> columns = layout.columns.stream().map(DeltaLakeMaintenance::byName).toList();
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
          case STRUCT -> ColumnSpec.struct(name, getter, c.children.stream().map(DeltaLakeMaintenance::byName).toList());
          case ARRAY_OF_STRUCT ->
              ColumnSpec.arrayOfStruct(
                  name, getter, c.children.stream().map(DeltaLakeMaintenance::byName).toList());
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

  private record SwapOutcome(long version, int conflicts) {}

  /**
   * Commits the swap of {@code inputs} for {@code outputs}, retrying on conflicts. Before every
   * attempt the inputs must all still be in the snapshot the transaction reads: if one was removed
   * meanwhile (by a commit this transaction would not see as a conflict) the swap is given up, as
   * committing it would bring the removed rows back. Returns version -1 when given up.
   */
  private static SwapOutcome commitSwap(
      DeltaLog log,
      TableLayout<?> layout,
      List<AddFile> inputs,
      List<DataFile> outputs,
      long targetFileSize) {
    long inRows = 0;
    for (AddFile f : inputs) {
      inRows += FileStats.numRecords(f.getStats());
    }
    long outRows = outputs.stream().mapToLong(DataFile::numRecords).sum();
    if (inRows >= 0 && inputs.stream().allMatch(f -> FileStats.numRecords(f.getStats()) >= 0)
        && inRows != outRows) {
      throw new IllegalStateException(
          "compaction of " + layout.name + " read " + outRows + " rows from files whose stats"
              + " count " + inRows + "; nothing committed");
    }
    int conflicts = 0;
    DeltaConcurrentModificationException last = null;
    for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      OptimisticTransaction txn = log.startTransaction();
      Set<String> current = new HashSet<>();
      for (AddFile f : readSnapshot(log, txn).getAllFiles()) {
        current.add(f.getPath());
      }
      for (AddFile f : inputs) {
        if (!current.contains(f.getPath())) {
          LOG.warn(
              "{}: {} was removed by a concurrent commit; compaction of its partition given up",
              layout.name,
              f.getPath());
          return new SwapOutcome(-1, conflicts);
        }
      }
      List<Action> actions = new ArrayList<>();
      long now = System.currentTimeMillis();
      for (AddFile f : inputs) {
        actions.add(f.remove(now, false));
      }
      for (DataFile f : outputs) {
        AddFile add = DeltaLakeCommitter.toAddFile(f);
        actions.add(
            new AddFile(
                add.getPath(),
                add.getPartitionValues(),
                add.getSize(),
                add.getModificationTime(),
                false,
                add.getStats(),
                null));
      }
      Operation operation =
          new Operation(
              Operation.Name.MANUAL_UPDATE,
              // Values are raw JSON in the log; delta-standalone has no OPTIMIZE operation name.
              Map.of(
                  "operation", "\"" + COMPACT_OPERATION + "\"",
                  "targetFileSize", "\"" + targetFileSize + "\"",
                  "dataChange", "\"false\""),
              Map.of(
                  "numRemovedFiles", Long.toString(inputs.size()),
                  "numAddedFiles", Long.toString(outputs.size()),
                  "numRemovedBytes",
                      Long.toString(inputs.stream().mapToLong(AddFile::getSize).sum()),
                  "numAddedBytes",
                      Long.toString(outputs.stream().mapToLong(DataFile::sizeBytes).sum())),
              Optional.of("streamrecon compact"));
      try {
        CommitResult result = txn.commit(actions, operation, DeltaLakeCommitter.ENGINE_INFO);
        return new SwapOutcome(result.getVersion(), conflicts);
      } catch (DeltaConcurrentModificationException e) {
        conflicts++;
        last = e;
      }
    }
    throw new IllegalStateException(
        "could not commit the compaction of " + layout.name + " after " + MAX_ATTEMPTS
            + " attempts",
        last);
  }

  /** The snapshot a transaction reads (startTransaction has just updated the log to it). */
  private static Snapshot readSnapshot(DeltaLog log, OptimisticTransaction txn) {
    Snapshot s = log.snapshot();
    return s.getVersion() == txn.readVersion() ? s : log.getSnapshotForVersionAsOf(txn.readVersion());
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

  // ------------------------------------------------------------------ row key sidecars

  /**
   * Removes the row key sidecars a finished run wrote (a batch run's data files carry their row
   * keys to the committer in sidecar files, see {@code RowKeys}): once the run is over nothing
   * replays its commits. Missing tables and directories are fine.
   */
  public static void removeRowKeySidecars(Configuration conf, String warehouse, String runId)
      throws IOException {
    for (String table : DeltaLakeIO.TABLES) {
      RowKeys.removeSidecarsOfRun(conf, DeltaLakeCommitter.tablePath(warehouse, table), runId);
    }
  }

  // ------------------------------------------------------------------ vacuum

  /**
   * Deletes the data files of {@code table} that no snapshot from {@code now - retain} on
   * references and that were last modified before {@code now - retain}. The referenced set is the
   * snapshot current at {@code now - retain} plus every file added by a later commit; {@code
   * _delta_log} and other directories starting with {@code _} or {@code .} are never listed, except
   * the row key sidecars ({@code RowKeys.SIDECAR_DIRECTORY}), which are deleted once older than the
   * retention (a replay reaches back one checkpoint, far less than the minimum retention).
   */
  public static VacuumResult vacuum(
      Configuration conf, String warehouse, String table, Duration retain, Instant now)
      throws IOException {
    checkVacuumRetention(retain);
    TableLayouts.forName(table);
    Path root = DeltaLakeCommitter.tablePath(warehouse, table);
    DeltaLog log = DeltaLog.forTable(DeltaLakeCommitter.withAtomicLocalLogStore(conf), root);
    if (!log.tableExists()) {
      return new VacuumResult(table, 0, 0, 0, -1);
    }
    long horizon = now.getMillis() - retain.getMillis();
    Snapshot latest = log.update();
    long oldest = oldestVersionToKeep(log, horizon);
    Set<String> referenced = new HashSet<>();
    for (AddFile f : log.getSnapshotForVersionAsOf(oldest).getAllFiles()) {
      referenced.add(normalize(f.getPath()));
    }
    if (oldest < latest.getVersion()) {
      Iterator<VersionLog> changes = log.getChanges(oldest + 1, false);
      while (changes.hasNext()) {
        VersionLog v = changes.next();
        if (v.getVersion() > latest.getVersion()) {
          break;
        }
        for (Action a : v.getActions()) {
          if (a instanceof AddFile add) {
            referenced.add(normalize(add.getPath()));
          }
        }
      }
    }
    FileSystem fs = root.getFileSystem(conf);
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

  /** Refuses a vacuum retention that could delete a file a running pipeline is about to commit. */
  public static void checkVacuumRetention(Duration retain) {
    if (retain.isShorterThan(MIN_VACUUM_RETENTION)) {
      throw new IllegalArgumentException(
          "--retain="
              + retain.getStandardSeconds()
              + "s is too short: a running pipeline writes its files some seconds before it commits"
              + " them, and a shorter retention could delete them; use at least 1h");
    }
  }

  /** The version current at {@code horizon}: the newest committed at or before it, else the first. */
  private static long oldestVersionToKeep(DeltaLog log, long horizon) {
    try {
      return log.getVersionBeforeOrAtTimestamp(horizon);
    } catch (RuntimeException e) {
      // The horizon is before the first commit: every version is within the retention.
      return earliestReadableVersion(log);
    }
  }

  private static long earliestReadableVersion(DeltaLog log) {
    long latest = log.snapshot().getVersion();
    for (long v = 0; v <= latest; v++) {
      try {
        log.getSnapshotForVersionAsOf(v);
        return v;
      } catch (RuntimeException e) {
        // Older commit files were cleaned up after a checkpoint; try the next.
      }
    }
    return latest;
  }

  private static String normalize(String path) {
    return new Path(path).toUri().getPath();
  }

  private static String relativize(String root, String path) {
    String prefix = root.endsWith("/") ? root : root + "/";
    return path.startsWith(prefix) ? path.substring(prefix.length()) : null;
  }

  /** Delta keeps its log and other metadata under names starting with {@code _} or {@code .}. */
  private static boolean hidden(String relative) {
    for (String part : relative.split("/")) {
      if (part.startsWith("_") || part.startsWith(".")) {
        return true;
      }
    }
    return false;
  }

  // ------------------------------------------------------------------ raw event retention

  /**
   * The shortest raw event retention that can never remove a row an open pairing entry points to:
   * an entry opened at event time t0 closes once the watermark passes t0 + timeout, and an event
   * is accepted into an entry only up to the allowed lateness behind the watermark, plus {@link
   * #RETENTION_MARGIN} for a watermark lagging the wall clock.
   */
  public static Duration minimumRawEventRetention(Duration timeout, Duration allowedLateness) {
    return timeout.plus(allowedLateness).plus(RETENTION_MARGIN);
  }

  /**
   * Removes, in one commit with {@code dataChange=true}, every {@code raw_events} file of a
   * partition whose whole event date lies before {@code now - retain}; the files stay on storage
   * until {@link #vacuum}. Refuses a retention shorter than {@link #minimumRawEventRetention}.
   */
  public static ExpireResult expireRawEvents(
      Configuration conf,
      String warehouse,
      Duration retain,
      Duration timeout,
      Duration allowedLateness,
      Instant now) {
    Duration minimum = minimumRawEventRetention(timeout, allowedLateness);
    if (retain.isShorterThan(minimum)) {
      throw new IllegalArgumentException(
          "--retainRawEvents="
              + retain.getStandardHours()
              + "h is too short: an open pairing entry may point to raw events up to timeout ("
              + timeout.getStandardMinutes()
              + "m) + allowed lateness ("
              + allowedLateness.getStandardMinutes()
              + "m) + a margin of "
              + RETENTION_MARGIN.getStandardHours()
              + "h old; use at least "
              + (minimum.getStandardHours() + 1)
              + "h (pass the job's --timeout and --allowedLateness)");
    }
    // A partition goes when its last instant, the start of the next day, is at or before the cutoff.
    LocalDate cutoff =
        java.time.Instant.ofEpochMilli(now.getMillis() - retain.getMillis())
            .atZone(ZoneOffset.UTC)
            .toLocalDate();
    Path root = DeltaLakeCommitter.tablePath(warehouse, DeltaLakeIO.RAW_EVENTS);
    DeltaLog log = DeltaLog.forTable(DeltaLakeCommitter.withAtomicLocalLogStore(conf), root);
    if (!log.tableExists()) {
      return new ExpireResult(cutoff, List.of(), 0, 0, -1);
    }
    DeltaConcurrentModificationException last = null;
    for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      OptimisticTransaction txn = log.startTransaction();
      List<Action> actions = new ArrayList<>();
      Set<String> partitions = new java.util.TreeSet<>();
      long rows = 0;
      long stamp = System.currentTimeMillis();
      for (AddFile f : readSnapshot(log, txn).getAllFiles()) {
        String date = f.getPartitionValues().get("event_date");
        if (date != null && LocalDate.parse(date).isBefore(cutoff)) {
          actions.add(f.remove(stamp, true));
          partitions.add(TableLayout.partitionDirectory(new TreeMap<>(f.getPartitionValues())));
          rows += Math.max(0, FileStats.numRecords(f.getStats()));
        }
      }
      if (actions.isEmpty()) {
        return new ExpireResult(cutoff, List.of(), 0, 0, txn.readVersion());
      }
      Operation operation =
          new Operation(
              Operation.Name.DELETE,
              Map.of("predicate", "\"event_date < '" + cutoff + "'\""),
              Map.of(
                  "numRemovedFiles", Long.toString(actions.size()),
                  "numDeletedRows", Long.toString(rows)),
              Optional.of("streamrecon retention"));
      try {
        CommitResult result = txn.commit(actions, operation, DeltaLakeCommitter.ENGINE_INFO);
        return new ExpireResult(
            cutoff, List.copyOf(partitions), actions.size(), rows, result.getVersion());
      } catch (DeltaConcurrentModificationException e) {
        last = e;
      }
    }
    throw new IllegalStateException(
        "could not commit the raw event retention after " + MAX_ATTEMPTS + " attempts", last);
  }
}
