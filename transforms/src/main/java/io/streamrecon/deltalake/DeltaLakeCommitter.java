package io.streamrecon.deltalake;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.delta.standalone.CommitResult;
import io.delta.standalone.DeltaLog;
import io.delta.standalone.Operation;
import io.delta.standalone.OptimisticTransaction;
import io.delta.standalone.actions.Action;
import io.delta.standalone.actions.AddFile;
import io.delta.standalone.actions.Metadata;
import io.delta.standalone.actions.SetTransaction;
import io.delta.standalone.exceptions.ConcurrentTransactionException;
import io.delta.standalone.exceptions.DeltaConcurrentModificationException;
import io.delta.standalone.types.StructField;
import io.delta.standalone.types.StructType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
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
 * Commits data files to one Delta Lake table with delta-standalone, idempotently by content.
 *
 * <p>A runner may hand the committer a batch again: a retried bundle, a pane replayed after a
 * restore, or (Spark) a replayed micro-batch recomposed with other rows. So the committer never
 * trusts a batch's transaction version to say what is in it. Every row carries its identity
 * ({@link TableLayout#identity}: a Kafka record's side, topic, partition and offset; a verdict's
 * id); a row whose identity this writer committed recently ({@link WriterHistory}), or which came
 * earlier in the same batch, is not stored again but reported with where its stored copy is. A
 * batch with nothing new commits nothing.
 *
 * <p>Every commit carries {@code SetTransaction(appId, ...)}, read inside the transaction, so two
 * instances of the same writer committing at once conflict ({@link
 * ConcurrentTransactionException}) and the second, retried, recognises the first one's rows.
 * Appends of different writers never conflict (blind appends); other concurrent changes (the
 * first commit creating the table, a metadata change) are retried in a new transaction.
 *
 * <p>The first commit creates the table with the layout's schema and partition columns.
 */
final class DeltaLakeCommitter {
  private static final Logger LOG = LoggerFactory.getLogger(DeltaLakeCommitter.class);

  static final String ENGINE_INFO = "streamrecon";
  static final int MAX_ATTEMPTS = 20;

  /**
   * How a commit went.
   *
   * @param tableVersion the version this commit created; when nothing was new, the newest version
   *     holding one of the recognised copies
   * @param alreadyCommitted every row was a copy of a stored row: nothing was committed
   * @param committed the files committed (rewritten without the copies where needed), in order
   * @param recognised the rows not stored again, each with where its stored copy is
   */
  record Outcome(
      long tableVersion,
      boolean alreadyCommitted,
      List<DataFile> committed,
      List<Recognised> recognised) {

    long committedRows() {
      return committed.stream().mapToLong(DataFile::numRecords).sum();
    }
  }

  /** A row of the batch that was stored before (or earlier in the batch), and where. */
  record Recognised(
      RowKeys.Row row, Map<String, String> partitionValues, WriterHistory.Location storedAt) {}

  private final Configuration conf;
  private final TableLayout<?> layout;
  private final DeltaLog log;
  private final Path tableRoot;
  private final Map<String, WriterHistory> histories = new HashMap<>();

  DeltaLakeCommitter(Configuration conf, String warehouse, TableLayout<?> layout) {
    this.conf = withAtomicLocalLogStore(conf);
    this.layout = layout;
    this.tableRoot = tablePath(warehouse, layout.name);
    this.log = DeltaLog.forTable(this.conf, tableRoot);
  }

  /**
   * A copy of {@code conf} whose {@code file:} tables use {@link AtomicLocalLogStore} unless the
   * user chose a log store for {@code file:} already.
   */
  static Configuration withAtomicLocalLogStore(Configuration conf) {
    Configuration copy = new Configuration(conf);
    copy.setIfUnset(AtomicLocalLogStore.CONF_KEY, AtomicLocalLogStore.class.getName());
    return copy;
  }

  static Path tablePath(String warehouse, String table) {
    return new Path(warehouse, table);
  }

  DeltaLog deltaLog() {
    return log;
  }

  /**
   * Commits the rows of {@code files} that this writer has not stored yet, in one transaction
   * carrying {@code SetTransaction(appId, ...)}; {@code txnVersion} (the pane index) is recorded in
   * the commit's user metadata. A row is a copy when its identity ({@link TableLayout#identity})
   * equals that of a row this writer committed recently ({@link WriterHistory}) or of an earlier row
   * of the batch; a file with copies is rewritten without them.
   */
  Outcome commit(String appId, long txnVersion, List<DataFile> files) {
    return commit(appId, txnVersion, files, false);
  }

  /**
   * {@link #commit(String, long, List)}, for the last pane of its window when {@code lastPane}: no
   * later pane of the writer follows, so its {@link WriterHistory} is dropped instead of growing
   * by this commit's rows. A batch run commits its whole input in one such pane, and the history
   * of it (8 to 16 bytes per row of the run) would stay live in the committer until the
   * end of the run for nothing. A retry of the pane still recognises its rows: a fresh history
   * reads the writer's recent commits from the log, as after a restart.
   */
  Outcome commit(String appId, long txnVersion, List<DataFile> files, boolean lastPane) {
    try {
      return commitPane(appId, txnVersion, files, !lastPane);
    } finally {
      if (lastPane) {
        histories.remove(appId);
      }
    }
  }

  /** Writers whose history this committer holds (tests). */
  Set<String> writersRemembered() {
    return Collections.unmodifiableSet(histories.keySet());
  }

  private Outcome commitPane(
      String appId, long txnVersion, List<DataFile> files, boolean rememberCommit) {
    WriterHistory history =
        histories.computeIfAbsent(
            appId, id -> new WriterHistory(conf, log, tableRoot, layout, id));
    DeltaConcurrentModificationException last = null;
    for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      OptimisticTransaction txn = log.startTransaction();
      // Read inside the transaction: a concurrent commit of the same app id (the same pane
      // retried elsewhere) makes ours fail, and the next attempt recognises its rows.
      long recorded = txn.txnVersion(appId);
      history.refresh(txn.readVersion());
      Plan plan;
      try {
        plan = plan(history, files);
      } catch (IOException e) {
        throw new UncheckedIOException("rewriting data files of " + layout.name, e);
      }
      if (plan.files.isEmpty()) {
        long version =
            plan.recognised.stream()
                .mapToLong(r -> r.storedAt().tableVersion())
                .max()
                .orElse(txn.readVersion());
        return new Outcome(version, true, List.of(), plan.recognised);
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
      // Monotone per app id, as Delta readers expect of a SetTransaction version.
      long recordedVersion = Math.max(recorded + 1, txnVersion);
      actions.add(
          new SetTransaction(appId, recordedVersion, Optional.of(System.currentTimeMillis())));
      long rows = 0;
      long bytes = 0;
      for (DataFile f : plan.files) {
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
                  "numFiles", Long.toString(plan.files.size()),
                  "numOutputRows", Long.toString(rows),
                  "numOutputBytes", Long.toString(bytes)),
              Optional.of(appId + " pane " + txnVersion));
      try {
        CommitResult result = txn.commit(actions, operation, ENGINE_INFO);
        long version = result.getVersion();
        if (rememberCommit) {
          try {
            history.addOwn(version, plan.files);
          } catch (IOException e) {
            // Committed, but not remembered: a replay then finds the rows through the log.
            throw new UncheckedIOException("reading row keys of " + layout.name + " files", e);
          }
        }
        List<Recognised> recognised = new ArrayList<>(plan.recognised.size());
        for (Recognised r : plan.recognised) {
          WriterHistory.Location at = r.storedAt();
          recognised.add(
              at.tableVersion() == WriterHistory.PENDING
                  ? new Recognised(
                      r.row(),
                      r.partitionValues(),
                      new WriterHistory.Location(version, at.path(), at.rowIndex()))
                  : r);
        }
        return new Outcome(version, false, plan.files, recognised);
      } catch (ConcurrentTransactionException e) {
        // The same app id committed meanwhile: the next attempt recognises its rows.
        last = e;
      } catch (DeltaConcurrentModificationException e) {
        last = e;
      }
    }
    throw new IllegalStateException(
        "could not commit to " + layout.name + " after " + MAX_ATTEMPTS + " attempts", last);
  }

  private record Plan(List<DataFile> files, List<Recognised> recognised) {}

  /**
   * Splits the batch into new rows and copies. Copies of earlier rows of the same batch are found
   * by fingerprint (confirmed by identity), so the batch costs about 16 bytes per row; the keys are
   * read one row at a time (streamed from a sidecar), never a whole file's at once.
   */
  private Plan plan(WriterHistory history, List<DataFile> files) throws IOException {
    List<boolean[]> keepPerFile = new ArrayList<>(files.size());
    // Copies of a row earlier in this batch: the copy's row keys and {fileIndex, row} of the first.
    List<RowKeys.Row> inBatchRows = new ArrayList<>();
    List<Map<String, String>> inBatchPartitions = new ArrayList<>();
    List<int[]> inBatchFirst = new ArrayList<>();
    List<Recognised> recognised = new ArrayList<>();
    LongHashSet seen = new LongHashSet();
    for (int fi = 0; fi < files.size(); fi++) {
      DataFile file = files.get(fi);
      boolean[] keep = new boolean[Math.toIntExact(file.numRecords())];
      int ri = 0;
      try (RowKeys.Reader rows = file.keyReader(conf, tableRoot)) {
        for (RowKeys.Row row = rows.next(); row != null; row = rows.next(), ri++) {
          if (ri == keep.length) {
            throw new IllegalStateException(file + " carries keys of more rows");
          }
          String id = row.identity();
          WriterHistory.Location before = history.find(id);
          if (before != null) {
            recognised.add(new Recognised(row, file.partitionValues(), before));
            continue;
          }
          if (!seen.add(RowKeys.fingerprint(id))) {
            int[] first = firstKept(files, keepPerFile, keep, fi, id);
            if (first != null) {
              inBatchRows.add(row);
              inBatchPartitions.add(file.partitionValues());
              inBatchFirst.add(first);
              continue;
            }
          }
          keep[ri] = true;
        }
      }
      if (ri != keep.length) {
        throw new IllegalStateException(file + " carries keys of " + ri + " rows");
      }
      keepPerFile.add(keep);
    }
    List<DataFile> out = new ArrayList<>();
    List<String> paths = new ArrayList<>();
    List<long[]> newRowIndex = new ArrayList<>();
    for (int fi = 0; fi < files.size(); fi++) {
      boolean[] keep = keepPerFile.get(fi);
      long[] renumber = new long[keep.length];
      long n = 0;
      boolean all = true;
      for (int ri = 0; ri < keep.length; ri++) {
        renumber[ri] = keep[ri] ? n++ : -1;
        all &= keep[ri];
      }
      // Only files someone points into need the renumbering.
      newRowIndex.add(all ? null : renumber);
      DataFile f = files.get(fi);
      if (!all) {
        f = n == 0 ? null : DataFileRewriter.withoutRows(conf, tableRoot, layout, f, keep);
      }
      paths.add(f == null ? null : f.path());
      if (f != null) {
        out.add(f);
      }
    }
    for (int i = 0; i < inBatchRows.size(); i++) {
      int[] first = inBatchFirst.get(i);
      long[] renumber = newRowIndex.get(first[0]);
      recognised.add(
          new Recognised(
              inBatchRows.get(i),
              inBatchPartitions.get(i),
              new WriterHistory.Location(
                  WriterHistory.PENDING,
                  paths.get(first[0]),
                  renumber == null ? first[1] : renumber[first[1]])));
    }
    return new Plan(out, recognised);
  }

  /**
   * The kept row of the batch with this identity, as {fileIndex, row}: rare, only after a
   * fingerprint match, so the files' keys are read again rather than held.
   */
  private int[] firstKept(
      List<DataFile> files, List<boolean[]> keepPerFile, boolean[] currentKeep, int current, String id)
      throws IOException {
    for (int fi = 0; fi <= current; fi++) {
      // The current file's rows from the match on are not kept yet: its scan stops short of them.
      boolean[] keep = fi == current ? currentKeep : keepPerFile.get(fi);
      try (RowKeys.Reader rows = files.get(fi).keyReader(conf, tableRoot)) {
        RowKeys.Row row = rows.next();
        for (int ri = 0; ri < keep.length && row != null; ri++, row = rows.next()) {
          if (keep[ri] && row.identity().equals(id)) {
            return new int[] {fi, ri};
          }
        }
      }
    }
    return null;
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
}
