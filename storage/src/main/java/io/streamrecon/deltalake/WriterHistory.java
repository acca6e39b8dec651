package io.streamrecon.deltalake;

import io.delta.kernel.Table;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.internal.DeltaLogActionUtils.DeltaAction;
import io.delta.kernel.internal.TableImpl;
import io.delta.kernel.internal.util.VectorUtils;
import io.delta.kernel.utils.CloseableIterator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.api.ReadSupport;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one writer (one {@code SetTransaction} app id) stored recently in one table: the row
 * identities ({@link TableLayout#identity}) of the files its last commits added, as fingerprints,
 * so that the committer recognises a replayed row and points at the stored copy instead of storing
 * it again.
 *
 * <p><b>The bound.</b> Only the writer's last {@value #MAX_COMMITS} commits within the table's last
 * {@value #MAX_VERSIONS} versions are kept. A runner replays input only from its last completed
 * checkpoint (Flink: every {@code --checkpointingInterval}; Spark: the micro-batches after the last
 * checkpointed one), and the writer commits at most once per commit interval, so a replay reaches
 * back a few of the writer's commits (checkpoint interval / commit interval, plus the batches in
 * flight), far below the bound. Memory is 8 to 16 bytes per row of the window; time per commit is
 * one hash probe per row, plus reading the log versions committed since the last commit. A fresh
 * instance (after a restart) reads the window's log versions and the identity columns of the
 * window's files once.
 *
 * <p>Not thread-safe; one per committer and app id.
 */
final class WriterHistory {
  private static final Logger LOG = LoggerFactory.getLogger(WriterHistory.class);

  static final int MAX_COMMITS = 100;
  static final long MAX_VERSIONS = 1000;
  private static final int VERIFIED_FILES_CACHED = 16;
  private static final java.util.regex.Pattern COMMIT_FILE =
      java.util.regex.Pattern.compile("\\d{20}\\.json");

  /** Where a stored row is; {@code tableVersion} is {@link #PENDING} until its commit is made. */
  record Location(long tableVersion, String path, long rowIndex) {}

  static final long PENDING = -1;

  private record StoredFile(String path, long[] sortedFingerprints) {}

  private record Commit(long version, List<StoredFile> files) {}

  private final Configuration conf;
  private final Engine engine;
  private final Path tableRoot;
  private final TableLayout<?> layout;
  private final String appId;
  private final ArrayDeque<Commit> commits = new ArrayDeque<>();
  private final Set<Long> knownVersions = new HashSet<>();
  private final Map<String, Map<String, Long>> verified =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Map<String, Long>> eldest) {
          return size() > VERIFIED_FILES_CACHED;
        }
      };
  private LongHashSet index = new LongHashSet();
  private long indexedRows;
  private long liveRows;
  private long scannedUpTo = -1;
  private boolean initialised;

  WriterHistory(
      Configuration conf, Engine engine, Path tableRoot, TableLayout<?> layout, String appId) {
    this.conf = conf;
    this.engine = engine;
    this.tableRoot = tableRoot;
    this.layout = layout;
    this.appId = appId;
  }

  /** Takes in the writer's commits up to {@code readVersion} (the transaction's snapshot). */
  void refresh(long readVersion) {
    if (initialised && readVersion < scannedUpTo) {
      // The table is older than what was read of it: deleted and created again under the same
      // path while this history was kept. Nothing read of the old one holds.
      forgetAll();
    }
    if (readVersion < 0 || (initialised && readVersion <= scannedUpTo)) {
      return;
    }
    long from = initialised ? scannedUpTo + 1 : Math.max(0, readVersion - MAX_VERSIONS + 1);
    from = Math.max(from, earliestCommit());
    if (from <= readVersion) {
      readCommits(from, readVersion);
    }
    scannedUpTo = Math.max(scannedUpTo, readVersion);
    initialised = true;
    evict(readVersion);
  }

  private void forgetAll() {
    commits.clear();
    knownVersions.clear();
    verified.clear();
    index = new LongHashSet();
    indexedRows = 0;
    liveRows = 0;
    scannedUpTo = -1;
    initialised = false;
  }

  /**
   * Takes in the writer's commits among versions {@code from..to} of the log, reading only their
   * {@code add} and {@code txn} actions.
   */
  private void readCommits(long from, long to) {
    Table table = Table.forPath(engine, tableRoot.toString());
    Map<Long, List<Row>> added = new LinkedHashMap<>();
    Set<Long> ours = new HashSet<>();
    try (CloseableIterator<ColumnarBatch> batches =
        ((TableImpl) table)
            .getChanges(engine, from, to, EnumSet.of(DeltaAction.ADD, DeltaAction.TXN))) {
      while (batches.hasNext()) {
        ColumnarBatch batch = batches.next();
        int versionAt = batch.getSchema().indexOf("version");
        int addAt = batch.getSchema().indexOf(DeltaAction.ADD.colName);
        int txnAt = batch.getSchema().indexOf(DeltaAction.TXN.colName);
        try (CloseableIterator<Row> rows = batch.getRows()) {
          while (rows.hasNext()) {
            Row r = rows.next();
            long version = r.getLong(versionAt);
            if (knownVersions.contains(version)) {
              continue;
            }
            if (!r.isNullAt(txnAt)) {
              Row txn = r.getStruct(txnAt);
              if (appId.equals(txn.getString(txn.getSchema().indexOf("appId")))) {
                ours.add(version);
              }
            }
            if (!r.isNullAt(addAt)) {
              added.computeIfAbsent(version, v -> new ArrayList<>()).add(r.getStruct(addAt));
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading the log of " + tableRoot, e);
    }
    for (long version : new java.util.TreeSet<>(ours)) {
      List<StoredFile> files = new ArrayList<>();
      for (Row add : added.getOrDefault(version, List.of())) {
        String path = add.getString(add.getSchema().indexOf("path"));
        Map<String, String> partitionValues =
            VectorUtils.toJavaMap(add.getMap(add.getSchema().indexOf("partitionValues")));
        files.add(new StoredFile(path, sorted(readIdentities(path, partitionValues).keySet())));
      }
      add(new Commit(version, files));
    }
  }

  /** The first version whose commit file the log still holds (older ones may be cleaned up). */
  private long earliestCommit() {
    Path log = new Path(tableRoot, "_delta_log");
    long earliest = Long.MAX_VALUE;
    try {
      for (org.apache.hadoop.fs.FileStatus f : log.getFileSystem(conf).listStatus(log)) {
        String name = f.getPath().getName();
        if (COMMIT_FILE.matcher(name).matches()) {
          earliest = Math.min(earliest, Long.parseLong(name.substring(0, 20)));
        }
      }
    } catch (java.io.FileNotFoundException e) {
      return Long.MAX_VALUE;
    } catch (IOException e) {
      throw new UncheckedIOException("listing the log of " + tableRoot, e);
    }
    return earliest;
  }

  /** Records a commit this writer just made (no need to read it back). */
  void addOwn(long version, List<DataFile> files) throws IOException {
    List<StoredFile> stored = new ArrayList<>();
    for (DataFile f : files) {
      List<String> ids = new ArrayList<>();
      try (RowKeys.Reader rows = f.keyReader(conf, tableRoot)) {
        for (RowKeys.Row r = rows.next(); r != null; r = rows.next()) {
          ids.add(r.identity());
        }
      }
      stored.add(new StoredFile(f.path(), sorted(ids)));
    }
    add(new Commit(version, stored));
  }

  /** The stored copy of a row with this identity among the window's files, or {@code null}. */
  Location find(String identity) {
    long fp = RowKeys.fingerprint(identity);
    if (!index.contains(fp)) {
      return null;
    }
    Iterator<Commit> newestFirst = commits.descendingIterator();
    while (newestFirst.hasNext()) {
      Commit c = newestFirst.next();
      for (StoredFile f : c.files()) {
        if (Arrays.binarySearch(f.sortedFingerprints(), fp) >= 0) {
          Long row = verifiedRows(f.path()).get(identity);
          if (row != null) {
            return new Location(c.version(), f.path(), row);
          }
        }
      }
    }
    return null;
  }

  int commitsKept() {
    return commits.size();
  }

  private void add(Commit commit) {
    if (!knownVersions.add(commit.version())) {
      return;
    }
    commits.addLast(commit);
    for (StoredFile f : commit.files()) {
      for (long fp : f.sortedFingerprints()) {
        index.add(fp);
      }
      indexedRows += f.sortedFingerprints().length;
      liveRows += f.sortedFingerprints().length;
    }
  }

  private void evict(long readVersion) {
    boolean removed = false;
    while (!commits.isEmpty()
        && (commits.size() > MAX_COMMITS
            || commits.peekFirst().version() < readVersion - MAX_VERSIONS + 1)) {
      Commit old = commits.removeFirst();
      knownVersions.remove(old.version());
      for (StoredFile f : old.files()) {
        liveRows -= f.sortedFingerprints().length;
        verified.remove(f.path());
      }
      removed = true;
    }
    // Stale fingerprints only cost a verification; rebuild once they are half the index.
    if (removed && indexedRows > 2 * liveRows + 1024) {
      index = new LongHashSet();
      indexedRows = 0;
      for (Commit c : commits) {
        for (StoredFile f : c.files()) {
          for (long fp : f.sortedFingerprints()) {
            index.add(fp);
          }
          indexedRows += f.sortedFingerprints().length;
        }
      }
    }
  }

  private static long[] sorted(java.util.Collection<String> identities) {
    long[] fps = new long[identities.size()];
    int i = 0;
    for (String id : identities) {
      fps[i++] = RowKeys.fingerprint(id);
    }
    Arrays.sort(fps);
    return fps;
  }

  private Map<String, Long> verifiedRows(String path) {
    Map<String, Long> rows = verified.get(path);
    if (rows == null) {
      rows = readIdentities(path, partitionValuesOf(path));
      verified.put(path, rows);
    }
    return rows;
  }

  /** Hive-style partition values from a relative path ({@code side=SOURCE/event_date=...}). */
  private static Map<String, String> partitionValuesOf(String path) {
    Map<String, String> values = new LinkedHashMap<>();
    String[] parts = path.split("/");
    for (int i = 0; i < parts.length - 1; i++) {
      int eq = parts[i].indexOf('=');
      if (eq > 0) {
        values.put(parts[i].substring(0, eq), parts[i].substring(eq + 1));
      }
    }
    return values;
  }

  /**
   * The identity of every row of a stored file, to row index, reading only the identity columns. A
   * file that cannot be read (compacted away and vacuumed) contributes nothing.
   */
  Map<String, Long> readIdentities(String path, Map<String, String> partitionValues) {
    Map<String, Long> rows = new HashMap<>();
    MessageType full = layout.parquetSchema();
    List<Type> fields = new ArrayList<>();
    for (ColumnSpec c : layout.identity) {
      if (!c.partition) {
        fields.add(full.getType(c.name));
      }
    }
    Configuration projected = new Configuration(conf);
    projected.set(
        ReadSupport.PARQUET_READ_SCHEMA, new MessageType(full.getName(), fields).toString());
    try (ParquetReader<Group> reader =
        DataFileFormat.reader(
                new GroupReadSupport(),
                HadoopInputFile.fromPath(new Path(tableRoot, path), projected))
            .build()) {
      long index = 0;
      for (Group g = reader.read(); g != null; g = reader.read(), index++) {
        Map<String, Object> row = new HashMap<>();
        for (ColumnSpec c : layout.identity) {
          row.put(
              c.name,
              c.partition
                  ? TableLayout.partitionValue(c, partitionValues.get(c.name))
                  : DeltaLakeTables.value(g, c));
        }
        rows.putIfAbsent(layout.identityOfRow(row), index);
      }
    } catch (IOException e) {
      LOG.warn(
          "cannot read {} of {} to recognise replayed rows ({}); its rows are not checked",
          path,
          layout.name,
          e.toString());
    }
    return rows;
  }
}
