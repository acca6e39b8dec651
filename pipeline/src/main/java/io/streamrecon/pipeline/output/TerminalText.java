package io.streamrecon.pipeline.output;

import java.io.FilterWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Text from the data (values, natural ids, file names, error texts of dead letters) made safe to
 * print on a terminal or to paste: every character that a terminal or an editor acts on instead of
 * showing is written as a JSON escape (ESC as backslash-u001b, a newline as backslash-n), so an
 * escape sequence in an input cannot move the cursor, recolour or retitle the terminal, and a
 * bidirectional override cannot make a value read differently from what it is. Inside a JSON string
 * the escape means the same character, so JSON output stays valid and equal.
 */
public final class TerminalText {
  private TerminalText() {}

  /**
   * Whether {@code c} must not reach a terminal as it is: a control character (C0, DEL, C1), a
   * bidirectional control (the embeddings and overrides U+202A–U+202E, the isolates U+2066–U+2069,
   * the marks U+200E, U+200F, U+061C) or a line or paragraph separator (U+2028, U+2029).
   */
  public static boolean isUnsafe(int c) {
    return Character.getType(c) == Character.CONTROL
        || (c >= 0x202A && c <= 0x202E)
        || (c >= 0x2066 && c <= 0x2069)
        || c == 0x200E
        || c == 0x200F
        || c == 0x061C
        || c == 0x2028
        || c == 0x2029;
  }

  /** {@code s} with every {@linkplain #isUnsafe unsafe} character escaped; null stays null. */
  public static String escape(String s) {
    if (s == null) {
      return null;
    }
    int first = firstUnsafe(s, 0, s.length(), false);
    if (first < 0) {
      return s;
    }
    StringBuilder b = new StringBuilder(s.length() + 16).append(s, 0, first);
    appendEscaped(b, s, first, s.length(), false);
    return b.toString();
  }

  /**
   * A UTF-8 writer to {@code out} that escapes every unsafe character except the newline, which
   * ends the lines the command prints: the net under every line of {@code show} and {@code
   * explain}, whose values are escaped (newlines included) where a line is built.
   */
  public static PrintWriter writer(OutputStream out) {
    return new PrintWriter(new Escaping(new OutputStreamWriter(out, StandardCharsets.UTF_8)));
  }

  private static int firstUnsafe(CharSequence s, int from, int to, boolean keepNewlines) {
    for (int i = from; i < to; i++) {
      char c = s.charAt(i);
      if (isUnsafe(c) && !(keepNewlines && c == '\n')) {
        return i;
      }
    }
    return -1;
  }

  private static void appendEscaped(
      StringBuilder b, CharSequence s, int from, int to, boolean keepNewlines) {
    for (int i = from; i < to; i++) {
      char c = s.charAt(i);
      if (!isUnsafe(c) || (keepNewlines && c == '\n')) {
        b.append(c);
        continue;
      }
      switch (c) {
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        case '\b' -> b.append("\\b");
        case '\f' -> b.append("\\f");
        default -> b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
      }
    }
  }

  /** Escapes what passes through, keeping newlines. */
  private static final class Escaping extends FilterWriter {
    Escaping(Writer out) {
      super(out);
    }

    @Override
    public void write(int c) throws IOException {
      write(String.valueOf((char) c), 0, 1);
    }

    @Override
    public void write(char[] cbuf, int off, int len) throws IOException {
      write(new String(cbuf, off, len), 0, len);
    }

    @Override
    public void write(String str, int off, int len) throws IOException {
      if (firstUnsafe(str, off, off + len, true) < 0) {
        out.write(str, off, len);
        return;
      }
      StringBuilder b = new StringBuilder(len + 16);
      appendEscaped(b, str, off, off + len, true);
      out.write(b.toString());
    }
  }
}
