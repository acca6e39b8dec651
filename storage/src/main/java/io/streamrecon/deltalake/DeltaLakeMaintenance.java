package io.streamrecon.deltalake;

import io.streamrecon.json.EventParser;
import io.streamrecon.json.ParseConfig;
import java.io.IOException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.joda.time.Duration;
import org.joda.time.Instant;

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
 *   <li>{@link #forget}: erases natural ids from every table, one commit per table ({@code
 *       dataChange=true}), conflict-checked like a compaction.
 * </ul>
 *
 * <p>Each is a class of its own ({@code DeltaLakeCompaction}, {@code DeltaLakeVacuum}, {@code
 * RawEventRetention}) committing through Delta Kernel; this class is their entry point. Each
 * refuses, before touching anything, a table folder streamrecon did not write ({@link
 * WarehouseOwnership}).
 */
public final class DeltaLakeMaintenance {
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

  static final int MAX_ATTEMPTS = 20;

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
              : "; "
                  + conflictsRetried
                  + " conflict(s) retried, "
                  + binsAbandoned
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
      LocalDate cutoff,
      List<String> partitions,
      long filesRemoved,
      long rowsRemoved,
      long version) {
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

  /**
   * What {@link #forget} did to one table: rows removed, difference values (deltas) or raw inputs
   * (dead letters) cleared, files rewritten; {@code version} is the commit, -1 when nothing was to
   * erase; {@code naturalIdsErased} the ids of the rows the commit changed.
   */
  public record ForgetResult(
      String table,
      long rowsRemoved,
      long valuesCleared,
      int filesRewritten,
      int filesAdded,
      long version,
      int conflictsRetried,
      Set<String> naturalIdsErased) {

    public ForgetResult {
      naturalIdsErased = Set.copyOf(naturalIdsErased);
    }

    /** Whether this table held nothing of the ids (any more). */
    public boolean nothingErased() {
      return version < 0;
    }

    /** One line for the command line. */
    public String describe() {
      if (nothingErased()) {
        return table + ": nothing to erase";
      }
      String what =
          switch (table) {
            case WarehouseTables.DELTAS ->
                valuesCleared + " difference value(s) cleared, rows kept";
            case WarehouseTables.DEAD_LETTERS -> valuesCleared + " raw input(s) cleared, rows kept";
            default -> rowsRemoved + " row(s) removed";
          };
      return String.format(
          "%s: %s; %d file(s) rewritten into %d in version %d%s",
          table,
          what,
          filesRewritten,
          filesAdded,
          version,
          conflictsRetried == 0 ? "" : "; " + conflictsRetried + " conflict(s) retried");
    }
  }

  /**
   * Bin-packs the files smaller than {@code targetFileSize} of every partition of {@code table}
   * into files of about {@code targetFileSize}; a partition with fewer than two small files is left
   * alone. One commit per partition, so a conflict costs one partition's rewrite at most.
   */
  public static CompactResult compact(
      Configuration conf, String warehouse, String table, long targetFileSize) throws IOException {
    return DeltaLakeCompaction.compact(conf, warehouse, table, targetFileSize);
  }

  /** See {@link DeltaLakeCompaction#tier}. */
  public static int tier(long bytes) {
    return DeltaLakeCompaction.tier(bytes);
  }

  // ------------------------------------------------------------------ row key sidecars

  /**
   * Removes the row key sidecars a finished run wrote (a batch run's data files carry their row
   * keys to the committer in sidecar files, see {@code RowKeys}): once the run is over nothing
   * replays its commits. Missing tables and directories are fine.
   */
  public static void removeRowKeySidecars(Configuration conf, String warehouse, String runId)
      throws IOException {
    for (String table : WarehouseTables.TABLES) {
      RowKeys.removeSidecarsOfRun(conf, DeltaLakeCommitter.tablePath(warehouse, table), runId);
    }
  }

  // ------------------------------------------------------------------ vacuum

  /**
   * Deletes the data files of {@code table} that no snapshot from {@code now - retain} on
   * references and that were last modified before {@code now - retain} ({@link DeltaLakeVacuum}),
   * including those of a table folder that has no log yet.
   */
  public static VacuumResult vacuum(
      Configuration conf, String warehouse, String table, Duration retain, Instant now)
      throws IOException {
    return DeltaLakeVacuum.vacuum(conf, warehouse, table, retain, now);
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

  // ------------------------------------------------------------------ erasure

  /**
   * Erases natural ids from every table of {@code warehouse} (docs/design.md#erasure), one commit
   * per table that held something of them, in the order of {@link WarehouseTables#TABLES}. Rows
   * another engine deleted with a deletion vector stay deleted in the rewritten files.
   *
   * @param keyFields the run's key fields, to read the natural id of a dead letter's raw input
   */
  public static List<ForgetResult> forget(
      Configuration conf, String warehouse, Set<String> naturalIds, List<String> keyFields)
      throws IOException {
    if (naturalIds.isEmpty()) {
      throw new IllegalArgumentException("no natural id to erase");
    }
    // Refused before the first commit: an erasure stopped halfway would be worse than none.
    WarehouseOwnership.requireOwnTables(conf, warehouse, WarehouseTables.TABLES);
    ErasedRows rows =
        new ErasedRows(
            naturalIds, new EventParser(ParseConfig.defaults().withKeyFields(keyFields)));
    List<ForgetResult> results = new ArrayList<>();
    for (String table : WarehouseTables.TABLES) {
      results.add(Erasure.forget(conf, warehouse, table, rows));
    }
    return results;
  }

  // ------------------------------------------------------------------ raw event retention

  /**
   * The shortest raw event retention that can never remove a row an open pairing entry points to:
   * an entry opened at event time t0 closes once the watermark passes t0 + timeout, and an event is
   * accepted into an entry only up to the allowed lateness behind the watermark, plus {@link
   * #RETENTION_MARGIN} for a watermark lagging the wall clock.
   */
  public static Duration minimumRawEventRetention(Duration timeout, Duration allowedLateness) {
    return timeout.plus(allowedLateness).plus(RETENTION_MARGIN);
  }

  /**
   * Removes, in one commit with {@code dataChange=true}, every {@code raw_events} file of a
   * partition whose whole event date lies before {@code now - retain} ({@link RawEventRetention}).
   */
  public static ExpireResult expireRawEvents(
      Configuration conf,
      String warehouse,
      Duration retain,
      Duration timeout,
      Duration allowedLateness,
      Instant now) {
    try {
      WarehouseOwnership.requireOwnTables(conf, warehouse, List.of(WarehouseTables.RAW_EVENTS));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException("reading the raw_events log under " + warehouse, e);
    }
    return RawEventRetention.expire(conf, warehouse, retain, timeout, allowedLateness, now);
  }
}
