package io.streamrecon.transforms.deltalake;

import io.streamrecon.deltalake.DeltaLakeCommit;
import io.streamrecon.model.ModelBytes;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.CoderException;
import org.apache.beam.sdk.util.VarInt;

/** Deterministic coder for {@link DeltaLakeCommit}. */
public final class DeltaLakeCommitCoder extends AtomicCoder<DeltaLakeCommit> {
  private static final DeltaLakeCommitCoder INSTANCE = new DeltaLakeCommitCoder();

  private DeltaLakeCommitCoder() {}

  public static DeltaLakeCommitCoder of() {
    return INSTANCE;
  }

  @Override
  public void encode(DeltaLakeCommit value, OutputStream out) throws IOException {
    ModelBytes.writeString(value.table(), out);
    VarInt.encode(value.tableVersion(), out);
    ModelBytes.writeString(value.appId(), out);
    VarInt.encode(value.txnVersion(), out);
    VarInt.encode(value.files(), out);
    VarInt.encode(value.rows(), out);
    out.write(value.replayed() ? 1 : 0);
    VarInt.encode(value.recognised(), out);
  }

  @Override
  public DeltaLakeCommit decode(InputStream in) throws IOException {
    String table = ModelBytes.readString(in);
    long version = VarInt.decodeLong(in);
    String appId = ModelBytes.readString(in);
    long txnVersion = VarInt.decodeLong(in);
    long files = VarInt.decodeLong(in);
    long rows = VarInt.decodeLong(in);
    int replayed = in.read();
    if (replayed < 0) {
      throw new CoderException("unexpected end of stream");
    }
    long recognised = VarInt.decodeLong(in);
    return new DeltaLakeCommit(
        table, version, appId, txnVersion, files, rows, replayed == 1, recognised);
  }

  @Override
  public void verifyDeterministic() {}
}
