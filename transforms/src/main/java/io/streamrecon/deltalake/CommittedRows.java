package io.streamrecon.deltalake;

import io.streamrecon.model.ModelCoders;
import io.streamrecon.model.Side;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.Objects;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.util.VarInt;

/**
 * Committed raw_events rows of one data file whose pointers are still to be made: what the commit
 * step emits instead of the pointers themselves, so that no step holds every pointer of a pane
 * (a batch run commits the whole input in one pane) as live objects at once. {@code
 * CommitFiles.ExpandPointersFn} turns one into its {@code EventRef}s.
 *
 * @param tableVersion the table version the pointers name
 * @param path the data file, relative to the table root
 * @param rowKeys the rows' {@link RowKeys} encoding, in order, when inline; else empty
 * @param rowKeysFile the sidecar holding the encoding, relative to the table root; empty when
 *     inline
 * @param rowIndexes empty when the rows are the whole file, rows 0..n-1 (a file committed now);
 *     else the stored row index of each row (copies recognised as stored by an earlier commit)
 * @param numRecords the number of rows {@code rowKeys} must carry
 */
record CommittedRows(
    Side side,
    long tableVersion,
    String path,
    byte[] rowKeys,
    String rowKeysFile,
    long[] rowIndexes,
    long numRecords) {

  CommittedRows {
    Objects.requireNonNull(side, "side");
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(rowKeys, "rowKeys");
    Objects.requireNonNull(rowKeysFile, "rowKeysFile");
    Objects.requireNonNull(rowIndexes, "rowIndexes");
    if (rowIndexes.length > 0 && rowIndexes.length != numRecords) {
      throw new IllegalArgumentException(
          rowIndexes.length + " row indexes for " + numRecords + " rows of " + path);
    }
  }

  /** The row keys one row at a time, streamed from the sidecar when they are not inline. */
  RowKeys.Reader keyReader(
      org.apache.hadoop.conf.Configuration conf, org.apache.hadoop.fs.Path tableRoot)
      throws IOException {
    return RowKeys.reader(rowKeys, rowKeysFile, conf, tableRoot);
  }

  /** The row index of the {@code i}-th row. */
  long rowIndex(int i) {
    return rowIndexes.length == 0 ? i : rowIndexes[i];
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CommittedRows c
        && side == c.side
        && tableVersion == c.tableVersion
        && path.equals(c.path)
        && Arrays.equals(rowKeys, c.rowKeys)
        && rowKeysFile.equals(c.rowKeysFile)
        && Arrays.equals(rowIndexes, c.rowIndexes)
        && numRecords == c.numRecords;
  }

  @Override
  public int hashCode() {
    return Objects.hash(side, tableVersion, path, Arrays.hashCode(rowKeys), numRecords);
  }

  @Override
  public String toString() {
    return "CommittedRows[" + path + "@" + tableVersion + " " + numRecords + " rows]";
  }

  /** Deterministic coder for {@link CommittedRows}. */
  static final class Coder extends AtomicCoder<CommittedRows> {
    private static final Coder INSTANCE = new Coder();

    static Coder of() {
      return INSTANCE;
    }

    @Override
    public void encode(CommittedRows value, OutputStream out) throws IOException {
      ModelCoders.writeString(value.side().name(), out);
      VarInt.encode(value.tableVersion(), out);
      ModelCoders.writeString(value.path(), out);
      ModelCoders.writeBytes(value.rowKeys(), out);
      ModelCoders.writeString(value.rowKeysFile(), out);
      VarInt.encode(value.rowIndexes().length, out);
      for (long row : value.rowIndexes()) {
        VarInt.encode(row, out);
      }
      VarInt.encode(value.numRecords(), out);
    }

    @Override
    public CommittedRows decode(InputStream in) throws IOException {
      Side side = Side.valueOf(ModelCoders.readString(in));
      long tableVersion = VarInt.decodeLong(in);
      String path = ModelCoders.readString(in);
      byte[] rowKeys = ModelCoders.readBytes(in);
      String rowKeysFile = ModelCoders.readString(in);
      long[] rowIndexes = new long[VarInt.decodeInt(in)];
      for (int i = 0; i < rowIndexes.length; i++) {
        rowIndexes[i] = VarInt.decodeLong(in);
      }
      return new CommittedRows(
          side, tableVersion, path, rowKeys, rowKeysFile, rowIndexes, VarInt.decodeLong(in));
    }

    @Override
    public void verifyDeterministic() {}
  }
}
