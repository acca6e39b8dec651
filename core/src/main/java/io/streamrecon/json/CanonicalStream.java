package io.streamrecon.json;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.List;

/**
 * The canonical SHA-256 of a JSON object (exactly {@link CanonicalJson#sha256}'s) computed from
 * Jackson's token stream, without building a tree: the form is written as UTF-8 into one reusable
 * buffer, each object's members are sorted when it closes (a copy only where they were out of
 * order), and a string without escapes is copied as its raw input bytes, which for strict UTF-8 are
 * exactly its canonical form. On the way it captures the values of chosen top-level members (the
 * natural id and the event time) and leaves out others (the ignored fields).
 *
 * <p>It vouches only for what it fully understood: for anything else it returns null and the caller
 * takes the tree path, which accepts the input or words its error exactly as before. That covers
 * every parse error and limit, duplicate keys (found when an object's members are sorted), trailing
 * data, a root that is not an object and a captured member that holds an object or an array. Not
 * thread-safe: one per thread.
 */
final class CanonicalStream {
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private static final long ONES = 0x0101010101010101L;
  private static final long HIGH_BITS = 0x8080808080808080L;

  private final MessageDigest digest = CanonicalJson.newDigest();
  private final CanonicalJson.Utf8Writer out = new CanonicalJson.Utf8Writer(null, 8192);
  private byte[] spare = new byte[8192];

  // Members of the open objects, innermost last: name, where "name":value starts and ends in out.
  private String[] names = new String[64];
  private int[] starts = new int[64];
  private int[] ends = new int[64];
  private boolean[] dropped = new boolean[64];
  private int members;
  private int[] order = new int[64];

  // Open containers, innermost last: first member index (-1 for an array), start in out, elements.
  private int[] frameFirst = new int[32];
  private int[] frameStart = new int[32];
  private int[] frameCount = new int[32];
  private int depth;

  /** Strings copied as raw input bytes and documents hashed: tests check the paths are taken. */
  long rawStrings;

  long hashed;

  /**
   * The canonical SHA-256 of {@code utf8}, which must have passed {@link
   * JsonSupport#byteParserReadsAsDecoded}, or null if the tree path must decide.
   *
   * @param captureNames top-level member names whose values to capture into {@code captured} (the
   *     same index; null where the member is absent)
   * @param dropNames top-level member names left out of the canonical form
   */
  String sha256(
      byte[] utf8, List<String> captureNames, JsonNode[] captured, List<String> dropNames) {
    Arrays.fill(captured, null);
    out.size = 0;
    members = 0;
    depth = 0;
    try (JsonParser parser = JsonSupport.fastParser(utf8)) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      push(members);
      out.writeByte('{');
      String capturing = null;
      while (depth > 0) {
        JsonToken token = parser.nextToken();
        if (token == null) {
          return null;
        }
        switch (token) {
          case FIELD_NAME -> {
            String name = parser.currentName();
            if (members > frameFirst[depth - 1]) {
              out.writeByte(',');
            }
            addMember(name, out.size, depth == 1 && contains(dropNames, name));
            out.writeString(name);
            out.writeByte(':');
            capturing = depth == 1 && contains(captureNames, name) ? name : null;
          }
          case START_OBJECT, START_ARRAY -> {
            if (depth == 1 && capturing != null) {
              return null; // an id or time that is a container: the tree path words it
            }
            beforeValue();
            boolean object = token == JsonToken.START_OBJECT;
            push(object ? members : -1);
            out.writeByte(object ? '{' : '[');
          }
          case END_OBJECT -> {
            if (!closeObject()) {
              return null;
            }
            afterValue();
          }
          case END_ARRAY -> {
            out.writeByte(']');
            depth--;
            afterValue();
          }
          default -> {
            beforeValue();
            JsonNode value = scalar(parser, token, utf8, depth == 1 ? capturing : null);
            if (value != null) {
              for (int i = 0; i < captureNames.size(); i++) {
                if (captureNames.get(i).equals(capturing)) {
                  captured[i] = value;
                }
              }
            }
            afterValue();
          }
        }
      }
      if (parser.nextToken() != null) {
        return null;
      }
    } catch (IOException | RuntimeException e) {
      return null;
    }
    digest.reset();
    digest.update(out.buffer, 0, out.size);
    out.size = 0;
    hashed++;
    return CanonicalJson.hex(digest.digest());
  }

  /**
   * Writes a scalar token's canonical form; returns its tree node when it is to be captured. Nodes
   * are of the types {@link JsonSupport#parse}'s trees hold, so that the id and time rules read
   * them exactly as they read the tree.
   */
  private JsonNode scalar(JsonParser parser, JsonToken token, byte[] utf8, String capturing)
      throws IOException {
    JsonNodeFactory nodes = JsonSupport.nodeFactory();
    switch (token) {
      case VALUE_STRING -> {
        if (capturing != null) {
          String text = parser.getText();
          out.writeString(text);
          return nodes.textNode(text);
        }
        writeStringToken(parser, utf8);
        return null;
      }
      case VALUE_NUMBER_INT -> {
        JsonParser.NumberType type = parser.getNumberType();
        switch (type) {
          case INT, LONG -> {
            long value = parser.getLongValue();
            out.writeAscii(Long.toString(value));
            if (capturing == null) {
              return null;
            }
            return type == JsonParser.NumberType.INT
                ? nodes.numberNode((int) value)
                : nodes.numberNode(value);
          }
          default -> {
            JsonNode node = nodes.numberNode(parser.getBigIntegerValue());
            out.writeAscii(CanonicalJson.canonicalNumber(node));
            return capturing == null ? null : node;
          }
        }
      }
      case VALUE_NUMBER_FLOAT -> {
        JsonNode node = nodes.numberNode(parser.getDecimalValue());
        out.writeAscii(CanonicalJson.canonicalNumber(node));
        return capturing == null ? null : node;
      }
      case VALUE_TRUE, VALUE_FALSE -> {
        boolean value = token == JsonToken.VALUE_TRUE;
        out.writeAscii(value ? "true" : "false");
        return capturing == null ? null : nodes.booleanNode(value);
      }
      case VALUE_NULL -> {
        out.writeAscii("null");
        return capturing == null ? null : nodes.nullNode();
      }
      default -> throw new IllegalStateException("unexpected token " + token);
    }
  }

  /**
   * A string with no escape is copied as its input bytes, quotes included: strict UTF-8 without
   * backslash or control character is already the canonical form (only {@code "}, {@code \},
   * control characters and unpaired surrogates, which only an escape can produce, are escaped).
   * Jackson then skips the string instead of decoding it. Anything else is decoded and encoded.
   */
  @SuppressWarnings("deprecation") // getTokenLocation: Jackson 2.15 has no currentTokenLocation
  private void writeStringToken(JsonParser parser, byte[] utf8) throws IOException {
    long start = parser.getTokenLocation().getByteOffset();
    if (start >= 0 && start < utf8.length && utf8[(int) start] == '"') {
      int end = plainStringEnd(utf8, (int) start + 1);
      if (end >= 0) {
        out.writeRaw(utf8, (int) start, end + 1 - (int) start);
        rawStrings++;
        return;
      }
    }
    out.writeString(parser.getText());
  }

  /**
   * The index of the closing quote of a string whose content starts at {@code i}, or -1 if a
   * backslash or a control character comes first. Eight bytes per step: a word with a quote,
   * backslash or byte below 0x20 is then searched byte by byte.
   */
  static int plainStringEnd(byte[] b, int i) {
    int n = b.length;
    while (i + 16 <= n
        && (special((long) LONGS.get(b, i)) | special((long) LONGS.get(b, i + 8))) == 0) {
      i += 16;
    }
    while (i + 8 <= n && special((long) LONGS.get(b, i)) == 0) {
      i += 8;
    }
    for (; i < n; i++) {
      int c = b[i] & 0xFF;
      if (c == '"') {
        return i;
      }
      if (c == '\\' || c < 0x20) {
        return -1;
      }
    }
    return -1;
  }

  /** Non-zero if the word holds a quote, a backslash or a byte below 0x20 (exactly). */
  private static long special(long w) {
    long quote = w ^ 0x2222222222222222L;
    long backslash = w ^ 0x5C5C5C5C5C5C5C5CL;
    return (((quote - ONES) & ~quote)
            | ((backslash - ONES) & ~backslash)
            | ((w - 0x2020202020202020L) & ~w))
        & HIGH_BITS;
  }

  private void beforeValue() {
    int top = depth - 1;
    if (frameFirst[top] < 0) {
      if (frameCount[top] > 0) {
        out.writeByte(',');
      }
      frameCount[top]++;
    }
  }

  private void afterValue() {
    if (depth > 0 && frameFirst[depth - 1] >= 0) {
      ends[members - 1] = out.size;
    }
  }

  private void push(int firstMember) {
    if (depth == frameFirst.length) {
      frameFirst = Arrays.copyOf(frameFirst, depth * 2);
      frameStart = Arrays.copyOf(frameStart, depth * 2);
      frameCount = Arrays.copyOf(frameCount, depth * 2);
    }
    frameFirst[depth] = firstMember;
    frameStart[depth] = out.size;
    frameCount[depth] = 0;
    depth++;
  }

  private void addMember(String name, int start, boolean drop) {
    if (members == names.length) {
      names = Arrays.copyOf(names, members * 2);
      starts = Arrays.copyOf(starts, members * 2);
      ends = Arrays.copyOf(ends, members * 2);
      dropped = Arrays.copyOf(dropped, members * 2);
    }
    names[members] = name;
    starts[members] = start;
    dropped[members] = drop;
    members++;
  }

  /**
   * Closes the innermost object: its members are rewritten in code point order of their names
   * (without the dropped ones) unless they already are. False on a duplicate name.
   */
  private boolean closeObject() {
    int first = frameFirst[depth - 1];
    int count = members - first;
    boolean inOrder = true;
    for (int i = first; i < members; i++) {
      if (dropped[i]
          || (i > first && CanonicalJson.compareCodePoints(names[i - 1], names[i]) >= 0)) {
        inOrder = false;
        break;
      }
    }
    if (inOrder) {
      out.writeByte('}');
    } else {
      if (order.length < count) {
        order = new int[Math.max(count, order.length * 2)];
      }
      for (int k = 0; k < count; k++) {
        order[k] = first + k;
      }
      sortByName(count);
      for (int k = 1; k < count; k++) {
        if (names[order[k - 1]].equals(names[order[k]])) {
          return false;
        }
      }
      int objectStart = frameStart[depth - 1];
      int length = out.size - objectStart;
      if (spare.length < length) {
        spare = new byte[Math.max(length, spare.length * 2)];
      }
      System.arraycopy(out.buffer, objectStart, spare, 0, length);
      out.size = objectStart;
      out.writeByte('{');
      boolean firstWritten = true;
      for (int k = 0; k < count; k++) {
        int m = order[k];
        if (dropped[m]) {
          continue;
        }
        if (!firstWritten) {
          out.writeByte(',');
        }
        firstWritten = false;
        out.writeRaw(spare, starts[m] - objectStart, ends[m] - starts[m]);
      }
      out.writeByte('}');
    }
    Arrays.fill(names, first, members, null);
    members = first;
    depth--;
    return true;
  }

  /** Insertion sort of order[0..count) by name: objects are small, and often nearly sorted. */
  private void sortByName(int count) {
    if (count > 64) {
      Integer[] boxed = new Integer[count];
      for (int k = 0; k < count; k++) {
        boxed[k] = order[k];
      }
      Arrays.sort(boxed, (a, b) -> CanonicalJson.compareCodePoints(names[a], names[b]));
      for (int k = 0; k < count; k++) {
        order[k] = boxed[k];
      }
      return;
    }
    for (int k = 1; k < count; k++) {
      int m = order[k];
      String name = names[m];
      int j = k - 1;
      while (j >= 0 && CanonicalJson.compareCodePoints(names[order[j]], name) > 0) {
        order[j + 1] = order[j];
        j--;
      }
      order[j + 1] = m;
    }
  }

  private static boolean contains(List<String> names, String name) {
    for (int i = 0; i < names.size(); i++) {
      if (names.get(i).equals(name)) {
        return true;
      }
    }
    return false;
  }
}
