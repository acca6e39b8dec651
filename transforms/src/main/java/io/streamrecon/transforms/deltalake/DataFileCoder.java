package io.streamrecon.transforms.deltalake;

import io.streamrecon.deltalake.DataFile;
import io.streamrecon.model.ModelBytes;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.util.VarInt;

/**
 * Deterministic coder for {@link DataFile}, the data files written and not yet committed that the
 * Beam IO groups and passes to its commit step.
 */
final class DataFileCoder extends AtomicCoder<DataFile> {
  private static final DataFileCoder INSTANCE = new DataFileCoder();

  static DataFileCoder of() {
    return INSTANCE;
  }

  @Override
  public void encode(DataFile value, OutputStream out) throws IOException {
    ModelBytes.writeString(value.table(), out);
    ModelBytes.writeString(value.path(), out);
    VarInt.encode(value.partitionValues().size(), out);
    for (Map.Entry<String, String> e : value.partitionValues().entrySet()) {
      ModelBytes.writeString(e.getKey(), out);
      ModelBytes.writeString(e.getValue(), out);
    }
    VarInt.encode(value.sizeBytes(), out);
    VarInt.encode(value.modificationTime(), out);
    VarInt.encode(value.numRecords(), out);
    ModelBytes.writeString(value.stats(), out);
    ModelBytes.writeBytes(value.rowKeys(), out);
    ModelBytes.writeString(value.rowKeysFile(), out);
    ModelBytes.writeInstant(value.earliest(), out);
  }

  @Override
  public DataFile decode(InputStream in) throws IOException {
    String table = ModelBytes.readString(in);
    String path = ModelBytes.readString(in);
    int n = VarInt.decodeInt(in);
    Map<String, String> partitions = new LinkedHashMap<>();
    for (int i = 0; i < n; i++) {
      partitions.put(ModelBytes.readString(in), ModelBytes.readString(in));
    }
    return new DataFile(
        table,
        path,
        partitions,
        VarInt.decodeLong(in),
        VarInt.decodeLong(in),
        VarInt.decodeLong(in),
        ModelBytes.readString(in),
        ModelBytes.readBytes(in),
        ModelBytes.readString(in),
        ModelBytes.readInstant(in));
  }

  @Override
  public void verifyDeterministic() {}
}
