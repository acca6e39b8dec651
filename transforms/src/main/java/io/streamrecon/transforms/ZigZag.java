package io.streamrecon.transforms;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import org.apache.beam.sdk.util.VarInt;

/**
 * A signed long as a zig-zag varint, the form the pairing's state coders give times and offsets
 * that may be negative: small magnitudes of either sign take one or two bytes.
 */
public final class ZigZag {
  private ZigZag() {}

  /** Writes {@code v} zig-zag encoded as a varint. */
  public static void write(long v, OutputStream out) throws IOException {
    VarInt.encode((v << 1) ^ (v >> 63), out);
  }

  /** Reads a value {@link #write} wrote. */
  public static long read(InputStream in) throws IOException {
    long zigzag = VarInt.decodeLong(in);
    return (zigzag >>> 1) ^ -(zigzag & 1);
  }
}
