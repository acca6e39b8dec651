package io.streamrecon.deltalake;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.delta.standalone.CommitResult;
import io.delta.standalone.DeltaLog;
import io.delta.standalone.Operation;
import io.delta.standalone.OptimisticTransaction;
import io.delta.standalone.VersionLog;
import io.delta.standalone.actions.Action;
import io.delta.standalone.actions.AddFile;
import io.delta.standalone.actions.Metadata;
import io.delta.standalone.actions.SetTransaction;
import io.delta.standalone.exceptions.ConcurrentTransactionException;
import io.delta.standalone.exceptions.DeltaConcurrentModificationException;
import io.delta.standalone.types.StructField;
import io.delta.standalone.types.StructType;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits data files to one Delta Lake table with delta-standalone, idempotently.
 *
 * <p>Every commit carries {@code SetTransaction(appId, txnVersion)}. Before committing, the
 * table's last recorded version for the app id is read: when it is already at or past {@code
 * txnVersion}, this batch was committed before (a retried bundle or commit) and nothing is added.
 * The app id is read inside the transaction, so a concurrent commit of the same app id makes ours
 * fail with {@link ConcurrentTransactionException}, after which the next attempt sees it and skips.
 * Appends of different writers never conflict (blind appends); other concurrent changes (the
 * first commit creating the table, a metadata change) are retried in a new transaction.
 *
 * <p>The first commit creates the table with the layout's schema and partition columns.
 */
final class DeltaLakeCommitter {
  private static final Logger LOG = LoggerFactory.getLogger(DeltaLakeCommitter.class);

  static final String ENGINE_INFO = "streamrecon";
  static final int MAX_ATTEMPTS = 20;

  /** How a commit went. */
  record Outcome(long tableVersion, boolean alreadyCommitted, boolean sameFiles) {}

  private final TableLayout<?> layout;
  private final DeltaLog log;

  DeltaLakeCommitter(Configuration conf, String warehouse, TableLayout<?> layout) {
    this.layout = layout;
    this.log = DeltaLog.forTable(conf, tablePath(warehouse, layout.name));
  }

  static Path tablePath(String warehouse, String table) {
    return new Path(warehouse, table);
  }

  DeltaLog deltaLog() {
    return log;
  }

  /**
   * Commits {@code files} as one transaction recorded as version {@code txnVersion} of {@code
   * appId}, unless that version (or a later one) is already recorded.
   */
  Outcome commit(String appId, long txnVersion, List<DataFile> files) {
    DeltaConcurrentModificationException last = null;
    for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      OptimisticTransaction txn = log.startTransaction();
      long recorded = txn.txnVersion(appId);
      if (recorded >= txnVersion) {
        return replayed(appId, txnVersion, files, txn.readVersion());
      }
      List<Action> actions = new ArrayList<>();
      if (txn.readVersion() < 0) {
        actions.add(newMetadata());
      } else {
        Metadata evolved = checkSchema(txn.metadata());
        if (evolved != null) {
          actions.add(evolved);
        }
      }
      actions.add(new SetTransaction(appId, txnVersion, Optional.of(System.currentTimeMillis())));
      long rows = 0;
      long bytes = 0;
      for (DataFile f : files) {
        actions.add(toAddFile(f));
        rows += f.numRecords();
        bytes += f.sizeBytes();
      }
      Operation operation =
          new Operation(
              Operation.Name.WRITE,
              // Values are written into the log as raw JSON; Spark reads them as strings.
              Map.of("mode", "\"Append\"", "partitionBy", partitionByJson()),
              Map.of(
                  "numFiles", Long.toString(files.size()),
                  "numOutputRows", Long.toString(rows),
                  "numOutputBytes", Long.toString(bytes)),
              Optional.of(appId + " txn " + txnVersion));
      try {
        CommitResult result = txn.commit(actions, operation, ENGINE_INFO);
        return new Outcome(result.getVersion(), false, true);
      } catch (ConcurrentTransactionException e) {
        // The same app id committed meanwhile: the next attempt sees it and skips.
        last = e;
      } catch (DeltaConcurrentModificationException e) {
        last = e;
      }
    }
    throw new IllegalStateException(
        "could not commit to " + layout.name + " after " + MAX_ATTEMPTS + " attempts", last);
  }

  static AddFile toAddFile(DataFile f) {
    String encodedStats;
    try {
      // delta-standalone writes the string as is; the protocol wants a JSON string holding JSON.
      encodedStats = FileStats.JSON.writeValueAsString(f.stats());
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
    return new AddFile(
        f.path(),
        f.partitionValues(),
        f.sizeBytes(),
        f.modificationTime(),
        true,
        encodedStats,
        null);
  }

  private String partitionByJson() {
    try {
      return FileStats.JSON.writeValueAsString(
          FileStats.JSON.writeValueAsString(layout.partitionColumnNames()));
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  Metadata newMetadata() {
    return Metadata.builder()
        .id(UUID.randomUUID().toString())
        .name(layout.name)
        .description("streamrecon " + layout.name)
        .partitionColumns(layout.partitionColumnNames())
        .schema(layout.deltaSchema())
        .createdTime(System.currentTimeMillis())
        .build();
  }

  /**
   * The table must hold every column we write, with the same type, and our partitioning. A
   * nullable top-level column that the table lacks (a table written by an older release, such as
   * {@code deltas} before {@code rules_id}) is added by a metadata update in the same commit,
   * without rewriting any file: rows of older files read back as null in that column.
   *
   * @return the evolved metadata to commit, or null when the schema already fits
   */
  private Metadata checkSchema(Metadata metadata) {
    StructType existing = metadata.getSchema();
    StructType evolved = null;
    for (StructField ours : layout.deltaSchema().getFields()) {
      StructField theirs = fieldOrNull(existing, ours.getName());
      if (theirs == null && ours.isNullable()) {
        evolved = (evolved == null ? existing : evolved).add(ours);
        continue;
      }
      if (theirs == null || !theirs.getDataType().equals(ours.getDataType())) {
        throw new IllegalStateException(
            "table "
                + log.getPath()
                + " has an incompatible schema: column "
                + ours.getName()
                + " is "
                + (theirs == null ? "missing" : theirs.getDataType().getTypeName())
                + ", expected "
                + ours.getDataType().getTypeName());
      }
    }
    if (!metadata.getPartitionColumns().equals(layout.partitionColumnNames())) {
      throw new IllegalStateException(
          "table "
              + log.getPath()
              + " is partitioned by "
              + metadata.getPartitionColumns()
              + ", expected "
              + layout.partitionColumnNames());
    }
    if (evolved != null) {
      LOG.info("table {}: adding nullable columns to the schema (no file rewritten)", log.getPath());
      return metadata.copyBuilder().schema(evolved).build();
    }
    return null;
  }

  private static StructField fieldOrNull(StructType schema, String name) {
    for (StructField f : schema.getFields()) {
      if (f.getName().equals(name)) {
        return f;
      }
    }
    return null;
  }

  /**
   * The batch's transaction version is already recorded. Finds the commit that recorded it, to
   * report its table version, and checks that it added the same files.
   */
  private Outcome replayed(String appId, long txnVersion, List<DataFile> files, long latest) {
    Set<String> ours = new HashSet<>();
    for (DataFile f : files) {
      ours.add(f.path());
    }
    Optional<VersionLog> commit = findCommit(appId, txnVersion, latest);
    if (commit.isEmpty()) {
      LOG.warn(
          "{} txn {} of {} is recorded but its commit is no longer in the log; not committing again",
          appId,
          txnVersion,
          layout.name);
      return new Outcome(latest, true, false);
    }
    Set<String> theirs = new HashSet<>();
    long theirRows = 0;
    for (Action a : commit.get().getActions()) {
      if (a instanceof AddFile add) {
        theirs.add(add.getPath());
        theirRows += FileStats.numRecords(add.getStats());
      }
    }
    boolean same = theirs.containsAll(ours);
    long ourRows = files.stream().mapToLong(DataFile::numRecords).sum();
    if (!same && theirRows != ourRows) {
      // Not a replay of the same batch: skipping would silently drop these rows.
      throw new IllegalStateException(
          appId
              + " txn "
              + txnVersion
              + " was committed to "
              + layout.name
              + " in version "
              + commit.get().getVersion()
              + " with "
              + theirRows
              + " rows, but this batch has "
              + ourRows
              + ": the transaction versions of this writer are not unique");
    }
    if (!same) {
      LOG.warn(
          "{} txn {} of {} was committed in version {} with other files (the batch was recomputed);"
              + " not committing again",
          appId,
          txnVersion,
          layout.name,
          commit.get().getVersion());
    }
    return new Outcome(commit.get().getVersion(), true, same);
  }

  /** Searches the log backwards, in growing windows, for the commit recording the transaction. */
  private Optional<VersionLog> findCommit(String appId, long txnVersion, long latest) {
    long high = latest;
    long window = 16;
    while (high >= 0) {
      long low = Math.max(0, high - window + 1);
      try {
        Iterator<VersionLog> changes = log.getChanges(low, false);
        while (changes.hasNext()) {
          VersionLog v = changes.next();
          if (v.getVersion() > high) {
            break;
          }
          for (Action a : v.getActions()) {
            if (a instanceof SetTransaction t
                && t.getAppId().equals(appId)
                && t.getVersion() == txnVersion) {
              return Optional.of(v);
            }
          }
        }
      } catch (RuntimeException e) {
        // Older log files were cleaned up.
        return Optional.empty();
      }
      high = low - 1;
      window *= 4;
    }
    return Optional.empty();
  }
}
