package io.streamrecon.deltalake;

import io.streamrecon.model.ModelCoders;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * The per-row keys a {@link DataFile} carries to its committer, in row order: each row's content
 * identity ({@link TableLayout#identity}), which the committer checks for copies already stored,
 * and the layout's extra row metadata (raw_events: natural id, event time, hash, from which the
 * pointers are built), so that the committer never reads an uncommitted file back unless it has to
 * drop copies from it.
 */
final class RowKeys {
  private RowKeys() {}

  /** One row's keys: its identity and the layout's extra bytes (empty when it has none). */
  record Row(String identity, byte[] extra) {}

  static <T> void encode(TableLayout<T> layout, T record, OutputStream out) throws IOException {
    ModelCoders.writeString(layout.identityOf(record), out);
    if (layout.rowKeys == null) {
      ModelCoders.writeBytes(new byte[0], out);
    } else {
      ByteArrayOutputStream extra = new ByteArrayOutputStream(64);
      layout.rowKeys.encode(record, extra);
      ModelCoders.writeBytes(extra.toByteArray(), out);
    }
  }

  static void write(Row row, OutputStream out) throws IOException {
    ModelCoders.writeString(row.identity(), out);
    ModelCoders.writeBytes(row.extra(), out);
  }

  static List<Row> decode(byte[] rowKeys) {
    ByteArrayInputStream in = new ByteArrayInputStream(rowKeys);
    List<Row> rows = new ArrayList<>();
    try {
      while (in.available() > 0) {
        rows.add(new Row(ModelCoders.readString(in), ModelCoders.readBytes(in)));
      }
    } catch (IOException e) {
      throw new IllegalStateException("corrupt row keys of a data file", e);
    }
    return rows;
  }

  /**
   * A 64-bit fingerprint of an identity (FNV-1a over the UTF-16 units, then a MurmurHash3
   * finaliser). Only used to rule copies out: a matching fingerprint is always confirmed against
   * the stored row's identity.
   */
  static long fingerprint(String identity) {
    long h = 0xcbf29ce484222325L;
    for (int i = 0; i < identity.length(); i++) {
      h ^= identity.charAt(i);
      h *= 0x100000001b3L;
    }
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb9fe1a85ec53L;
    h ^= h >>> 33;
    return h;
  }
}
