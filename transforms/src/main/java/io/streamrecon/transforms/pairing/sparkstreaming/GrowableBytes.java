package io.streamrecon.transforms.pairing.sparkstreaming;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;

/**
 * A growable byte buffer without locks, for the state coders: on Spark streaming a state value is
 * coded into a {@code ByteArrayOutputStream}, whose every write takes its lock, so the coders build
 * their bytes here and hand them over in one write.
 */
public final class GrowableBytes extends OutputStream {
  byte[] bytes;
  int size;

  /** An empty buffer of {@code capacity} bytes, grown as needed. */
  public GrowableBytes(int capacity) {
    bytes = new byte[capacity];
  }

  private void ensure(int more) {
    if (size + more > bytes.length) {
      bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
    }
  }

  @Override
  public void write(int b) {
    ensure(1);
    bytes[size++] = (byte) b;
  }

  @Override
  public void write(byte[] b, int off, int len) {
    ensure(len);
    System.arraycopy(b, off, bytes, size, len);
    size += len;
  }

  /** Writes {@code v} big-endian in eight bytes. */
  void writeLong(long v) {
    ensure(8);
    for (int shift = 56; shift >= 0; shift -= 8) {
      bytes[size++] = (byte) (v >>> shift);
    }
  }

  /** Hands the bytes written so far to {@code out} in one write. */
  public void writeTo(OutputStream out) throws IOException {
    out.write(bytes, 0, size);
  }
}
