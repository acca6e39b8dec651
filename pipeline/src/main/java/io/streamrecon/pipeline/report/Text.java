package io.streamrecon.pipeline.report;

import io.streamrecon.pipeline.output.TerminalText;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/** Escaping, truncation and path collapsing for the report; pure functions. */
final class Text {
  /** Longest value text shown for a difference side or a dead letter's raw input. */
  static final int VALUE_CODE_POINTS = 80;

  private Text() {}

  /** Escapes text for HTML element content and double- or single-quoted attribute values. */
  static String html(String s) {
    if (s == null) {
      return "";
    }
    StringBuilder b = new StringBuilder(s.length() + 16);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '&' -> b.append("&amp;");
        case '<' -> b.append("&lt;");
        case '>' -> b.append("&gt;");
        case '"' -> b.append("&quot;");
        case '\'' -> b.append("&#39;");
        default -> {
          // Control characters other than tab/newline would make the document invalid: show them.
          if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
            b.append("\\u").append(String.format(Locale.ROOT, "%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.toString();
  }

  /**
   * At most {@code max} code points of {@code s}, with "…" and the number of code points left out
   * when cut, so a huge value never lands in the page whole; never splits a surrogate pair.
   */
  static String truncate(String s, int max) {
    if (s == null) {
      return null;
    }
    int length = s.codePointCount(0, s.length());
    if (length <= max) {
      return s;
    }
    int end = s.offsetByCodePoints(0, max);
    return s.substring(0, end) + "… (" + (length - max) + " more characters)";
  }

  /**
   * A JSON Pointer with every array index replaced by {@code *}: {@code /items/3/qty} becomes
   * {@code /items/* /qty} (without the space). A segment is taken as an index when it is a
   * canonical non-negative integer, the form RFC 6901 gives array indexes; an object member named
   * like a number is collapsed too, which groups such maps the same way.
   */
  static String collapseIndexes(String pointer) {
    if (pointer == null || pointer.isEmpty()) {
      return pointer == null ? "" : pointer;
    }
    StringBuilder b = new StringBuilder(pointer.length());
    int start = 0;
    while (start < pointer.length()) {
      int slash = pointer.indexOf('/', start + 1);
      int end = slash < 0 ? pointer.length() : slash;
      String segment = pointer.substring(start, end); // includes its leading '/'
      if (segment.length() > 1 && isIndex(segment, 1)) {
        b.append("/*");
      } else {
        b.append(segment);
      }
      start = end;
    }
    return b.toString();
  }

  private static boolean isIndex(String segment, int from) {
    if (segment.length() - from > 1 && segment.charAt(from) == '0') {
      return false;
    }
    for (int i = from; i < segment.length(); i++) {
      char c = segment.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }

  /**
   * A word that the shell passes through unchanged, written in printable characters only, so that
   * the text copied from the page and pasted into bash gives back {@code s} exactly: as it is when
   * plainly safe, else single-quoted; a word with {@linkplain TerminalText#isUnsafe characters a
   * terminal acts on} (an escape, a newline, a bidirectional override) is ANSI-C quoted ({@code
   * $'...'}, read by bash, zsh and ksh) with each such character written as its UTF-8 bytes in
   * {@code \xHH} escapes, which mean the same bytes under any locale.
   */
  static String shellWord(String s) {
    if (!s.isEmpty() && s.matches("[A-Za-z0-9._:/@%+=,-]+")) {
      return s;
    }
    if (s.chars().noneMatch(TerminalText::isUnsafe)) {
      return "'" + s.replace("'", "'\"'\"'") + "'";
    }
    StringBuilder b = new StringBuilder(s.length() + 16).append("$'");
    s.codePoints()
        .forEach(
            c -> {
              if (c == '\\' || c == '\'') {
                b.append('\\').append((char) c);
              } else if (TerminalText.isUnsafe(c)) {
                for (byte u : new String(Character.toChars(c)).getBytes(StandardCharsets.UTF_8)) {
                  b.append(String.format(Locale.ROOT, "\\x%02x", u & 0xff));
                }
              } else {
                b.appendCodePoint(c);
              }
            });
    return b.append('\'').toString();
  }

  /** A duration in the largest sensible unit: 850 ms, 12.3 s, 4.5 min, 2.1 h, 3.0 d. */
  static String duration(long millis) {
    double abs = Math.abs((double) millis);
    if (abs < 1000) {
      return millis + " ms";
    } else if (abs < 60_000) {
      return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
    } else if (abs < 3_600_000) {
      return String.format(Locale.ROOT, "%.1f min", millis / 60_000.0);
    } else if (abs < 86_400_000) {
      return String.format(Locale.ROOT, "%.1f h", millis / 3_600_000.0);
    }
    return String.format(Locale.ROOT, "%.1f d", millis / 86_400_000.0);
  }

  /** A count with thousands separators. */
  static String count(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }
}
