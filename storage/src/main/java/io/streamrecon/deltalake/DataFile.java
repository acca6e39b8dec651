package io.streamrecon.deltalake;

import java.io.IOException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.joda.time.Instant;

/**
 * A Parquet data file written but not yet committed: what the committer needs for its AddFile (path
 * relative to the table, partition values, size, modification time, stats JSON) and the per-row
 * keys ({@link RowKeys}: each row's content identity and, for raw_events, natural id, event time
 * and hash, from which it builds pointers once the commit succeeded), inline or in a sidecar.
 *
 * @param rowKeys the keys when carried inline, else empty
 * @param rowKeysFile the sidecar holding the keys, relative to the table root; empty when inline
 * @param earliest the earliest element timestamp in the file, the output timestamp of this record
 */
public record DataFile(
    String table,
    String path,
    Map<String, String> partitionValues,
    long sizeBytes,
    long modificationTime,
    long numRecords,
    String stats,
    byte[] rowKeys,
    String rowKeysFile,
    Instant earliest) {

  public DataFile {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(path, "path");
    partitionValues = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(partitionValues));
    Objects.requireNonNull(stats, "stats");
    Objects.requireNonNull(rowKeys, "rowKeys");
    Objects.requireNonNull(rowKeysFile, "rowKeysFile");
    Objects.requireNonNull(earliest, "earliest");
  }

  /** The row keys one row at a time, streamed from the sidecar when they are not inline. */
  RowKeys.Reader keyReader(
      org.apache.hadoop.conf.Configuration conf, org.apache.hadoop.fs.Path tableRoot)
      throws IOException {
    return RowKeys.reader(rowKeys, rowKeysFile, conf, tableRoot);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof DataFile d
        && table.equals(d.table)
        && path.equals(d.path)
        && partitionValues.equals(d.partitionValues)
        && sizeBytes == d.sizeBytes
        && modificationTime == d.modificationTime
        && numRecords == d.numRecords
        && stats.equals(d.stats)
        && Arrays.equals(rowKeys, d.rowKeys)
        && rowKeysFile.equals(d.rowKeysFile)
        && earliest.equals(d.earliest);
  }

  @Override
  public int hashCode() {
    return Objects.hash(table, path, sizeBytes, numRecords);
  }

  @Override
  public String toString() {
    return "DataFile[" + table + "/" + path + " " + numRecords + " rows]";
  }
}
