package io.streamrecon.deltalake;

import io.streamrecon.deltalake.DeltaLakeSnapshot.TableFile;
import io.streamrecon.model.DeltaRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.HadoopReadOptions;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.filter2.predicate.FilterApi;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.api.Binary;

/**
 * Finds the rows of one natural id without reading whole tables, for {@code explain}: files are
 * skipped by their Delta {@code natural_id} statistics, and inside a file Parquet skips row groups
 * and pages by its own statistics, dictionaries and column index. Row indexes are the rows'
 * positions in their files, as pointers count them. Rows a deletion vector deletes are not found.
 */
public final class DeltaLakeLookup {
  private DeltaLakeLookup() {}

  /**
   * What a lookup did, for benchmarks: of the snapshot's files, how many the Delta Lake stats
   * admitted (their footers were read), and how many of those Parquet's row-group stats,
   * dictionaries and bloom filters admitted (their rows were read).
   */
  public record Cost(long filesInSnapshot, long filesOpened, long filesRead, long rowsMatched) {}

  /**
   * The {@code raw_events} rows of a natural id, with {@link DeltaLakeTables#DATA_FILE} and {@link
   * DeltaLakeTables#ROW_INDEX}; the same rows as {@link DeltaLakeTables#findRawEvents}.
   */
  public static List<Map<String, Object>> findRawEvents(String warehouse, String naturalId) {
    return find(warehouse, TableLayouts.RAW_EVENTS, naturalId, true, null);
  }

  /** Like {@link #findRawEvents}, and reports what the lookup cost into {@code cost[0]}. */
  public static List<Map<String, Object>> findRawEvents(
      String warehouse, String naturalId, Cost[] cost) {
    return find(warehouse, TableLayouts.RAW_EVENTS, naturalId, true, cost);
  }

  /** The {@code deltas} records of a natural id. */
  public static List<DeltaRecord> findDeltas(String warehouse, String naturalId) {
    return find(warehouse, TableLayouts.DELTAS, naturalId, false, null).stream()
        .map(DeltaLakeTables::toDeltaRecord)
        .toList();
  }

  /**
   * The earliest {@code event_date} of a live {@code raw_events} file, or {@code null} when no file
   * is live. Raw event retention removes every date before a cutoff, so a stored row's date before
   * this one was removed by retention, and a later one by a delete.
   */
  public static LocalDate earliestRawEventDate(String warehouse) {
    DeltaLakeSnapshot snapshot = DeltaLakeSnapshot.latest(warehouse, WarehouseTables.RAW_EVENTS);
    LocalDate earliest = null;
    for (TableFile f : snapshot == null ? List.<TableFile>of() : snapshot.files()) {
      String date = f.partitionValues().get("event_date");
      if (date != null) {
        LocalDate d = LocalDate.parse(date);
        earliest = earliest == null || d.isBefore(earliest) ? d : earliest;
      }
    }
    return earliest;
  }

  private static List<Map<String, Object>> find(
      String warehouse,
      TableLayout<?> layout,
      String naturalId,
      boolean withLocation,
      Cost[] cost) {
    Configuration conf = new Configuration();
    Path root = DeltaLakeCommitter.tablePath(warehouse, layout.name);
    DeltaLakeSnapshot snapshot = DeltaLakeSnapshot.latest(conf, root);
    if (snapshot == null) {
      return List.of();
    }
    List<TableFile> files = snapshot.files();
    FilterCompat.Filter filter =
        FilterCompat.get(
            FilterApi.eq(
                FilterApi.binaryColumn(PayloadReader.NATURAL_ID), Binary.fromString(naturalId)));
    // Stats, dictionary and bloom filter levels: a file whose row groups all exclude the id is
    // skipped after its footer and a few KB of bloom filter, before any row is decoded.
    ParquetReadOptions options = HadoopReadOptions.builder(conf).withRecordFilter(filter).build();
    List<Map<String, Object>> rows = new ArrayList<>();
    long opened = 0;
    long read = 0;
    for (TableFile file : files) {
      if (!FileStats.mayContain(file.stats(), PayloadReader.NATURAL_ID, naturalId)) {
        continue;
      }
      opened++;
      Path path = new Path(root, file.path());
      try {
        InputFile input = HadoopInputFile.fromPath(path, conf);
        try (ParquetFileReader footer = ParquetFileReader.open(input, options)) {
          if (footer.getRowGroups().isEmpty()) {
            continue;
          }
        }
        read++;
        DeletedRows deleted = snapshot.deletedRows(file);
        try (ParquetReader<Group> reader =
            DataFileFormat.reader(new GroupReadSupport(), input).withFilter(filter).build()) {
          for (Group g = reader.read(); g != null; g = reader.read()) {
            if (deleted.contains(reader.getCurrentRowIndex())) {
              continue;
            }
            Map<String, Object> row = new LinkedHashMap<>();
            for (ColumnSpec c : layout.columns) {
              row.put(
                  c.name,
                  c.partition
                      ? TableLayout.partitionValue(c, file.partitionValues().get(c.name))
                      : DeltaLakeTables.value(g, c));
            }
            // The filter is exact for the row group and page stats it uses, not for every row.
            if (!naturalId.equals(row.get(PayloadReader.NATURAL_ID))) {
              continue;
            }
            if (withLocation) {
              row.put(DeltaLakeTables.DATA_FILE, file.path());
              row.put(DeltaLakeTables.ROW_INDEX, reader.getCurrentRowIndex());
            }
            rows.add(row);
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException("reading " + file.path() + " of " + root, e);
      }
    }
    if (cost != null) {
      cost[0] = new Cost(files.size(), opened, read, rows.size());
    }
    return rows;
  }
}
