package io.streamrecon.transforms.pairing;

import io.streamrecon.transforms.ZigZag;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.CoderException;
import org.apache.beam.sdk.util.VarInt;

/**
 * State coder for {@link ExpirySlot}, written to keep the index's share of an open entry small: the
 * ids come sorted, so each is written as the length of the UTF-8 prefix it shares with the previous
 * id plus the rest (front coding: {@code ORD-2026-11-29-00042} after {@code ORD-2026-11-29-00017}
 * costs 4 bytes, not 21); dues are zig-zag varint offsets from the slot's first due, at most a
 * grain apart (3 bytes for the default grain of a 10 minute timeout).
 */
final class ExpirySlotCoder extends AtomicCoder<ExpirySlot> {
  private static final ExpirySlotCoder INSTANCE = new ExpirySlotCoder();

  static ExpirySlotCoder of() {
    return INSTANCE;
  }

  private ExpirySlotCoder() {}

  @Override
  public void encode(ExpirySlot value, OutputStream out) throws IOException {
    VarInt.encode(value.dues().size(), out);
    byte[] previous = new byte[0];
    long base = 0;
    boolean first = true;
    for (Map.Entry<String, Long> e : value.dues().entrySet()) {
      byte[] id = e.getKey().getBytes(StandardCharsets.UTF_8);
      int shared = 0;
      int limit = Math.min(previous.length, id.length);
      while (shared < limit && previous[shared] == id[shared]) {
        shared++;
      }
      VarInt.encode(shared, out);
      VarInt.encode(id.length - shared, out);
      out.write(id, shared, id.length - shared);
      if (first) {
        base = e.getValue();
        ZigZag.write(base, out);
        first = false;
      } else {
        ZigZag.write(e.getValue() - base, out);
      }
      previous = id;
    }
  }

  @Override
  public ExpirySlot decode(InputStream in) throws IOException {
    int n = VarInt.decodeInt(in);
    TreeMap<String, Long> dues = new TreeMap<>();
    byte[] previous = new byte[0];
    long base = 0;
    for (int i = 0; i < n; i++) {
      int shared = VarInt.decodeInt(in);
      int rest = VarInt.decodeInt(in);
      if (shared > previous.length || rest < 0) {
        throw new CoderException("bad expiry slot id prefix " + shared + "/" + previous.length);
      }
      byte[] id = new byte[shared + rest];
      System.arraycopy(previous, 0, id, 0, shared);
      int read = in.readNBytes(id, shared, rest);
      if (read != rest) {
        throw new CoderException("unexpected end of stream in expiry slot");
      }
      long due = ZigZag.read(in);
      if (i == 0) {
        base = due;
      } else {
        due += base;
      }
      dues.put(new String(id, StandardCharsets.UTF_8), due);
      previous = id;
    }
    return new ExpirySlot(dues);
  }

  @Override
  public void verifyDeterministic() {}
}
