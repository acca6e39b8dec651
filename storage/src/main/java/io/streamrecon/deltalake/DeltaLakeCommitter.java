package io.streamrecon.deltalake;

import io.delta.kernel.Operation;
import io.delta.kernel.Snapshot;
import io.delta.kernel.Table;
import io.delta.kernel.Transaction;
import io.delta.kernel.TransactionCommitResult;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.ConcurrentWriteException;
import io.delta.kernel.exceptions.KernelException;
import io.delta.kernel.exceptions.TableAlreadyExistsException;
import io.delta.kernel.exceptions.UnsupportedProtocolVersionException;
import io.delta.kernel.exceptions.UnsupportedTableFeatureException;
import io.delta.kernel.internal.actions.AddFile;
import io.delta.kernel.internal.actions.CommitInfo;
import io.delta.kernel.internal.actions.Metadata;
import io.delta.kernel.internal.actions.SingleAction;
import io.delta.kernel.internal.data.GenericRow;
import io.delta.kernel.internal.util.FileNames;
import io.delta.kernel.internal.util.VectorUtils;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterable;
import io.delta.kernel.utils.CloseableIterator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
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
 * Commits data files to one Delta Lake table with Delta Kernel, idempotently by content.
 *
 * <p>A runner may hand the committer a batch again: a retried bundle, a pane replayed after a
 * restore, or (Spark) a replayed micro-batch recomposed with other rows. So the committer never
 * trusts a batch's transaction version to say what is in it. Every row carries its identity ({@link
 * TableLayout#identity}: a Kafka record's side, topic, partition and offset; a verdict's id); a row
 * whose identity this writer committed recently ({@link WriterHistory}), or which came earlier in
 * the same batch, is not stored again but reported with where its stored copy is. A batch with
 * nothing new commits nothing.
 *
 * <p>Every commit carries a transaction identifier ({@code txn} action: app id and version) read
 * from the snapshot the transaction is built on, so two instances of the same writer committing at
 * once conflict (Kernel's {@code ConcurrentTransactionException}) and the second, retried,
 * recognises the first one's rows. Appends of different writers never conflict; Kernel rebases them
 * on the winning commits itself. Other concurrent changes (the first commit creating the table, a
 * metadata change) are retried in a new transaction.
 *
 * <p>The first commit creates the table with the layout's schema and partition columns. A table
 * with a feature Kernel cannot write (a CHECK constraint, generated columns, column mapping, ...)
 * is refused before anything is committed, with one line naming the table and the features ({@link
 * #checkWritable}).
 */
public final class DeltaLakeCommitter {
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
  public record CommitResult(
      long tableVersion,
      boolean alreadyCommitted,
      List<DataFile> committed,
      List<Recognised> recognised) {

    public long committedRows() {
      return committed.stream().mapToLong(DataFile::numRecords).sum();
    }
  }

  /** A row of the batch that was stored before (or earlier in the batch), and where. */
  record Recognised(
      RowKeys.Row row, Map<String, String> partitionValues, WriterHistory.Location storedAt) {}

  private final Configuration conf;
  private final Engine engine;
  private final TableLayout<?> layout;
  private final Path tableRoot;
  private final Map<String, WriterHistory> histories = new HashMap<>();

  /** Committers shared in this JVM, by warehouse and table, least recently used first. */
  private static final int SHARED_LIMIT = 64;

  private static final Map<String, DeltaLakeCommitter> SHARED =
      new java.util.LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, DeltaLakeCommitter> eldest) {
          return size() > SHARED_LIMIT;
        }
      };

  /**
   * The committer of {@code layout}'s table under {@code warehouse} for the commit steps of this
   * JVM. Shared because a runner may set a step's DoFn up again for every bundle (Beam's classic
   * SparkRunner does for every micro-batch's task), and a new committer reads its writers' recent
   * commits back from the log and their files ({@link WriterHistory}) before its first commit: work
   * that a kept committer does once. A step commits holding the committer's lock, so commits of one
   * table in one JVM never overlap (they would only conflict). At most {@value #SHARED_LIMIT} are
   * kept; a committer dropped from the pool still works for whoever holds it.
   */
  public static DeltaLakeCommitter shared(String warehouse, TableLayout<?> layout) {
    String key = warehouse + '\u0000' + layout.name;
    synchronized (SHARED) {
      return SHARED.computeIfAbsent(
          key, k -> new DeltaLakeCommitter(new Configuration(), warehouse, layout));
    }
  }

  /** The Hadoop configuration this committer's engine uses. */
  public Configuration conf() {
    return conf;
  }

  public DeltaLakeCommitter(Configuration conf, String warehouse, TableLayout<?> layout) {
    this.conf = DeltaLakeEngine.withAtomicLocalLogStore(conf);
    this.engine = DeltaLakeEngine.create(this.conf);
    this.layout = layout;
    this.tableRoot = tablePath(warehouse, layout.name);
  }

  public static Path tablePath(String warehouse, String table) {
    return new Path(warehouse, table);
  }

  public Engine engine() {
    return engine;
  }

  public Path tableRoot() {
    return tableRoot;
  }

  /**
   * Fails, with one line naming the table and the table features, when the table under {@code
   * warehouse} exists with a protocol or feature that Kernel cannot write; a table that does not
   * exist yet is writable. Called before a run writes any data file, and again by every commit.
   */
  public static void checkWritable(Configuration conf, String warehouse, TableLayout<?> layout) {
    Engine engine = DeltaLakeEngine.create(conf);
    Path root = tablePath(warehouse, layout.name);
    Snapshot snapshot = DeltaLakeSnapshot.kernelSnapshot(engine, root);
    if (snapshot != null) {
      try {
        buildUpdate(engine, root, snapshot, Operation.WRITE, null, -1, null);
      } catch (IllegalStateException e) {
        // The user's table, not a failure of the run: one line, no trace.
        throw new IllegalArgumentException(e.getMessage());
      }
    }
  }

  /**
   * Features Kernel writes but our data files cannot honour: our Parquet writer writes logical
   * column names (column mapping needs physical ones) and leaves partition columns out of the files
   * (Iceberg compatibility and materialized partition columns need them in).
   */
  private static Set<String> featuresOurWriterCannotWrite(Snapshot snapshot) {
    Set<String> refused = new java.util.TreeSet<>();
    Map<String, String> conf = snapshot.getMetadata().getConfiguration();
    String mapping = conf.getOrDefault("delta.columnMapping.mode", "none");
    if (!mapping.equalsIgnoreCase("none")) {
      refused.add("columnMapping");
    }
    for (String compat : List.of("icebergCompatV2", "icebergCompatV3")) {
      if (Boolean.parseBoolean(
          conf.getOrDefault(
              "delta.enable"
                  + compat.substring(0, 1).toUpperCase(java.util.Locale.ROOT)
                  + compat.substring(1),
              "false"))) {
        refused.add(compat);
      }
    }
    if (snapshot.getProtocol().getWriterFeatures().contains("materializePartitionColumns")) {
      refused.add("materializePartitionColumns");
    }
    return refused;
  }

  /** The message of a refused table: one line, the table and the features. */
  static IllegalStateException notWritable(Path root, KernelException e) {
    return notWritable(
        root, e instanceof UnsupportedTableFeatureException u ? u.getUnsupportedFeatures() : null);
  }

  private static IllegalStateException notWritable(Path root, Set<String> features) {
    return new IllegalStateException(
        "Delta table "
            + root
            + " uses table feature(s) "
            + (features == null || features.isEmpty() ? "(a newer protocol)" : features)
            + " that streamrecon cannot write (docs/delta-kernel.md); nothing was committed");
  }

  /**
   * An update transaction on {@code snapshot}, with the app id's version when appId != null and the
   * evolved schema when schema != null; a table Kernel cannot write fails with one line.
   */
  static Transaction buildUpdate(
      Engine engine,
      Path root,
      Snapshot snapshot,
      Operation operation,
      String appId,
      long version,
      StructType schema) {
    Set<String> ours = featuresOurWriterCannotWrite(snapshot);
    if (!ours.isEmpty()) {
      throw notWritable(root, ours);
    }
    try {
      var builder = snapshot.buildUpdateTableTransaction(ENGINE_INFO, operation);
      if (appId != null) {
        builder = builder.withTransactionId(appId, version);
      }
      if (schema != null) {
        builder = builder.withUpdatedSchema(schema);
      }
      return builder.build(engine);
    } catch (UnsupportedTableFeatureException | UnsupportedProtocolVersionException e) {
      throw notWritable(root, e);
    }
  }

  /**
   * Commits, on {@code snapshot}, the replacement of {@code removed} by {@code added} in one
   * transaction: a {@code remove} action per old file, then an {@code add} per new one, all with
   * {@code dataChange} (false for a rewrite that keeps every row as it was, a compaction). The
   * commit info is Kernel's own, a "Manual Update". The one home of the rewrite commits of
   * compaction, erasure and raw event retention; their planning, and what they do on a conflict,
   * differ and stay with them.
   *
   * @return the version committed
   * @throws ConcurrentWriteException when a commit after {@code snapshot} conflicts with this one
   *     (it removed one of {@code removed} first); nothing was committed
   */
  static long commitRewrite(
      Engine engine,
      Path root,
      Snapshot snapshot,
      List<AddFile> removed,
      List<DataFile> added,
      boolean dataChange) {
    List<Row> actions = new ArrayList<>(removed.size() + added.size());
    long now = System.currentTimeMillis();
    for (AddFile f : removed) {
      actions.add(
          SingleAction.createRemoveFileSingleAction(
              f.toRemoveFileRow(dataChange, Optional.of(now))));
    }
    for (DataFile f : added) {
      actions.add(SingleAction.createAddFileSingleAction(toAddFile(f, dataChange)));
    }
    Transaction txn = buildUpdate(engine, root, snapshot, Operation.MANUAL_UPDATE, null, -1, null);
    return txn.commit(engine, CloseableIterable.inMemoryIterable(toCloseable(actions)))
        .getVersion();
  }

  /**
   * Commits the rows of {@code files} that this writer has not stored yet, in one transaction
   * carrying the transaction identifier {@code (appId, version)}, the version at least {@code
   * txnVersion} (the pane index). A row is a copy when its identity ({@link TableLayout#identity})
   * equals that of a row this writer committed recently ({@link WriterHistory}) or of an earlier
   * row of the batch; a file with copies is rewritten without them.
   */
  public CommitResult commit(String appId, long txnVersion, List<DataFile> files) {
    return commit(appId, txnVersion, files, false);
  }

  /**
   * {@link #commit(String, long, List)}, for the last pane of its window when {@code lastPane}: no
   * later pane of the writer follows, so its {@link WriterHistory} is dropped instead of growing by
   * this commit's rows. A batch run commits its whole input in one such pane, and the history of it
   * (8 to 16 bytes per row of the run) would stay live in the committer until the end of the run
   * for nothing. A retry of the pane still recognises its rows: a fresh history reads the writer's
   * recent commits from the log, as after a restart.
   */
  public CommitResult commit(
      String appId, long txnVersion, List<DataFile> files, boolean lastPane) {
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

  private CommitResult commitPane(
      String appId, long txnVersion, List<DataFile> files, boolean rememberCommit) {
    WriterHistory history =
        histories.computeIfAbsent(
            appId, id -> new WriterHistory(conf, engine, tableRoot, layout, id));
    RuntimeException last = null;
    for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      Snapshot snapshot = DeltaLakeSnapshot.kernelSnapshot(engine, tableRoot);
      long readVersion = snapshot == null ? -1 : snapshot.getVersion();
      // Read from the snapshot the transaction is built on: a commit of the same app id after it
      // (the same pane retried elsewhere) makes ours fail, and the next attempt recognises its
      // rows.
      long recorded =
          snapshot == null ? -1 : snapshot.getLatestTransactionVersion(engine, appId).orElse(-1L);
      history.refresh(readVersion);
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
                .orElse(readVersion);
        return new CommitResult(version, true, List.of(), plan.recognised);
      }
      // Monotone per app id, as Delta readers expect of a transaction identifier's version.
      long recordedVersion = Math.max(recorded + 1, txnVersion);
      StructType evolved = snapshot == null ? null : evolvedSchema(snapshot);
      if (evolved != null) {
        addColumns(snapshot, evolved);
        continue;
      }
      try {
        Transaction txn =
            snapshot == null
                ? Table.forPath(engine, tableRoot.toString())
                    // Fails (and is retried) when another writer created the table meanwhile.
                    .createTransactionBuilder(engine, ENGINE_INFO, Operation.CREATE_TABLE)
                    .withSchema(engine, layout.deltaSchema())
                    .withPartitionColumns(engine, layout.partitionColumnNames())
                    .withTransactionId(engine, appId, recordedVersion)
                    .build(engine)
                : buildUpdate(
                    engine, tableRoot, snapshot, Operation.WRITE, appId, recordedVersion, null);
        List<Row> actions = new ArrayList<>();
        for (DataFile f : plan.files) {
          actions.add(SingleAction.createAddFileSingleAction(toAddFile(f)));
        }
        TransactionCommitResult result =
            txn.commit(engine, CloseableIterable.inMemoryIterable(toCloseable(actions)));
        long version = result.getVersion();
        checkpointIfDue(result);
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
        return new CommitResult(version, false, plan.files, recognised);
      } catch (ConcurrentWriteException | TableAlreadyExistsException e) {
        // The same app id committed meanwhile (the next attempt recognises its rows), another
        // writer created the table or changed its metadata first, or Kernel's own retries ran out.
        last = e;
      }
    }
    throw new IllegalStateException(
        "could not commit to " + layout.name + " after " + MAX_ATTEMPTS + " attempts", last);
  }

  /**
   * Commits the schema with the nullable columns the table lacks, alone, as the version after
   * {@code snapshot}; when another writer took that version, the caller reads the table again.
   * Kernel changes a schema only on tables with column mapping, which ours (and the tables of older
   * releases) do not have, so this commit is ours: a {@code metaData} action with the new schema
   * and the table's id, partitioning and configuration unchanged, written through Kernel's log
   * store (atomic, failing when the version exists). Spark writes the same for {@code ALTER TABLE
   * ADD COLUMNS}.
   */
  private void addColumns(Snapshot snapshot, StructType evolved) {
    // The table must be writable before we write to its log ourselves.
    buildUpdate(engine, tableRoot, snapshot, Operation.MANUAL_UPDATE, null, -1, null);
    Metadata metadata = snapshot.getMetadata().withNewSchema(evolved);
    long version = snapshot.getVersion() + 1;
    CommitInfo info =
        new CommitInfo(
            Optional.empty(),
            System.currentTimeMillis(),
            Optional.of(ENGINE_INFO),
            Optional.of("ADD COLUMNS"),
            Map.of(),
            Optional.of(false),
            Optional.of(UUID.randomUUID().toString()),
            Map.of());
    List<Row> actions =
        List.of(
            SingleAction.createCommitInfoSingleAction(info.toRow()),
            SingleAction.createMetadataSingleAction(metadata.toRow()));
    String file = FileNames.deltaFile(snapshot.getLogPath(), version);
    try {
      engine.getJsonHandler().writeJsonFileAtomically(file, toCloseable(actions), false);
      LOG.info("table {}: added nullable columns to the schema (no file rewritten)", tableRoot);
    } catch (FileAlreadyExistsException e) {
      // Another writer committed this version first: read the table again.
    } catch (IOException e) {
      throw new UncheckedIOException("adding columns to " + tableRoot, e);
    }
  }

  /**
   * Writes the checkpoint Kernel asks for (every {@code delta.checkpointInterval} commits, 10 by
   * default): without one every reader replays the whole JSON log. A failed checkpoint does not
   * fail the commit; the next due one is tried again.
   */
  private void checkpointIfDue(TransactionCommitResult result) {
    for (var hook : result.getPostCommitHooks()) {
      if (hook.getType() == io.delta.kernel.hook.PostCommitHook.PostCommitHookType.CHECKPOINT) {
        try {
          hook.threadSafeInvoke(engine);
        } catch (IOException | RuntimeException e) {
          LOG.warn("checkpoint of {} failed; the next due one is tried again", layout.name, e);
        }
      }
    }
  }

  private static <T> CloseableIterator<T> toCloseable(List<T> list) {
    return io.delta.kernel.internal.util.Utils.toCloseableIterator(list.iterator());
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
      List<DataFile> files,
      List<boolean[]> keepPerFile,
      boolean[] currentKeep,
      int current,
      String id)
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

  /**
   * The {@code add} action of a data file, with our statistics JSON as it is: Kernel's public path
   * ({@code generateAppendActions}) would serialise its own {@code DataFileStatistics} instead,
   * which does not carry the statistics our readers and pointers rely on in the same form.
   */
  static Row toAddFile(DataFile f) {
    return toAddFile(f, true);
  }

  /** {@link #toAddFile(DataFile)}; {@code dataChange=false} for a rewrite of stored rows. */
  static Row toAddFile(DataFile f, boolean dataChange) {
    return addFile(
        f.path(), f.partitionValues(), f.sizeBytes(), f.modificationTime(), dataChange, f.stats());
  }

  /** An {@code add} action; {@code stats} is the statistics JSON (Kernel writes it as a string). */
  static Row addFile(
      String path,
      Map<String, String> partitionValues,
      long size,
      long modificationTime,
      boolean dataChange,
      String stats) {
    StructType schema = AddFile.FULL_SCHEMA;
    Map<Integer, Object> values = new HashMap<>();
    values.put(schema.indexOf("path"), path);
    values.put(
        schema.indexOf("partitionValues"), VectorUtils.stringStringMapValue(partitionValues));
    values.put(schema.indexOf("size"), size);
    values.put(schema.indexOf("modificationTime"), modificationTime);
    values.put(schema.indexOf("dataChange"), dataChange);
    values.put(schema.indexOf("stats"), stats);
    return new GenericRow(schema, values);
  }

  /**
   * The table must hold every column we write, with the same type, and our partitioning. A nullable
   * top-level column that the table lacks (a table written by an older release, such as {@code
   * deltas} before {@code rules_id}) is added by a metadata update in the same commit, without
   * rewriting any file ({@link #addColumns}): rows of older files read back as null in that column.
   *
   * @return the evolved schema to commit, or null when the schema already fits
   */
  private StructType evolvedSchema(Snapshot snapshot) {
    StructType existing = snapshot.getSchema();
    StructType evolved = null;
    for (StructField ours : layout.deltaSchema().fields()) {
      StructField theirs = fieldOrNull(existing, ours.getName());
      if (theirs == null && ours.isNullable()) {
        evolved = (evolved == null ? existing : evolved).add(ours);
        continue;
      }
      if (theirs == null || !theirs.getDataType().equivalent(ours.getDataType())) {
        throw new IllegalStateException(
            "table "
                + tableRoot
                + " has an incompatible schema: column "
                + ours.getName()
                + " is "
                + (theirs == null ? "missing" : theirs.getDataType().toString())
                + ", expected "
                + ours.getDataType());
      }
    }
    if (!snapshot.getPartitionColumnNames().equals(layout.partitionColumnNames())) {
      throw new IllegalStateException(
          "table "
              + tableRoot
              + " is partitioned by "
              + snapshot.getPartitionColumnNames()
              + ", expected "
              + layout.partitionColumnNames());
    }
    return evolved;
  }

  private static StructField fieldOrNull(StructType schema, String name) {
    for (StructField f : schema.fields()) {
      if (f.getName().equals(name)) {
        return f;
      }
    }
    return null;
  }
}
