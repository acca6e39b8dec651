package io.streamrecon.transforms;

import io.streamrecon.model.EventRef;
import io.streamrecon.model.ModelCoders.EventRefCoder;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.CoderException;
import org.apache.beam.sdk.util.VarInt;
import org.joda.time.Instant;

/**
 * State coder for {@link PairingEntry}. The state is keyed by natural id, so the id is not written
 * again: kept events go through {@link EventRefCoder#encodeWithoutKey} and come back carrying
 * {@link PairingEntry#UNBOUND_ID} until {@link PairingEntry#forKey} rebinds them. Layout: a flag
 * byte (bit 0 source kept, bit 1 target kept), {@code t0} as zig-zag varint millis, the timer
 * target as a zig-zag varint offset from {@code t0} (3 bytes for a 10 minute timeout), then the
 * kept events. One kept event with a {@code DeltaLakeIO} pointer is about 75 bytes in all.
 */
final class PairingEntryCoder extends AtomicCoder<PairingEntry> {
  private static final PairingEntryCoder INSTANCE = new PairingEntryCoder();
  private static final int HAS_SOURCE = 1;
  private static final int HAS_TARGET = 2;

  static PairingEntryCoder of() {
    return INSTANCE;
  }

  private PairingEntryCoder() {}

  @Override
  public void encode(PairingEntry value, OutputStream out) throws IOException {
    out.write((value.source() == null ? 0 : HAS_SOURCE) | (value.target() == null ? 0 : HAS_TARGET));
    long t0 = value.t0().getMillis();
    writeZigZag(t0, out);
    writeZigZag(value.timerTarget().getMillis() - t0, out);
    if (value.source() != null) {
      EventRefCoder.encodeWithoutKey(value.source(), out);
    }
    if (value.target() != null) {
      EventRefCoder.encodeWithoutKey(value.target(), out);
    }
  }

  @Override
  public PairingEntry decode(InputStream in) throws IOException {
    int flags = in.read();
    if (flags < 1 || flags > (HAS_SOURCE | HAS_TARGET)) {
      throw new CoderException("bad pairing entry flags " + flags);
    }
    long t0 = readZigZag(in);
    long timerTarget = t0 + readZigZag(in);
    EventRef source =
        (flags & HAS_SOURCE) != 0 ? EventRefCoder.decodeWithoutKey(in, PairingEntry.UNBOUND_ID) : null;
    EventRef target =
        (flags & HAS_TARGET) != 0 ? EventRefCoder.decodeWithoutKey(in, PairingEntry.UNBOUND_ID) : null;
    return new PairingEntry(
        Instant.ofEpochMilli(t0), Instant.ofEpochMilli(timerTarget), source, target);
  }

  @Override
  public void verifyDeterministic() {}

  private static void writeZigZag(long v, OutputStream out) throws IOException {
    VarInt.encode((v << 1) ^ (v >> 63), out);
  }

  private static long readZigZag(InputStream in) throws IOException {
    long zigzag = VarInt.decodeLong(in);
    return (zigzag >>> 1) ^ -(zigzag & 1);
  }
}
