package io.streamrecon.pipeline.io;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Splits a byte stream into lines at {@code \n} (a trailing {@code \r} is dropped), reading in 64
 * KiB chunks and holding at most {@code maxLineBytes} of a line: longer lines are cut there and the
 * rest skipped, so one huge line cannot exhaust memory; {@link #lastLineCut()} tells a cut line
 * from a short one (a cut line keeps a {@code \r} it ends on: that is not its terminator). Empty
 * lines are returned (as empty arrays): a caller counts or skips them. UTF-8 is never decoded here.
 * Closing the reader closes the stream.
 */
public final class LineReader implements AutoCloseable {
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private final InputStream in;
  private final int maxLineBytes;
  private final byte[] buffer = new byte[1 << 16];
  private final ByteArrayOutputStream line = new ByteArrayOutputStream(256);
  private int pos;
  private int limit;
  private boolean eof;

  /** Bytes of the current line before its {@code \n}, kept or not. */
  private long lineLength;

  /** The last of those bytes. */
  private byte lastByte;

  private boolean cut;

  /** Reads {@code in}, keeping at most {@code maxLineBytes} (0 or more) of each line. */
  public LineReader(InputStream in, int maxLineBytes) {
    if (maxLineBytes < 0) {
      throw new IllegalArgumentException("maxLineBytes must not be negative, got " + maxLineBytes);
    }
    this.in = in;
    this.maxLineBytes = maxLineBytes;
  }

  /** The next line without its terminator, or {@code null} at the end of the stream. */
  public byte[] next() throws IOException {
    line.reset();
    lineLength = 0;
    boolean any = false;
    while (true) {
      if (pos == limit) {
        if (eof || !fill()) {
          return any ? finish() : null;
        }
      }
      any = true;
      int start = pos;
      pos = indexOfNewline(buffer, pos, limit);
      if (pos < limit && line.size() == 0 && lineLength == 0) {
        // The whole line is in the buffer (the common case): one copy, no staging.
        int content = pos - start;
        if (content > 0 && buffer[pos - 1] == '\r') {
          content--;
        }
        cut = content > maxLineBytes;
        int end = start + Math.min(content, maxLineBytes);
        pos++; // the '\n'
        return Arrays.copyOfRange(buffer, start, end);
      }
      append(start, pos);
      if (pos < limit) {
        pos++; // the '\n'
        return finish();
      }
    }
  }

  /**
   * The index of the first {@code \n} in {@code b[from..to)}, or {@code to}. Eight bytes per step
   * while a word holds none (event lines are kilobytes long).
   */
  static int indexOfNewline(byte[] b, int from, int to) {
    int i = from;
    while (i + 8 <= to) {
      long x = (long) LONGS.get(b, i) ^ 0x0A0A0A0A0A0A0A0AL;
      if (((x - 0x0101010101010101L) & ~x & 0x8080808080808080L) != 0) {
        break;
      }
      i += 8;
    }
    while (i < to && b[i] != '\n') {
      i++;
    }
    return i;
  }

  private boolean fill() throws IOException {
    int n = in.read(buffer);
    if (n <= 0) {
      eof = true;
      return false;
    }
    pos = 0;
    limit = n;
    return true;
  }

  private void append(int from, int to) {
    if (to > from) {
      lineLength += to - from;
      lastByte = buffer[to - 1];
    }
    int room = maxLineBytes - line.size();
    if (room > 0) {
      line.write(buffer, from, Math.min(room, to - from));
    }
  }

  private byte[] finish() {
    long content = lineLength > 0 && lastByte == '\r' ? lineLength - 1 : lineLength;
    cut = content > maxLineBytes;
    byte[] bytes = line.toByteArray(); // min(lineLength, maxLineBytes) bytes
    return bytes.length > content ? Arrays.copyOf(bytes, (int) content) : bytes;
  }

  /**
   * Whether the line {@link #next()} returned last was longer than {@code maxLineBytes} (its
   * terminating {@code \r\n} or {@code \n} not counted) and so was cut.
   */
  public boolean lastLineCut() {
    return cut;
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
