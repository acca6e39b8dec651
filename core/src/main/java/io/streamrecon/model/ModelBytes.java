package io.streamrecon.model;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.joda.time.Instant;

/**
 * The byte forms of the model's fields, shared by the Beam coders of the model records and by the
 * storage's row keys, which write them into data file sidecars: a presence byte for nullable
 * fields, varint lengths, hashes that are 64 lower-case hex digits packed into 32 bytes and data
 * file paths written by the raw_events writer into 16 bytes plus the partition date. Changing a
 * form changes both the coders' bytes and the files already stored.
 */
public final class ModelBytes {
  private ModelBytes() {}

  /** Writes a string, or {@code null}, as a presence byte, a varint length and UTF-8 bytes. */
  public static void writeString(String s, OutputStream out) throws IOException {
    if (s == null) {
      out.write(0);
      return;
    }
    out.write(1);
    byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
    writeVarInt(bytes.length, out);
    out.write(bytes);
  }

  /** Reads what {@link #writeString} wrote. */
  public static String readString(InputStream in) throws IOException {
    int present = readByte(in);
    if (present == 0) {
      return null;
    }
    return new String(readBytes(in), StandardCharsets.UTF_8);
  }

  /** Writes a byte array as a varint length and the bytes. */
  public static void writeBytes(byte[] bytes, OutputStream out) throws IOException {
    writeVarInt(bytes.length, out);
    out.write(bytes);
  }

  /**
   * A stored payload, or {@code null} for one that was deleted, written as no bytes: a stored
   * payload is a parsed JSON value and never empty, so the encoding is that of {@link #writeBytes}
   * and elements encoded before deleted payloads existed decode unchanged.
   */
  public static void writePayload(byte[] payload, OutputStream out) throws IOException {
    writeBytes(payload == null ? new byte[0] : payload, out);
  }

  /** Reads what {@link #writePayload} wrote. */
  public static byte[] readPayload(InputStream in) throws IOException {
    byte[] payload = readBytes(in);
    return payload.length == 0 ? null : payload;
  }

  /** Reads what {@link #writeBytes} wrote. */
  public static byte[] readBytes(InputStream in) throws IOException {
    int length = readVarInt(in);
    if (length < 0) {
      throw new IOException("negative length " + length);
    }
    byte[] bytes = new byte[length];
    new DataInputStream(in).readFully(bytes);
    return bytes;
  }

  /** Writes an instant, or {@code null}, as a presence byte and a zig-zag varint of millis. */
  public static void writeInstant(Instant instant, OutputStream out) throws IOException {
    if (instant == null) {
      out.write(0);
      return;
    }
    out.write(1);
    long millis = instant.getMillis();
    writeVarLong((millis << 1) ^ (millis >> 63), out);
  }

  /** Reads what {@link #writeInstant} wrote. */
  public static Instant readInstant(InputStream in) throws IOException {
    if (readByte(in) == 0) {
      return null;
    }
    long zigzag = readVarLong(in);
    return Instant.ofEpochMilli((zigzag >>> 1) ^ -(zigzag & 1));
  }

  /** Writes a hash: 32 packed bytes when it is 64 lower-case hex digits, else as a string. */
  public static void writeHash(String hash, OutputStream out) throws IOException {
    byte[] packed = packLowerHexSha256(hash);
    if (packed != null) {
      out.write(2);
      out.write(packed);
    } else {
      writeString(hash, out);
    }
  }

  // Called for every event a coder writes, and on Spark streaming for every entry of a pairing
  // bucket each time the bucket is stored: one loop that checks and packs, no regex, no HexFormat.
  private static byte[] packLowerHexSha256(String hash) {
    if (hash == null || hash.length() != 64) {
      return null;
    }
    byte[] packed = new byte[32];
    for (int i = 0; i < 32; i++) {
      int hi = lowerHexDigit(hash.charAt(2 * i));
      int lo = lowerHexDigit(hash.charAt(2 * i + 1));
      if ((hi | lo) < 0) {
        return null;
      }
      packed[i] = (byte) ((hi << 4) | lo);
    }
    return packed;
  }

  /** The value of a lower-case hex digit, or -1. */
  private static int lowerHexDigit(char c) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
      return c - 'a' + 10;
    }
    return -1;
  }

  /** Reads what {@link #writeHash} wrote. */
  public static String readHash(InputStream in) throws IOException {
    int tag = readByte(in);
    if (tag == 0) {
      return null;
    }
    if (tag == 2) {
      byte[] packed = new byte[32];
      new DataInputStream(in).readFully(packed);
      return HexFormat.of().formatHex(packed);
    }
    return new String(readBytes(in), StandardCharsets.UTF_8);
  }

  /**
   * Writes a data file path relative to its table: 16 bytes of UUID plus side and date when it has
   * the shape {@code DeltaLakeIO} gives raw_events files, else as a string.
   */
  public static void writeDataFile(String path, OutputStream out) throws IOException {
    CompactDataFile compact = CompactDataFile.parse(path);
    if (compact != null) {
      // One write of at most 27 bytes: streams coders get are often synchronized per call.
      byte[] buf = new byte[27];
      buf[0] = (byte) (compact.source() ? 3 : 4);
      int n = putVarLong(compact.epochDay(), buf, 1);
      n = putLong(compact.uuidHigh(), buf, n);
      n = putLong(compact.uuidLow(), buf, n);
      out.write(buf, 0, n);
    } else {
      writeString(path, out);
    }
  }

  /** Reads what {@link #writeDataFile} wrote. */
  public static String readDataFile(InputStream in) throws IOException {
    int tag = readByte(in);
    if (tag == 3 || tag == 4) {
      long epochDay = readVarLong(in);
      byte[] uuid = new byte[16];
      if (in.readNBytes(uuid, 0, 16) != 16) {
        throw new IOException("unexpected end of stream in a data file's UUID");
      }
      return new CompactDataFile(tag == 3, epochDay, getLong(uuid, 0), getLong(uuid, 8)).path();
    }
    if (tag == 0) {
      throw new IOException("data file path is never null");
    }
    return new String(readBytes(in), StandardCharsets.UTF_8);
  }

  /** Puts {@code v} as a varint at {@code at}, as {@link #writeVarLong}. */
  private static int putVarLong(long v, byte[] buf, int at) {
    while ((v & ~0x7FL) != 0) {
      buf[at++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    buf[at++] = (byte) v;
    return at;
  }

  /** Puts eight bytes, high first, as {@link java.io.DataOutputStream#writeLong} writes them. */
  private static int putLong(long v, byte[] buf, int at) {
    for (int shift = 56; shift >= 0; shift -= 8) {
      buf[at++] = (byte) (v >>> shift);
    }
    return at;
  }

  private static long getLong(byte[] buf, int at) {
    long v = 0;
    for (int i = at; i < at + 8; i++) {
      v = (v << 8) | (buf[i] & 0xFF);
    }
    return v;
  }

  /** Reads one byte, failing at the end of the stream. */
  public static int readByte(InputStream in) throws IOException {
    int b = in.read();
    if (b < 0) {
      throw new IOException("unexpected end of stream");
    }
    return b;
  }

  /** Writes an enum constant, or {@code null}, as one byte: 0, or its ordinal plus one. */
  public static <E extends Enum<E>> void writeEnum(E value, OutputStream out) throws IOException {
    out.write(value == null ? 0 : value.ordinal() + 1);
  }

  /** Reads what {@link #writeEnum} wrote. */
  public static <E extends Enum<E>> E readEnum(Class<E> type, InputStream in) throws IOException {
    int b = readByte(in);
    if (b == 0) {
      return null;
    }
    E[] values = type.getEnumConstants();
    if (b > values.length) {
      throw new IOException("bad ordinal " + (b - 1) + " for " + type.getSimpleName());
    }
    return values[b - 1];
  }

  /**
   * Writes an unsigned varint: seven bits a byte, low first, the high bit set on all but the last
   * byte (the encoding of Beam's {@code VarInt}, which the coders' bytes depend on).
   */
  public static void writeVarLong(long v, OutputStream out) throws IOException {
    do {
      long bits = v & 0x7F;
      v >>>= 7;
      out.write((int) (bits | (v != 0 ? 0x80 : 0)));
    } while (v != 0);
  }

  /** Writes an int as the unsigned varint of its 32 bits, without sign extension. */
  public static void writeVarInt(int v, OutputStream out) throws IOException {
    writeVarLong(v & 0xFFFFFFFFL, out);
  }

  /** Reads what {@link #writeVarLong} wrote. */
  public static long readVarLong(InputStream in) throws IOException {
    long result = 0;
    int shift = 0;
    int b;
    do {
      b = in.read();
      if (b < 0) {
        if (shift == 0) {
          throw new EOFException();
        }
        throw new IOException("varint not terminated");
      }
      long bits = b & 0x7F;
      if (shift >= 64 || (shift == 63 && bits > 1)) {
        throw new IOException("varint too long");
      }
      result |= bits << shift;
      shift += 7;
    } while ((b & 0x80) != 0);
    return result;
  }

  /** Reads what {@link #writeVarInt} wrote. */
  public static int readVarInt(InputStream in) throws IOException {
    long v = readVarLong(in);
    if (v < 0 || v >= 1L << 32) {
      throw new IOException("varint overflow " + v);
    }
    return (int) v;
  }
}
