package io.streamrecon.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Deque;
import java.util.HexFormat;
import java.util.Iterator;

/**
 * The canonical writer and char-at-a-time UTF-8 digest feed in their first, plainest form, kept
 * verbatim as the reference the block digest of {@link CanonicalJson} must agree with byte for
 * byte: stored hashes depend on it.
 */
final class LegacyCanonicalJson {
  private static final Comparator<String> CODE_POINT_ORDER = LegacyCanonicalJson::compareCodePoints;
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private LegacyCanonicalJson() {}

  /** The canonical JSON text of a value. */
  static String canonicalForm(JsonNode node) {
    StringBuilder sb = new StringBuilder();
    write(node, sb);
    return sb.toString();
  }

  /**
   * SHA-256, lower-case hex, of the UTF-8 bytes of the canonical form, streamed into the digest.
   */
  static String sha256(JsonNode node) {
    MessageDigest digest;
    try {
      digest = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
    Utf8DigestSink sink = new Utf8DigestSink(digest);
    write(node, sink);
    sink.flush();
    return HexFormat.of().formatHex(digest.digest());
  }

  /** Orders strings by Unicode code point, unpaired surrogates counting as their own value. */
  static int compareCodePoints(String a, String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      int ca = a.codePointAt(i);
      int cb = b.codePointAt(j);
      if (ca != cb) {
        return Integer.compare(ca, cb);
      }
      i += Character.charCount(ca);
      j += Character.charCount(cb);
    }
    return Boolean.compare(i < a.length(), j < b.length());
  }

  /** The canonical text of a number node; see the class comment. */
  static String canonicalNumber(JsonNode number) {
    return canonicalNumber(decimalValue(number));
  }

  /** The exact value of a number node; floats and doubles by their shortest decimal text. */
  static BigDecimal decimalValue(JsonNode number) {
    BigDecimal value;
    if (number.isBigDecimal()) {
      value = number.decimalValue();
    } else if (number.isBigInteger()) {
      value = new BigDecimal(number.bigIntegerValue());
    } else if (number.isIntegralNumber()) {
      value = BigDecimal.valueOf(number.longValue());
    } else if (number.isFloat() || number.isDouble()) {
      double d = number.doubleValue();
      if (Double.isNaN(d) || Double.isInfinite(d)) {
        throw new IllegalArgumentException("JSON has no number for " + d);
      }
      // Float.toString for floats: widening to double would invent digits.
      value =
          new BigDecimal(
              number.isFloat() ? Float.toString(number.floatValue()) : Double.toString(d));
    } else {
      throw new IllegalArgumentException("not a number node: " + number.getNodeType());
    }
    return value;
  }

  /** The canonical text of a number; see the class comment. */
  static String canonicalNumber(BigDecimal value) {
    if (value.signum() == 0) {
      return "0";
    }
    // Work on the digit string with a long exponent: stripTrailingZeros() and toPlainString()
    // would overflow the int scale or allocate the zeros of 1e999999999.
    String all = value.unscaledValue().abs().toString();
    int n = all.length();
    while (all.charAt(n - 1) == '0') {
      n--;
    }
    String digits = all.substring(0, n);
    long exponent = -(long) value.scale() + (all.length() - n); // value = ±digits × 10^exponent
    long leading = exponent + n - 1; // value = ±d.ddd × 10^leading
    StringBuilder sb = new StringBuilder(n + 24);
    if (value.signum() < 0) {
      sb.append('-');
    }
    if (leading >= -6 && leading <= 20) {
      if (exponent >= 0) {
        sb.append(digits).append("0".repeat((int) exponent));
      } else if (leading >= 0) {
        int point = (int) leading + 1;
        sb.append(digits, 0, point).append('.').append(digits, point, n);
      } else {
        sb.append("0.").append("0".repeat((int) (-leading - 1))).append(digits);
      }
    } else {
      sb.append(digits.charAt(0));
      if (n > 1) {
        sb.append('.').append(digits, 1, n);
      }
      sb.append('e').append(leading > 0 ? '+' : '-').append(Math.abs(leading));
    }
    return sb.toString();
  }

  /** Writes a string in the one canonical escaping. */
  static void writeString(String s, Appendable out) {
    try {
      out.append('"');
      int run = 0;
      int len = s.length();
      for (int i = 0; i < len; i++) {
        char c = s.charAt(i);
        String escape = null;
        if (c == '"') {
          escape = "\\\"";
        } else if (c == '\\') {
          escape = "\\\\";
        } else if (c < 0x20) {
          escape =
              switch (c) {
                case '\b' -> "\\b";
                case '\f' -> "\\f";
                case '\n' -> "\\n";
                case '\r' -> "\\r";
                case '\t' -> "\\t";
                default -> unicodeEscape(c);
              };
        } else if (Character.isHighSurrogate(c)) {
          if (i + 1 < len && Character.isLowSurrogate(s.charAt(i + 1))) {
            i++; // a valid pair is written as is
          } else {
            escape = unicodeEscape(c);
          }
        } else if (Character.isLowSurrogate(c)) {
          escape = unicodeEscape(c);
        }
        if (escape != null) {
          out.append(s, run, i).append(escape);
          run = i + 1;
        }
      }
      out.append(s, run, len).append('"');
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String unicodeEscape(char c) {
    return new String(
        new char[] {
          '\\', 'u', HEX[c >> 12], HEX[(c >> 8) & 0xF], HEX[(c >> 4) & 0xF], HEX[c & 0xF]
        });
  }

  /** One open container on the writer's stack. */
  private static final class Frame {
    final JsonNode container;
    final String[] keys; // sorted keys of an object, null for an array
    int next;

    Frame(JsonNode container) {
      this.container = container;
      if (container.isObject()) {
        keys = new String[container.size()];
        Iterator<String> names = container.fieldNames();
        for (int i = 0; names.hasNext(); i++) {
          keys[i] = names.next();
        }
        Arrays.sort(keys, CODE_POINT_ORDER);
      } else {
        keys = null;
      }
    }

    boolean hasNext() {
      return next < container.size();
    }
  }

  static void write(JsonNode root, Appendable out) {
    try {
      Deque<Frame> stack = new ArrayDeque<>();
      if (!open(root, out, stack)) {
        return;
      }
      while (!stack.isEmpty()) {
        Frame top = stack.peek();
        if (!top.hasNext()) {
          out.append(top.keys == null ? ']' : '}');
          stack.pop();
          continue;
        }
        if (top.next > 0) {
          out.append(',');
        }
        JsonNode child;
        if (top.keys == null) {
          child = top.container.get(top.next);
        } else {
          String key = top.keys[top.next];
          writeString(key, out);
          out.append(':');
          child = top.container.get(key);
        }
        top.next++;
        open(child, out, stack);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Writes a scalar, or the opening of a container and pushes it; true if something was pushed. */
  private static boolean open(JsonNode node, Appendable out, Deque<Frame> stack)
      throws IOException {
    JsonNodeType type = node.getNodeType();
    switch (type) {
      case OBJECT, ARRAY -> {
        out.append(type == JsonNodeType.OBJECT ? '{' : '[');
        stack.push(new Frame(node));
        return true;
      }
      case STRING -> writeString(node.textValue(), out);
      case NUMBER -> out.append(canonicalNumber(node));
      case BOOLEAN -> out.append(node.booleanValue() ? "true" : "false");
      case NULL -> out.append("null");
      default ->
          throw new IllegalArgumentException(
              "no canonical form for a " + type + " node; only parsed JSON values have one");
    }
    return false;
  }

  /**
   * Encodes appended chars as UTF-8 straight into a digest through a small buffer, so hashing never
   * holds the whole canonical text. The canonical writer never emits unpaired surrogates.
   */
  private static final class Utf8DigestSink implements Appendable {
    private final MessageDigest digest;
    private final byte[] buffer = new byte[8192];
    private int size;
    private char pendingHigh;

    Utf8DigestSink(MessageDigest digest) {
      this.digest = digest;
    }

    @Override
    public Appendable append(CharSequence csq) {
      return append(csq, 0, csq.length());
    }

    @Override
    public Appendable append(CharSequence csq, int start, int end) {
      for (int i = start; i < end; i++) {
        append(csq.charAt(i));
      }
      return this;
    }

    @Override
    public Appendable append(char c) {
      if (size > buffer.length - 4) {
        drain();
      }
      if (pendingHigh != 0) {
        if (!Character.isLowSurrogate(c)) {
          throw new IllegalStateException("unpaired surrogate in canonical output");
        }
        int cp = Character.toCodePoint(pendingHigh, c);
        pendingHigh = 0;
        buffer[size++] = (byte) (0xF0 | (cp >> 18));
        buffer[size++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
        buffer[size++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
        buffer[size++] = (byte) (0x80 | (cp & 0x3F));
      } else if (c < 0x80) {
        buffer[size++] = (byte) c;
      } else if (c < 0x800) {
        buffer[size++] = (byte) (0xC0 | (c >> 6));
        buffer[size++] = (byte) (0x80 | (c & 0x3F));
      } else if (Character.isHighSurrogate(c)) {
        pendingHigh = c;
      } else if (Character.isLowSurrogate(c)) {
        throw new IllegalStateException("unpaired surrogate in canonical output");
      } else {
        buffer[size++] = (byte) (0xE0 | (c >> 12));
        buffer[size++] = (byte) (0x80 | ((c >> 6) & 0x3F));
        buffer[size++] = (byte) (0x80 | (c & 0x3F));
      }
      return this;
    }

    void flush() {
      if (pendingHigh != 0) {
        throw new IllegalStateException("unpaired surrogate in canonical output");
      }
      drain();
    }

    private void drain() {
      digest.update(buffer, 0, size);
      size = 0;
    }
  }
}
