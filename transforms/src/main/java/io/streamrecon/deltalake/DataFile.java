package io.streamrecon.deltalake;

import io.streamrecon.model.ModelCoders;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.util.VarInt;
import org.joda.time.Instant;

/**
 * A Parquet data file written but not yet committed: what the committer needs for its AddFile
 * (path relative to the table, partition values, size, modification time, stats JSON) and the
 * per-row keys ({@link RowKeys}: each row's content identity and, for raw_events, natural id, event
 * time and hash, from which it builds pointers once the commit succeeded), inline or in a sidecar.
 *
 * @param rowKeys the keys when carried inline, else empty
 * @param rowKeysFile the sidecar holding the keys, relative to the table root; empty when inline
 * @param earliest the earliest element timestamp in the file, the output timestamp of this record
 */
record DataFile(
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

  DataFile {
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

  /** Deterministic coder for {@link DataFile}. */
  static final class Coder extends AtomicCoder<DataFile> {
    private static final Coder INSTANCE = new Coder();

    static Coder of() {
      return INSTANCE;
    }

    @Override
    public void encode(DataFile value, OutputStream out) throws IOException {
      ModelCoders.writeString(value.table(), out);
      ModelCoders.writeString(value.path(), out);
      VarInt.encode(value.partitionValues().size(), out);
      for (Map.Entry<String, String> e : value.partitionValues().entrySet()) {
        ModelCoders.writeString(e.getKey(), out);
        ModelCoders.writeString(e.getValue(), out);
      }
      VarInt.encode(value.sizeBytes(), out);
      VarInt.encode(value.modificationTime(), out);
      VarInt.encode(value.numRecords(), out);
      ModelCoders.writeString(value.stats(), out);
      ModelCoders.writeBytes(value.rowKeys(), out);
      ModelCoders.writeString(value.rowKeysFile(), out);
      ModelCoders.writeInstant(value.earliest(), out);
    }

    @Override
    public DataFile decode(InputStream in) throws IOException {
      String table = ModelCoders.readString(in);
      String path = ModelCoders.readString(in);
      int n = VarInt.decodeInt(in);
      Map<String, String> partitions = new LinkedHashMap<>();
      for (int i = 0; i < n; i++) {
        partitions.put(ModelCoders.readString(in), ModelCoders.readString(in));
      }
      return new DataFile(
          table,
          path,
          partitions,
          VarInt.decodeLong(in),
          VarInt.decodeLong(in),
          VarInt.decodeLong(in),
          ModelCoders.readString(in),
          ModelCoders.readBytes(in),
          ModelCoders.readString(in),
          ModelCoders.readInstant(in));
    }

    @Override
    public void verifyDeterministic() {}
  }
}
