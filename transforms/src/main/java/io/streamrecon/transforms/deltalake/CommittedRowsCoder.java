package io.streamrecon.transforms.deltalake;

import io.streamrecon.deltalake.CommittedRows;
import io.streamrecon.model.ModelBytes;
import io.streamrecon.model.Side;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.util.VarInt;

/**
 * Deterministic coder for {@link CommittedRows}, what the raw_events commit step emits for its
 * pointers to be made downstream.
 */
final class CommittedRowsCoder extends AtomicCoder<CommittedRows> {
  private static final CommittedRowsCoder INSTANCE = new CommittedRowsCoder();

  static CommittedRowsCoder of() {
    return INSTANCE;
  }

  @Override
  public void encode(CommittedRows value, OutputStream out) throws IOException {
    ModelBytes.writeString(value.side().name(), out);
    VarInt.encode(value.tableVersion(), out);
    ModelBytes.writeString(value.path(), out);
    ModelBytes.writeBytes(value.rowKeys(), out);
    ModelBytes.writeString(value.rowKeysFile(), out);
    VarInt.encode(value.rowIndexes().length, out);
    for (long row : value.rowIndexes()) {
      VarInt.encode(row, out);
    }
    VarInt.encode(value.numRecords(), out);
  }

  @Override
  public CommittedRows decode(InputStream in) throws IOException {
    Side side = Side.valueOf(ModelBytes.readString(in));
    long tableVersion = VarInt.decodeLong(in);
    String path = ModelBytes.readString(in);
    byte[] rowKeys = ModelBytes.readBytes(in);
    String rowKeysFile = ModelBytes.readString(in);
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
