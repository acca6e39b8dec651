package io.streamrecon.transforms.pairing;

import io.streamrecon.model.EventRef;
import io.streamrecon.model.ModelBytes;
import io.streamrecon.model.Pointer;
import io.streamrecon.model.Side;
import io.streamrecon.transforms.pairing.sparkstreaming.GrowableBytes;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.CoderException;
import org.apache.beam.sdk.util.VarInt;
import org.joda.time.Instant;

/**
 * State coder for {@link PairingEntry}. The entry is stored under its natural id (a map key), so
 * the id is not written again: kept events come back carrying {@link PairingEntry#UNBOUND_ID} until
 * {@link PairingEntry#forKey} rebinds them. Layout: a flag byte (bit 0 source kept, bit 1 target
 * kept), {@code t0} as zig-zag varint millis, the timer target as a zig-zag varint offset from
 * {@code t0} (3 bytes for a 10 minute timeout), then per kept event: its event time as an offset
 * from {@code t0} (1 byte when it opened the entry), its hash (33 bytes for a SHA-256), the
 * pointer's table version, data file (19 bytes for a {@code DeltaLakeIO} file) and row. The side is
 * implied by the flag. One kept event with a {@code DeltaLakeIO} pointer is 69 bytes in all ({@code
 * PairingEntryCoderTest}).
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
    GrowableBytes buf = new GrowableBytes(160);
    buf.write(
        (value.source() == null ? 0 : HAS_SOURCE) | (value.target() == null ? 0 : HAS_TARGET));
    long t0 = value.t0().getMillis();
    writeZigZag(t0, buf);
    writeZigZag(value.timerTarget().getMillis() - t0, buf);
    if (value.source() != null) {
      encodeEvent(value.source(), t0, buf);
    }
    if (value.target() != null) {
      encodeEvent(value.target(), t0, buf);
    }
    buf.writeTo(out);
  }

  @Override
  public PairingEntry decode(InputStream in) throws IOException {
    int flags = in.read();
    if (flags < 1 || flags > (HAS_SOURCE | HAS_TARGET)) {
      throw new CoderException("bad pairing entry flags " + flags);
    }
    long t0 = readZigZag(in);
    long timerTarget = t0 + readZigZag(in);
    EventRef source = (flags & HAS_SOURCE) != 0 ? decodeEvent(Side.SOURCE, t0, in) : null;
    EventRef target = (flags & HAS_TARGET) != 0 ? decodeEvent(Side.TARGET, t0, in) : null;
    return new PairingEntry(
        Instant.ofEpochMilli(t0), Instant.ofEpochMilli(timerTarget), source, target);
  }

  @Override
  public void verifyDeterministic() {}

  private static void encodeEvent(EventRef event, long t0, OutputStream out) throws IOException {
    writeZigZag(event.eventTime().getMillis() - t0, out);
    ModelBytes.writeHash(event.sha256(), out);
    Pointer p = event.pointer();
    VarInt.encode(p.tableVersion(), out);
    ModelBytes.writeDataFile(p.dataFile(), out);
    VarInt.encode(p.rowIndex(), out);
  }

  private static EventRef decodeEvent(Side side, long t0, InputStream in) throws IOException {
    Instant eventTime = Instant.ofEpochMilli(t0 + readZigZag(in));
    String hash = ModelBytes.readHash(in);
    long version = VarInt.decodeLong(in);
    String file = ModelBytes.readDataFile(in);
    long row = VarInt.decodeLong(in);
    String id = PairingEntry.UNBOUND_ID;
    return new EventRef(side, id, eventTime, hash, new Pointer(version, file, row, side, id, hash));
  }

  private static void writeZigZag(long v, OutputStream out) throws IOException {
    VarInt.encode((v << 1) ^ (v >> 63), out);
  }

  private static long readZigZag(InputStream in) throws IOException {
    long zigzag = VarInt.decodeLong(in);
    return (zigzag >>> 1) ^ -(zigzag & 1);
  }
}
