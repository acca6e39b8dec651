package io.streamrecon.bench;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/** Splits a stream into lines as byte arrays (UTF-8 is never decoded here), without the newline. */
final class LineReader implements AutoCloseable {
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private final InputStream in;
  private byte[] buf = new byte[1 << 16];
  private int pos;
  private int lim;
  private boolean eof;

  LineReader(InputStream in) {
    this.in = in;
  }

  /** The next non-empty line, or null at the end of the stream. */
  byte[] next() throws IOException {
    while (true) {
      for (int i = newline(buf, pos, lim); i < lim; i++) {
        if (buf[i] == '\n') {
          byte[] line = Arrays.copyOfRange(buf, pos, i);
          pos = i + 1;
          if (line.length > 0) {
            return line;
          }
          return next();
        }
      }
      if (eof) {
        if (pos < lim) {
          byte[] line = Arrays.copyOfRange(buf, pos, lim);
          pos = lim;
          return line;
        }
        return null;
      }
      fill();
    }
  }

  /**
   * Where the search for a newline in {@code b[from..to)} must go on byte by byte: eight bytes per
   * step are skipped while none of them is a newline (the lines are kilobytes long).
   */
  static int newline(byte[] b, int from, int to) {
    int i = from;
    while (i + 16 <= to
        && (hasNewline((long) LONGS.get(b, i)) | hasNewline((long) LONGS.get(b, i + 8))) == 0) {
      i += 16;
    }
    while (i + 8 <= to && hasNewline((long) LONGS.get(b, i)) == 0) {
      i += 8;
    }
    return i;
  }

  private static long hasNewline(long w) {
    long x = w ^ 0x0A0A0A0A0A0A0A0AL;
    return (x - 0x0101010101010101L) & ~x & 0x8080808080808080L;
  }

  private void fill() throws IOException {
    if (pos > 0) {
      System.arraycopy(buf, pos, buf, 0, lim - pos);
      lim -= pos;
      pos = 0;
    }
    if (lim == buf.length) {
      buf = Arrays.copyOf(buf, buf.length * 2);
    }
    int n = in.read(buf, lim, buf.length - lim);
    if (n < 0) {
      eof = true;
    } else {
      lim += n;
    }
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
