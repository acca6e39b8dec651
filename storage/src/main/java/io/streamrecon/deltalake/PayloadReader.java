package io.streamrecon.deltalake;

import io.delta.kernel.Snapshot;
import io.delta.kernel.engine.Engine;
import io.streamrecon.deltalake.DeltaLakeSnapshot.TableFile;
import io.streamrecon.model.Pointer;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.PrimitiveIterator;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.LongStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.filter2.predicate.FilterApi;
import org.apache.parquet.filter2.predicate.FilterPredicate;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.api.InitContext;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.apache.parquet.internal.filter2.columnindex.RowRanges;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.Converter;
import org.apache.parquet.io.api.GroupConverter;
import org.apache.parquet.io.api.PrimitiveConverter;
import org.apache.parquet.schema.MessageType;

/**
 * Reads raw event payloads for a batch of pointers: each data file is opened once, only the {@code
 * payload} column is read, and only the pages that hold a wanted row are fetched (by the file's
 * offset index). Pointers are read against the table's latest snapshot: a pointer whose file is no
 * longer live (rewritten by OPTIMIZE, compaction or a {@code DELETE}, removed by VACUUM or
 * retention) or whose row a deletion vector deletes is resolved by its fallback key (side, natural
 * id, hash) among the live rows, opening only the files whose partition and natural_id stats admit
 * the key; one that finds no row is deleted (docs/design.md#tables-and-pointers). A file's deletion
 * vector is loaded once per read, and only for files that have one.
 */
public final class PayloadReader {

  /** What a read did, for metrics and tests. */
  public interface Listener {
    void fileOpened();

    void rowsRead(long rows);

    void fallback(Pointer pointer);

    void fileSkippedByStats();

    /** Rows whose pages were fetched and decoded to reach the wanted ones. */
    default void rowsScanned(long rows) {}

    /** A pointer whose row is gone from the table: it answers "deleted". */
    default void deleted(Pointer pointer) {}
  }

  public static final String PAYLOAD = "payload";
  public static final String NATURAL_ID = "natural_id";
  public static final String SHA256 = "sha256";

  private static final Pattern EVENT_DATE = Pattern.compile("event_date=(\\d{4}-\\d{2}-\\d{2})");

  private final Configuration conf;
  private final Path tableRoot;
  private Engine engine;
  private DeltaLakeSnapshot cached;

  public PayloadReader(Configuration conf, String warehouse) {
    this.conf = conf;
    this.tableRoot = DeltaLakeCommitter.tablePath(warehouse, WarehouseTables.RAW_EVENTS);
  }

  /**
   * Payload bytes of every pointer whose row is in the table's latest snapshot. A pointer is left
   * out of the result when its row is gone: deleted by a deletion vector, or its file removed
   * (rewritten by a {@code DELETE}, OPTIMIZE or compaction, or dropped by retention) and no live
   * row has its fallback key. Such a pointer answers "deleted", and the listener hears of it; never
   * another row's payload. A file that exists but cannot be read throws, and so does a pointer into
   * a live file missing from storage whose key finds no other row: the log says the row is there,
   * so that is a damaged table, not a delete.
   */
  public Map<Pointer, byte[]> read(Iterable<Pointer> pointers, Listener listener)
      throws IOException {
    Map<String, NavigableMap<Long, List<Pointer>>> byFile = new TreeMap<>();
    for (Pointer p : pointers) {
      byFile
          .computeIfAbsent(p.dataFile(), f -> new TreeMap<>())
          .computeIfAbsent(p.rowIndex(), r -> new ArrayList<>())
          .add(p);
    }
    Map<Pointer, byte[]> result = new HashMap<>();
    if (byFile.isEmpty()) {
      return result;
    }
    DeltaLakeSnapshot snapshot = snapshot();
    Map<String, TableFile> live = new HashMap<>();
    for (TableFile f : snapshot == null ? List.<TableFile>of() : snapshot.files()) {
      live.put(f.path(), f);
    }
    // Rows gone from the table, and rows of live files missing from storage (a damaged table).
    List<Pointer> gone = new ArrayList<>();
    List<Pointer> missing = new ArrayList<>();
    for (Map.Entry<String, NavigableMap<Long, List<Pointer>>> e : byFile.entrySet()) {
      TableFile file = live.get(e.getKey());
      if (file == null) {
        // Removed from the table: its rows are read only where the log still has them.
        e.getValue().values().forEach(gone::addAll);
        continue;
      }
      NavigableMap<Long, List<Pointer>> wanted = e.getValue();
      if (file.deletionVector() != null) {
        DeletedRows deleted = snapshot.deletedRows(file);
        wanted = new TreeMap<>(wanted);
        for (var it = wanted.entrySet().iterator(); it.hasNext(); ) {
          Map.Entry<Long, List<Pointer>> row = it.next();
          if (deleted.contains(row.getKey())) {
            gone.addAll(row.getValue());
            it.remove();
          }
        }
        if (wanted.isEmpty()) {
          continue;
        }
      }
      InputFile input;
      try {
        input = HadoopInputFile.fromPath(new Path(tableRoot, e.getKey()), conf);
      } catch (FileNotFoundException notFound) {
        wanted.values().forEach(missing::addAll);
        continue;
      }
      try {
        readRows(input, wanted, result, listener);
      } catch (FileNotFoundException notFound) {
        // Deleted from storage between the check and the open.
        wanted.values().forEach(missing::addAll);
      } catch (IOException | RuntimeException damaged) {
        throw unreadable(
            e.getKey(), wanted.values().iterator().next().get(0), countOf(wanted), damaged);
      }
    }
    if (!gone.isEmpty() || !missing.isEmpty()) {
      List<Pointer> byKey = new ArrayList<>(gone);
      byKey.addAll(missing);
      readByKey(snapshot, byKey, result, listener);
    }
    for (Pointer p : gone) {
      if (!result.containsKey(p)) {
        listener.deleted(p);
      }
    }
    for (Pointer p : missing) {
      if (!result.containsKey(p)) {
        // The log says the row is there: not a delete, a file lost from storage.
        throw new IllegalStateException(
            "raw event "
                + p.describe()
                + " not found: its data file is live in the table but missing from storage,"
                + " and no other live row has side "
                + p.side()
                + ", its natural id and hash "
                + p.sha256()
                + "; restore the file or its table version");
      }
    }
    return result;
  }

  /**
   * The latest snapshot, reused while the table's version is unchanged: the pointers of a bundle
   * need the live files and their deletion vectors, and a running pipeline reads many bundles
   * between two commits of raw_events.
   */
  private DeltaLakeSnapshot snapshot() {
    if (engine == null) {
      engine = DeltaLakeEngine.create(conf);
    }
    Snapshot latest = DeltaLakeSnapshot.kernelSnapshot(engine, tableRoot);
    if (latest == null) {
      cached = null;
      return null;
    }
    if (cached == null || cached.version() != latest.getVersion()) {
      cached = DeltaLakeSnapshot.of(engine, tableRoot, latest);
    }
    return cached;
  }

  private void readRows(
      InputFile input,
      NavigableMap<Long, List<Pointer>> wanted,
      Map<Pointer, byte[]> result,
      Listener listener)
      throws IOException {
    try (ParquetFileReader reader = ParquetFileReader.open(input)) {
      listener.fileOpened();
      MessageType fileSchema = reader.getFooter().getFileMetaData().getSchema();
      MessageType projection = new MessageType(fileSchema.getName(), fileSchema.getType(PAYLOAD));
      reader.setRequestedSchema(projection);
      ColumnDescriptor column = projection.getColumns().get(0);
      String createdBy = reader.getFooter().getFileMetaData().getCreatedBy();
      List<BlockMetaData> blocks = reader.getRowGroups();
      long blockStart = 0;
      long rowsRead = 0;
      for (int b = 0; b < blocks.size(); b++) {
        BlockMetaData block = blocks.get(b);
        long count = block.getRowCount();
        SortedMap<Long, List<Pointer>> inBlock = wanted.subMap(blockStart, blockStart + count);
        if (!inBlock.isEmpty()) {
          PageReadStore pages =
              reader.readFilteredRowGroup(
                  b, pagesHolding(reader, block, column, inBlock, blockStart));
          ColumnReader values =
              new ColumnReadStoreImpl(pages, new IgnoringConverter(), projection, createdBy)
                  .getColumnReader(column);
          listener.rowsScanned(pages.getRowCount());
          PrimitiveIterator.OfLong rowIndexes =
              pages.getRowIndexes().orElseGet(() -> LongStream.range(0, count).iterator());
          for (long i = 0; i < pages.getRowCount(); i++) {
            long row = blockStart + rowIndexes.nextLong();
            List<Pointer> ps = inBlock.get(row);
            if (ps != null
                && values.getCurrentDefinitionLevel() == column.getMaxDefinitionLevel()) {
              byte[] payload = values.getBinary().getBytes();
              for (Pointer p : ps) {
                result.put(p, payload);
              }
              rowsRead++;
            } else {
              values.skip();
            }
            values.consume();
          }
        }
        blockStart += count;
      }
      listener.rowsRead(rowsRead);
      Long beyond = wanted.ceilingKey(blockStart);
      if (beyond != null) {
        throw new IllegalStateException(
            "pointer "
                + wanted.get(beyond).get(0).describe()
                + " is past the end of its data file ("
                + blockStart
                + " rows)");
      }
    }
  }

  /** The row ranges of the pages that hold the wanted rows; the whole row group without index. */
  private static RowRanges pagesHolding(
      ParquetFileReader reader,
      BlockMetaData block,
      ColumnDescriptor column,
      SortedMap<Long, List<Pointer>> wanted,
      long blockStart)
      throws IOException {
    ColumnChunkMetaData chunk = null;
    for (ColumnChunkMetaData c : block.getColumns()) {
      if (c.getPath().equals(ColumnPath.get(column.getPath()))) {
        chunk = c;
      }
    }
    OffsetIndex index = chunk == null ? null : reader.readOffsetIndex(chunk);
    long count = block.getRowCount();
    if (index == null) {
      return RowRanges.createSingle(count);
    }
    TreeSet<Integer> pages = new TreeSet<>();
    int page = 0;
    for (long absolute : wanted.keySet()) {
      long row = absolute - blockStart;
      while (page < index.getPageCount() - 1 && index.getLastRowIndex(page, count) < row) {
        page++;
      }
      pages.add(page);
    }
    return RowRanges.create(count, pages.stream().mapToInt(Integer::intValue).iterator(), index);
  }

  /**
   * Finds rows of pointers whose row is gone from its file, by their fallback key: the same side,
   * natural id and hash, so the same payload, in a live row of the snapshot.
   */
  private void readByKey(
      DeltaLakeSnapshot snapshot,
      List<Pointer> gone,
      Map<Pointer, byte[]> result,
      Listener listener)
      throws IOException {
    gone.forEach(listener::fallback);
    Map<String, TableFile> candidateFiles = new HashMap<>();
    Map<String, List<Pointer>> candidates = new TreeMap<>();
    for (TableFile file : snapshot == null ? List.<TableFile>of() : snapshot.files()) {
      List<Pointer> admitted = new ArrayList<>();
      for (Pointer p : gone) {
        if (partitionAdmits(file, p)
            && FileStats.mayContain(file.stats(), NATURAL_ID, p.naturalId())) {
          admitted.add(p);
        }
      }
      if (admitted.isEmpty()) {
        listener.fileSkippedByStats();
      } else {
        candidates.put(file.path(), admitted);
        candidateFiles.put(file.path(), file);
      }
    }
    for (Map.Entry<String, List<Pointer>> e : candidates.entrySet()) {
      List<Pointer> open = e.getValue().stream().filter(p -> !result.containsKey(p)).toList();
      if (!open.isEmpty()) {
        try {
          findInFile(
              new Path(tableRoot, e.getKey()),
              snapshot.deletedRows(candidateFiles.get(e.getKey())),
              open,
              result,
              listener);
        } catch (FileNotFoundException notFound) {
          // A file of the snapshot deleted from storage (the pointer's own, or another): its rows
          // cannot be the fallback.
        } catch (IOException | RuntimeException damaged) {
          throw unreadable(e.getKey(), open.get(0), open.size(), damaged);
        }
      }
    }
  }

  private static int countOf(NavigableMap<Long, List<Pointer>> wanted) {
    int n = 0;
    for (List<Pointer> ps : wanted.values()) {
      n += ps.size();
    }
    return n;
  }

  /**
   * A data file that exists but cannot be read (truncated, overwritten, not Parquet): the payload
   * behind the pointer is unknown, so the bundle fails with a message naming the pointer rather
   * than a verdict being made without it.
   */
  private static IllegalStateException unreadable(
      String dataFile, Pointer first, int pointers, Exception cause) {
    return new IllegalStateException(
        "raw event "
            + first.describe()
            + (pointers > 1 ? " (and " + (pointers - 1) + " more pointers into it)" : "")
            + " cannot be read: data file "
            + dataFile
            + " is damaged ("
            + cause.getClass().getSimpleName()
            + ": "
            + cause.getMessage()
            + "); restore the file or its table version",
        cause);
  }

  private static boolean partitionAdmits(TableFile file, Pointer p) {
    String side = file.partitionValues().get("side");
    if (side != null && !side.equals(p.side().name())) {
      return false;
    }
    String date = file.partitionValues().get("event_date");
    Matcher m = EVENT_DATE.matcher(p.dataFile());
    return date == null || !m.find() || date.equals(m.group(1));
  }

  private void findInFile(
      Path path,
      DeletedRows deleted,
      List<Pointer> pointers,
      Map<Pointer, byte[]> result,
      Listener listener)
      throws IOException {
    FilterPredicate filter = null;
    for (Pointer p : pointers) {
      FilterPredicate key =
          FilterApi.and(
              FilterApi.eq(FilterApi.binaryColumn(NATURAL_ID), Binary.fromString(p.naturalId())),
              FilterApi.eq(FilterApi.binaryColumn(SHA256), Binary.fromString(p.sha256())));
      filter = filter == null ? key : FilterApi.or(filter, key);
    }
    long rows = 0;
    try (ParquetReader<Group> reader =
        DataFileFormat.reader(new KeyAndPayloadReadSupport(), HadoopInputFile.fromPath(path, conf))
            .withFilter(FilterCompat.get(filter))
            .build()) {
      listener.fileOpened();
      for (Group g = reader.read(); g != null; g = reader.read()) {
        rows++;
        if (deleted.contains(reader.getCurrentRowIndex())) {
          continue;
        }
        String id = g.getBinary(NATURAL_ID, 0).toStringUsingUTF8();
        String hash = g.getBinary(SHA256, 0).toStringUsingUTF8();
        byte[] payload = g.getBinary(PAYLOAD, 0).getBytes();
        for (Pointer p : pointers) {
          if (p.naturalId().equals(id) && p.sha256().equals(hash)) {
            result.putIfAbsent(p, payload);
          }
        }
      }
    }
    listener.rowsRead(rows);
  }

  /**
   * Reads natural_id, sha256 and payload only, typed as the file declares them (another writer, an
   * OPTIMIZE by Spark for instance, may have made them optional).
   */
  private static final class KeyAndPayloadReadSupport extends GroupReadSupport {
    @Override
    public ReadContext init(InitContext context) {
      MessageType file = context.getFileSchema();
      return new ReadContext(
          new MessageType(
              file.getName(),
              file.getType(NATURAL_ID),
              file.getType(SHA256),
              file.getType(PAYLOAD)));
    }
  }

  /** {@link ColumnReadStoreImpl} wants converters; values are taken from the reader directly. */
  private static final class IgnoringConverter extends GroupConverter {
    @Override
    public Converter getConverter(int fieldIndex) {
      return new PrimitiveConverter() {};
    }

    @Override
    public void start() {}

    @Override
    public void end() {}
  }
}
