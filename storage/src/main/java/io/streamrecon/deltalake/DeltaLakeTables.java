package io.streamrecon.deltalake;

import io.streamrecon.deltalake.DeltaLakeSnapshot.TableFile;
import io.streamrecon.model.DeadLetter;
import io.streamrecon.model.DeltaRecord;
import io.streamrecon.model.Difference;
import io.streamrecon.model.DifferenceKind;
import io.streamrecon.model.EventRef;
import io.streamrecon.model.LateEvent;
import io.streamrecon.model.Origin;
import io.streamrecon.model.Pointer;
import io.streamrecon.model.Side;
import io.streamrecon.model.Status;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.PrimitiveType;
import org.joda.time.Instant;

/**
 * A plain reader of the tables {@code DeltaLakeIO} writes, for the command line and tests: reads
 * the current snapshot ({@link DeltaLakeSnapshot}) and its Parquet files, and maps rows back to
 * column values or to the model records. Not meant for large tables (it holds the result in
 * memory); query those with Spark or another Delta reader.
 *
 * <p>Column values are {@link String}, {@link Integer}, {@link Long}, {@link Boolean}, {@link
 * Instant} (timestamps), {@link LocalDate} (dates), {@code Map<String, Object>} (structs) and
 * {@code List<Map<String, Object>>} (arrays of structs); SQL NULL is {@code null}. A table that
 * does not exist yet reads as empty.
 */
public final class DeltaLakeTables {
  private DeltaLakeTables() {}

  /** Key added by {@link #findRawEvents}: the data file of the row, relative to the table. */
  public static final String DATA_FILE = "_data_file";

  /** Key added by {@link #findRawEvents}: the row's index in its data file. */
  public static final String ROW_INDEX = "_row_index";

  /** Every row of the current snapshot of {@code table}, column name to value, in schema order. */
  public static List<Map<String, Object>> readRows(String warehouse, String table) {
    return read(warehouse, TableLayouts.forName(table), f -> true, row -> true, false);
  }

  /**
   * The {@code raw_events} rows of a natural id, with their {@link #DATA_FILE} and {@link
   * #ROW_INDEX}.
   */
  public static List<Map<String, Object>> findRawEvents(String warehouse, String naturalId) {
    return read(
        warehouse,
        TableLayouts.RAW_EVENTS,
        f -> FileStats.mayContain(f.stats(), PayloadReader.NATURAL_ID, naturalId),
        row -> naturalId.equals(row.get(PayloadReader.NATURAL_ID)),
        true);
  }

  /** The {@code deltas} table as records. */
  public static List<DeltaRecord> readDeltas(String warehouse) {
    return readRows(warehouse, WarehouseTables.DELTAS).stream()
        .map(DeltaLakeTables::toDeltaRecord)
        .toList();
  }

  /** A {@code deltas} row and the data file that holds it, relative to the table. */
  public record StoredDeltaRecord(DeltaRecord record, String dataFile) {}

  /**
   * The {@code deltas} table as records, each with its data file: the file names the commit that
   * added the row, which is when readers could first see it.
   */
  public static List<StoredDeltaRecord> readDeltasWithDataFile(String warehouse) {
    return read(warehouse, TableLayouts.DELTAS, f -> true, row -> true, true).stream()
        .map(row -> new StoredDeltaRecord(toDeltaRecord(row), (String) row.get(DATA_FILE)))
        .toList();
  }

  /** The {@code dead_letters} table as records (raw bytes restored from text or base64). */
  public static List<DeadLetter> readDeadLetters(String warehouse) {
    return readRows(warehouse, WarehouseTables.DEAD_LETTERS).stream()
        .map(DeltaLakeTables::toDeadLetter)
        .toList();
  }

  /** The {@code late_events} table as records. */
  public static List<LateEvent> readLateEvents(String warehouse) {
    return readRows(warehouse, WarehouseTables.LATE_EVENTS).stream()
        .map(DeltaLakeTables::toLateEvent)
        .toList();
  }

  /** The current version of {@code table}, or -1 when it does not exist. */
  public static long tableVersion(String warehouse, String table) {
    DeltaLakeSnapshot snapshot = DeltaLakeSnapshot.latest(warehouse, table);
    return snapshot == null ? -1 : snapshot.version();
  }

  // ------------------------------------------------------------------ reading

  private static List<Map<String, Object>> read(
      String warehouse,
      TableLayout<?> layout,
      Predicate<TableFile> fileFilter,
      Predicate<Map<String, Object>> rowFilter,
      boolean withLocation) {
    Configuration conf = new Configuration();
    Path root = DeltaLakeCommitter.tablePath(warehouse, layout.name);
    DeltaLakeSnapshot snapshot = DeltaLakeSnapshot.latest(conf, root);
    if (snapshot == null) {
      return List.of();
    }
    List<TableFile> files = snapshot.files();
    List<Map<String, Object>> rows = new ArrayList<>();
    for (TableFile file : files) {
      if (!fileFilter.test(file)) {
        continue;
      }
      try (ParquetReader<Group> reader =
          DataFileFormat.reader(
                  new GroupReadSupport(),
                  HadoopInputFile.fromPath(new Path(root, file.path()), conf))
              .build()) {
        DeletedRows deleted = snapshot.deletedRows(file);
        long index = 0;
        for (Group g = reader.read(); g != null; g = reader.read(), index++) {
          if (deleted.contains(index)) {
            continue;
          }
          Map<String, Object> row = new LinkedHashMap<>();
          for (ColumnSpec c : layout.columns) {
            row.put(
                c.name,
                c.partition
                    ? TableLayout.partitionValue(c, file.partitionValues().get(c.name))
                    : value(g, c));
          }
          if (rowFilter.test(row)) {
            if (withLocation) {
              row.put(DATA_FILE, file.path());
              row.put(ROW_INDEX, index);
            }
            rows.add(row);
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException("reading " + file.path() + " of " + root, e);
      }
    }
    return rows;
  }

  public static Object value(Group g, ColumnSpec c) {
    GroupType type = g.getType();
    if (!type.containsField(c.name)) {
      return null;
    }
    int i = type.getFieldIndex(c.name);
    if (g.getFieldRepetitionCount(i) == 0) {
      return null;
    }
    return switch (c.kind) {
      case STRING -> g.getBinary(i, 0).toStringUsingUTF8();
      case INT -> g.getInteger(i, 0);
      case LONG -> g.getLong(i, 0);
      case BOOLEAN -> g.getBoolean(i, 0);
      case DATE -> LocalDate.ofEpochDay(g.getInteger(i, 0));
      case TIMESTAMP -> timestamp(g, i, type.getType(i).asPrimitiveType());
      case STRUCT -> struct(g.getGroup(i, 0), c.children);
      case ARRAY_OF_STRUCT -> {
        Group list = g.getGroup(i, 0);
        List<Map<String, Object>> elements = new ArrayList<>();
        int n = list.getType().getFieldCount() == 0 ? 0 : list.getFieldRepetitionCount(0);
        for (int k = 0; k < n; k++) {
          Group item = list.getGroup(0, k);
          // Three-level lists wrap each element in a single-field group; two-level ones do not.
          Group element =
              item.getType().getFieldCount() == 1 && !item.getType().getType(0).isPrimitive()
                  ? item.getGroup(0, 0)
                  : item;
          elements.add(struct(element, c.children));
        }
        yield elements;
      }
    };
  }

  private static Map<String, Object> struct(Group g, List<ColumnSpec> children) {
    Map<String, Object> values = new LinkedHashMap<>();
    for (ColumnSpec child : children) {
      values.put(child.name, value(g, child));
    }
    return values;
  }

  /** Any writer's timestamp: see {@link ParquetTimestamps}. */
  private static Instant timestamp(Group g, int i, PrimitiveType type) {
    return new Instant(ParquetTimestamps.millis(g, i, type));
  }

  // ------------------------------------------------------------------ rows to records

  @SuppressWarnings("unchecked")
  static DeltaRecord toDeltaRecord(Map<String, Object> row) {
    String naturalId = (String) row.get("natural_id");
    String sourceHash = (String) row.get("source_hash");
    String targetHash = (String) row.get("target_hash");
    List<Difference> differences = new ArrayList<>();
    List<Map<String, Object>> diffs = (List<Map<String, Object>>) row.get("differences");
    if (diffs != null) {
      for (Map<String, Object> d : diffs) {
        differences.add(
            new Difference(
                (String) d.get("path"),
                DifferenceKind.valueOf((String) d.get("kind")),
                (String) d.get("source"),
                (String) d.get("target")));
      }
    }
    return new DeltaRecord(
        (String) row.get("verdict_id"),
        (String) row.get("supersedes"),
        naturalId,
        Status.valueOf((String) row.get("status")),
        differences,
        sourceHash,
        targetHash,
        (Instant) row.get("source_event_time"),
        (Instant) row.get("target_event_time"),
        toPointer(
            (Map<String, Object>) row.get("source_pointer"), Side.SOURCE, naturalId, sourceHash),
        toPointer(
            (Map<String, Object>) row.get("target_pointer"), Side.TARGET, naturalId, targetHash),
        (Instant) row.get("detected_at"),
        (String) row.get("run_id"),
        (String) row.get("rules_id"));
  }

  private static Pointer toPointer(
      Map<String, Object> struct, Side side, String naturalId, String sha256) {
    if (struct == null) {
      return null;
    }
    return new Pointer(
        (Long) struct.get("table_version"),
        (String) struct.get("data_file"),
        (Long) struct.get("row_index"),
        side,
        naturalId,
        sha256);
  }

  static DeadLetter toDeadLetter(Map<String, Object> row) {
    String raw = (String) row.get("raw");
    byte[] bytes =
        TableLayouts.RAW_BASE64.equals(row.get("raw_encoding"))
            ? Base64.getDecoder().decode(raw)
            : raw.getBytes(StandardCharsets.UTF_8);
    return new DeadLetter(
        Side.valueOf((String) row.get("side")),
        bytes,
        (String) row.get("error"),
        (String) row.get("stage"),
        toOrigin(row),
        (Instant) row.get("failed_at"));
  }

  private static Origin toOrigin(Map<String, Object> row) {
    Integer partition = (Integer) row.get("origin_partition");
    return new Origin(
        (String) row.get("origin_stream"),
        partition == null ? Origin.FILE_PARTITION : partition,
        (Long) row.get("origin_offset"));
  }

  @SuppressWarnings("unchecked")
  static LateEvent toLateEvent(Map<String, Object> row) {
    Side side = Side.valueOf((String) row.get("side"));
    String naturalId = (String) row.get("natural_id");
    String sha256 = (String) row.get("sha256");
    Pointer pointer = toPointer((Map<String, Object>) row.get("pointer"), side, naturalId, sha256);
    return new LateEvent(
        new EventRef(side, naturalId, (Instant) row.get("event_time"), sha256, pointer),
        (Instant) row.get("watermark"));
  }
}
