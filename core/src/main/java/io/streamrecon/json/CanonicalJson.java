package io.streamrecon.json;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeType;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The canonical form of a JSON value (docs/design.md#canonical-hash) and its SHA-256.
 *
 * <p>The form is fixed so that two values equal by meaning have byte-equal forms:
 *
 * <ul>
 *   <li>object keys sorted by Unicode code point (not by UTF-16 unit, which orders supplementary
 *       characters before U+E000..U+FFFF), no whitespace anywhere;
 *   <li>numbers by value: {@code 1}, {@code 1.0}, {@code 1e0} and {@code 10E-1} are all written
 *       {@code 1}, {@code -0} is {@code 0}. The text holds the fewest digits of the value; when the
 *       decimal exponent of its first digit is from -6 to 20 it is written plainly ({@code 1000},
 *       {@code 0.000001}, {@code 12.5}), otherwise in scientific notation with one digit before the
 *       point, a lower-case {@code e} and a signed exponent ({@code 1e+21}, {@code 1.5e-7}, {@code
 *       1e+999999999}), the same rule as JavaScript's number to string;
 *   <li>strings escape only {@code "} and {@code \} (as {@code \"} and {@code \\}), control
 *       characters below U+0020 ({@code \b \f \n \r \t}, others as {@code \}{@code u00xx}) and
 *       unpaired surrogates (as lower-case {@code \}{@code udxxx}, so that distinct invalid strings
 *       stay distinct); everything else, including {@code /} and non-ASCII, is written as is;
 *   <li>array order is kept.
 * </ul>
 *
 * <p>The writer keeps its own stack, so nesting depth costs heap, not Java stack.
 */
public final class CanonicalJson {
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private CanonicalJson() {}

  /** The canonical JSON text of a value. */
  public static String canonicalForm(JsonNode node) {
    Utf8Writer writer = new Utf8Writer(null, 256);
    writer.write(node);
    // Lossless: the writer escapes unpaired surrogates, so its bytes are always valid UTF-8.
    return new String(writer.buffer, 0, writer.size, StandardCharsets.UTF_8);
  }

  /**
   * SHA-256, lower-case hex, of the UTF-8 bytes of the canonical form, fed to the digest in blocks.
   * Thread-safe; a caller that hashes many values on one thread can reuse a {@link Hasher}.
   */
  public static String sha256(JsonNode node) {
    return new Hasher().sha256(node);
  }

  /**
   * A deep copy of {@code node} without the values the pointers address. A pointer whose parent is
   * an object removes that member; one whose parent is an array removes that element (later
   * elements move up, as JSON Patch "remove" does); one that addresses nothing is ignored. All
   * pointers are resolved against the unchanged document first, so their order does not matter.
   */
  public static JsonNode withoutFields(JsonNode node, List<JsonPointer> pointers) {
    JsonNode copy = node.deepCopy();
    removeInPlace(copy, pointers);
    return copy;
  }

  /** {@link #withoutFields} in place, for trees the caller owns. */
  static void removeInPlace(JsonNode root, List<JsonPointer> pointers) {
    if (pointers.isEmpty()) {
      return;
    }
    Map<ObjectNode, List<String>> members = new IdentityHashMap<>();
    Map<ArrayNode, TreeSet<Integer>> elements = new IdentityHashMap<>();
    for (JsonPointer pointer : pointers) {
      if (pointer.matches()) {
        throw new IllegalArgumentException("cannot remove the whole document");
      }
      JsonNode parent = root.at(pointer.head());
      JsonPointer last = pointer.last();
      if (parent instanceof ObjectNode object) {
        if (object.has(last.getMatchingProperty())) {
          members.computeIfAbsent(object, k -> new ArrayList<>()).add(last.getMatchingProperty());
        }
      } else if (parent instanceof ArrayNode array) {
        int index = last.getMatchingIndex();
        if (index >= 0 && index < array.size()) {
          elements.computeIfAbsent(array, k -> new TreeSet<>()).add(index);
        }
      }
    }
    members.forEach(ObjectNode::remove);
    elements.forEach(
        (array, indexes) -> {
          for (Iterator<Integer> it = indexes.descendingIterator(); it.hasNext(); ) {
            array.remove(it.next());
          }
        });
  }

  /** Orders strings by Unicode code point, unpaired surrogates counting as their own value. */
  public static int compareCodePoints(String a, String b) {
    int min = Math.min(a.length(), b.length());
    int k = 0;
    while (k < min && a.charAt(k) == b.charAt(k)) {
      k++;
    }
    if (k == min) {
      // A proper prefix orders first, also when it ends in the high half of the other's pair.
      return Integer.compare(a.length(), b.length());
    }
    char ca = a.charAt(k);
    char cb = b.charAt(k);
    if (!Character.isSurrogate(ca) && !Character.isSurrogate(cb)) {
      // UTF-16 order is code point order unless a surrogate is involved.
      return Integer.compare(ca, cb);
    }
    return compareCodePointsFrom(a, b);
  }

  private static int compareCodePointsFrom(String a, String b) {
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

  /**
   * Hashes canonical forms, reusing one digest and one buffer across values: the form is encoded to
   * UTF-8 in a byte buffer and the digest updated a block at a time. Not thread-safe; give each
   * thread (each DoFn instance) its own.
   */
  static final class Hasher {
    private final MessageDigest digest = newDigest();
    private final Utf8Writer writer = new Utf8Writer(digest, BLOCK);

    /** SHA-256, lower-case hex, of the canonical form's UTF-8 bytes. */
    String sha256(JsonNode node) {
      digest.reset();
      writer.size = 0;
      try {
        writer.write(node);
        writer.drain();
      } finally {
        writer.size = 0;
      }
      return hex(digest.digest());
    }
  }

  /** Lower-case hex of a digest. */
  static String hex(byte[] hash) {
    byte[] hex = new byte[2 * hash.length];
    for (int i = 0; i < hash.length; i++) {
      hex[2 * i] = HEX_BYTES[(hash[i] >> 4) & 0xF];
      hex[2 * i + 1] = HEX_BYTES[hash[i] & 0xF];
    }
    return new String(hex, StandardCharsets.ISO_8859_1);
  }

  /** Digest block size: large enough that the digest's per-call cost vanishes, small for L1. */
  private static final int BLOCK = 8192;

  private static final MessageDigest SHA256_PROTOTYPE;

  static {
    try {
      SHA256_PROTOTYPE = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  }

  static MessageDigest newDigest() {
    try {
      // The prototype is never updated, so cloning it from any thread is safe, and cheaper than a
      // provider lookup per value.
      return (MessageDigest) SHA256_PROTOTYPE.clone();
    } catch (CloneNotSupportedException e) {
      try {
        return MessageDigest.getInstance("SHA-256");
      } catch (NoSuchAlgorithmException impossible) {
        throw new IllegalStateException("SHA-256 is required by every Java platform", impossible);
      }
    }
  }

  static final byte[] HEX_BYTES = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

  /** One open container on the writer's stack. */
  private static final class Frame {
    final ArrayNode array; // null for an object
    final Map.Entry<String, JsonNode>[] members; // sorted members of an object, null for an array
    final int size;
    int next;

    @SuppressWarnings("unchecked")
    Frame(JsonNode container) {
      if (container instanceof ArrayNode a) {
        array = a;
        members = null;
        size = a.size();
      } else {
        array = null;
        size = container.size();
        members = new Map.Entry[size];
        Iterator<Map.Entry<String, JsonNode>> fields = container.fields();
        for (int i = 0; fields.hasNext(); i++) {
          members[i] = fields.next();
        }
        if (size > 1) {
          Arrays.sort(members, MEMBER_ORDER);
        }
      }
    }
  }

  private static final Comparator<Map.Entry<String, JsonNode>> MEMBER_ORDER =
      (a, b) -> compareCodePoints(a.getKey(), b.getKey());

  /**
   * Writes the canonical form as UTF-8 into a byte buffer; when the buffer fills it is fed to the
   * digest (or, without a digest, grown). Strings are encoded in bulk: a plain ASCII character
   * costs one compare and one store. Keeps its own stack, so nesting depth costs heap, not Java
   * stack. Produces exactly the bytes of {@link CanonicalJson#writeString(String, Appendable)}'s
   * escaping encoded as UTF-8 (a test compares it with the previous char-at-a-time encoder on
   * random documents).
   */
  static final class Utf8Writer {
    /** Most bytes one char of a string can take: an escape such as {@code \}{@code u001f}. */
    private static final int MAX_BYTES_PER_CHAR = 6;

    /** Chars of a string encoded per step. */
    private static final int CHUNK = 1024;

    private final MessageDigest digest;
    private final char[] chars = new char[CHUNK];
    byte[] buffer;
    int size;

    Utf8Writer(MessageDigest digest, int capacity) {
      this.digest = digest;
      this.buffer = new byte[capacity];
    }

    void write(JsonNode root) {
      Deque<Frame> stack = new ArrayDeque<>();
      if (!open(root, stack)) {
        return;
      }
      while (!stack.isEmpty()) {
        Frame top = stack.peek();
        if (top.next == top.size) {
          writeByte(top.array != null ? ']' : '}');
          stack.pop();
          continue;
        }
        if (top.next > 0) {
          writeByte(',');
        }
        JsonNode child;
        if (top.array != null) {
          child = top.array.get(top.next);
        } else {
          Map.Entry<String, JsonNode> member = top.members[top.next];
          writeString(member.getKey());
          writeByte(':');
          child = member.getValue();
        }
        top.next++;
        open(child, stack);
      }
    }

    /** Writes a scalar, or the opening of a container and pushes it; true if pushed. */
    private boolean open(JsonNode node, Deque<Frame> stack) {
      JsonNodeType type = node.getNodeType();
      switch (type) {
        case OBJECT, ARRAY -> {
          writeByte(type == JsonNodeType.OBJECT ? '{' : '[');
          stack.push(new Frame(node));
          return true;
        }
        case STRING -> writeString(node.textValue());
        case NUMBER -> {
          if (node.isInt() || node.isLong() || node.isShort()) {
            // What canonicalNumber gives for any long: plain digits, since |value| < 10^19.
            writeAscii(Long.toString(node.longValue()));
          } else {
            writeAscii(canonicalNumber(node));
          }
        }
        case BOOLEAN -> writeAscii(node.booleanValue() ? "true" : "false");
        case NULL -> writeAscii("null");
        default ->
            throw new IllegalArgumentException(
                "no canonical form for a " + type + " node; only parsed JSON values have one");
      }
      return false;
    }

    void writeByte(char c) {
      if (size == buffer.length) {
        makeRoom(1);
      }
      buffer[size++] = (byte) c;
    }

    void writeAscii(String s) {
      int len = s.length();
      for (int i = 0; i < len; ) {
        if (size == buffer.length) {
          makeRoom(1);
        }
        int end = Math.min(len, i + buffer.length - size);
        byte[] b = buffer;
        int n = size;
        for (; i < end; i++) {
          b[n++] = (byte) s.charAt(i);
        }
        size = n;
      }
    }

    /**
     * The canonical escaping of {@link CanonicalJson#writeString(String, Appendable)}, encoded as
     * UTF-8.
     */
    void writeString(String s) {
      writeByte('"');
      int len = s.length();
      int i = 0;
      while (i < len) {
        if (buffer.length - size < 2 * MAX_BYTES_PER_CHAR) {
          makeRoom(Math.min(len - i, CHUNK) * MAX_BYTES_PER_CHAR);
        }
        // Chars i..end fit whatever their encoding; a surrogate pair may read one char past end,
        // and its 4 bytes stay within the 6 reserved for its first char. Copying a chunk into a
        // char array first (one bulk inflate) keeps String.charAt's checks out of the loop.
        int count = Math.min(len - i, Math.min(CHUNK, (buffer.length - size) / MAX_BYTES_PER_CHAR));
        char[] cs = chars;
        s.getChars(i, i + count, cs, 0);
        byte[] b = buffer;
        int n = size;
        // Most text is plain ASCII: test the chunk without branches (the sign bit of each term is
        // set for a control char, anything above U+007F, a quote or a backslash) and copy it.
        int special = 0;
        for (int k = 0; k < count; k++) {
          int c = cs[k];
          special |= (c - 0x20) | (0x7F - c) | ((c ^ '"') - 1) | ((c ^ '\\') - 1);
        }
        if (special >= 0) {
          for (int k = 0; k < count; k++) {
            b[n + k] = (byte) cs[k];
          }
          size = n + count;
          i += count;
          continue;
        }
        int j = 0;
        for (; j < count; j++) {
          char c = cs[j];
          if (c < 0x80) {
            if (c >= 0x20 && c != '"' && c != '\\') {
              b[n++] = (byte) c;
            } else {
              n = escape(c, b, n);
            }
          } else if (c < 0x800) {
            b[n++] = (byte) (0xC0 | (c >> 6));
            b[n++] = (byte) (0x80 | (c & 0x3F));
          } else if (!Character.isSurrogate(c)) {
            b[n++] = (byte) (0xE0 | (c >> 12));
            b[n++] = (byte) (0x80 | ((c >> 6) & 0x3F));
            b[n++] = (byte) (0x80 | (c & 0x3F));
          } else {
            char low = j + 1 < count ? cs[j + 1] : i + j + 1 < len ? s.charAt(i + j + 1) : 0;
            if (Character.isHighSurrogate(c) && Character.isLowSurrogate(low)) {
              int cp = Character.toCodePoint(c, low);
              b[n++] = (byte) (0xF0 | (cp >> 18));
              b[n++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
              b[n++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
              b[n++] = (byte) (0x80 | (cp & 0x3F));
              j++; // may step one past the chunk: that char is written
            } else {
              n = unicodeEscape(c, b, n); // an unpaired surrogate
            }
          }
        }
        size = n;
        i += j;
      }
      writeByte('"');
    }

    private static int escape(char c, byte[] b, int n) {
      char short_ =
          switch (c) {
            case '"' -> '"';
            case '\\' -> '\\';
            case '\b' -> 'b';
            case '\f' -> 'f';
            case '\n' -> 'n';
            case '\r' -> 'r';
            case '\t' -> 't';
            default -> 0;
          };
      if (short_ == 0) {
        return unicodeEscape(c, b, n);
      }
      b[n++] = '\\';
      b[n++] = (byte) short_;
      return n;
    }

    private static int unicodeEscape(char c, byte[] b, int n) {
      b[n++] = '\\';
      b[n++] = 'u';
      b[n++] = HEX_BYTES[c >> 12];
      b[n++] = HEX_BYTES[(c >> 8) & 0xF];
      b[n++] = HEX_BYTES[(c >> 4) & 0xF];
      b[n++] = HEX_BYTES[c & 0xF];
      return n;
    }

    /** Frees at least {@code wanted} bytes (or, with a digest, a whole block). */
    private void makeRoom(int wanted) {
      if (digest != null) {
        drain();
        if (buffer.length >= 2 * MAX_BYTES_PER_CHAR) {
          return;
        }
      }
      int capacity = Math.max(buffer.length * 2, size + Math.max(wanted, 2 * MAX_BYTES_PER_CHAR));
      buffer = Arrays.copyOf(buffer, capacity);
    }

    void drain() {
      digest.update(buffer, 0, size);
      size = 0;
    }

    /** Appends bytes as they are; for a writer without a digest (the buffer grows). */
    void writeRaw(byte[] bytes, int offset, int length) {
      if (buffer.length - size < length) {
        makeRoom(length);
      }
      System.arraycopy(bytes, offset, buffer, size, length);
      size += length;
    }
  }
}
