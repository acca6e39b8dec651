package io.streamrecon.bench;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/** Splits a stream into lines as byte arrays (UTF-8 is never decoded here), without the newline. */
final class LineReader implements AutoCloseable {
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
      for (int i = pos; i < lim; i++) {
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
