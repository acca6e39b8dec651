package io.streamrecon.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.io.JsonEOFException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ContainerNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.JsonNodeType;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one Jackson configuration every part of streamrecon parses JSON with, so that the parser that
 * accepted an event and the one that later diffs its stored payload agree.
 *
 * <p>Limits are set deliberately rather than left to Jackson's defaults:
 *
 * <ul>
 *   <li>nesting depth {@value #MAX_NESTING_DEPTH}: deeper input is a dead letter, and the canonical
 *       writer and diff never see anything deeper;
 *   <li>number length {@value #MAX_NUMBER_LENGTH} characters: keeps BigDecimal parsing cheap;
 *   <li>string length {@value #MAX_STRING_LENGTH} characters, the largest event size allowed by
 *       {@link ParseConfig}: the event size limit, checked on the bytes before parsing, is the
 *       effective one (Jackson 2.15 has no document length limit).
 * </ul>
 *
 * <p>Duplicate keys are rejected (they would make the canonical form depend on which value wins),
 * as is anything after the first value. Floats are read as {@link java.math.BigDecimal} and large
 * integers as {@link java.math.BigInteger}, exactly as written, so that numbers compare by value
 * and never through a lossy double.
 */
public final class JsonSupport {
  /** Deepest nesting of arrays and objects accepted. */
  public static final int MAX_NESTING_DEPTH = 1000;

  /** Longest number literal accepted, in characters. */
  public static final int MAX_NUMBER_LENGTH = 1000;

  /** Longest string value or key accepted, in characters. */
  public static final int MAX_STRING_LENGTH = ParseConfig.MAX_EVENT_BYTES_LIMIT;

  private static final JsonFactory FACTORY =
      factoryBuilder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

  /**
   * For {@link #parseBytes} only: the same limits without Jackson's duplicate detection (a set of
   * names per object), because {@link #readTree} sees a duplicate anyway when the tree's map
   * already holds the name; the fast path then hands the input to the strict path for the message.
   */
  private static final JsonFactory FAST_FACTORY = factoryBuilder().build();

  private static com.fasterxml.jackson.core.JsonFactoryBuilder factoryBuilder() {
    return (com.fasterxml.jackson.core.JsonFactoryBuilder)
        JsonFactory.builder()
            .streamReadConstraints(
                StreamReadConstraints.builder()
                    .maxNestingDepth(MAX_NESTING_DEPTH)
                    .maxNumberLength(MAX_NUMBER_LENGTH)
                    .maxStringLength(MAX_STRING_LENGTH)
                    .build())
            // Locations would otherwise quote the input in exception messages.
            .disable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION);
  }

  private static final ObjectMapper MAPPER =
      JsonMapper.builder(FACTORY)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          // Keep decimals as written: the default factory strips trailing zeros itself, which
          // throws on exponents near the int limit; CanonicalJson normalises numbers instead.
          .nodeFactory(JsonNodeFactory.withExactBigDecimals(true))
          .build();

  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private static final Pattern QUOTED = Pattern.compile("'([^']*)'");
  private static final Pattern LOCATION_NOTE =
      Pattern.compile("\\s*\\((?:for|at) [^()\\[]*\\[Source:[^\\]]*\\]\\)");
  private static final Pattern NUMBER_TEXT = Pattern.compile("(?i)(numeric value) \\([^)]*\\)");
  private static final Pattern CONSTRAINT_NOTE = Pattern.compile(", from `[^`]*`");

  private JsonSupport() {}

  /** The shared factory with the limits above. */
  public static JsonFactory factory() {
    return FACTORY;
  }

  /**
   * The shared, thread-safe mapper built on {@link #factory()}, for writing JSON and for reading
   * JSON that is not an event. Read events with {@link #parse}: the mapper's {@code readTree} turns
   * floats beyond double range into Infinity.
   */
  public static ObjectMapper mapper() {
    return MAPPER;
  }

  /**
   * Parses bytes that must be one JSON object in strict UTF-8 (a leading byte order mark is
   * skipped). Every failure is an {@link InvalidEventException} whose message names the problem and
   * its position but never quotes the input.
   */
  public static ObjectNode parseObject(byte[] utf8) throws InvalidEventException {
    JsonNode node = parse(utf8);
    if (!node.isObject()) {
      throw new InvalidEventException(
          "an event must be a JSON object, got " + describeType(node.getNodeType()));
    }
    return (ObjectNode) node;
  }

  /** Parses bytes that must be exactly one JSON value in strict UTF-8; see {@link #parseObject}. */
  public static JsonNode parse(byte[] utf8) throws InvalidEventException {
    JsonNode node = parseBytes(utf8);
    return node != null ? node : parseDecoded(utf8);
  }

  /**
   * The fast path: Jackson's byte parser straight on the input, without decoding it to a char array
   * first (a tenth of the bare logic's time). Taken only where it reads exactly what {@link
   * #parseDecoded} reads: strict UTF-8 (checked first, since Jackson's own decoding is lenient)
   * whose first four bytes hold no zero, so that Jackson's encoding detection picks UTF-8 (a UTF-8
   * byte order mark is skipped by both). Returns null for anything else and for every failure,
   * which the decoding path then parses again and words, so error messages do not change.
   */
  private static JsonNode parseBytes(byte[] utf8) {
    if (!byteParserReadsAsDecoded(utf8)) {
      return null;
    }
    try (JsonParser parser = FAST_FACTORY.createParser(utf8)) {
      JsonNode node = readTree(parser);
      return parser.nextToken() == null ? node : null;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /**
   * Whether Jackson's byte parser on these bytes reads exactly what {@link #parseDecoded} reads:
   * strict UTF-8 whose first four bytes hold no zero (so that Jackson's encoding detection picks
   * UTF-8).
   */
  static boolean byteParserReadsAsDecoded(byte[] utf8) {
    return utf8.length >= 4
        && utf8[0] != 0
        && utf8[1] != 0
        && utf8[2] != 0
        && utf8[3] != 0
        && isStrictUtf8(utf8);
  }

  /**
   * A byte parser with the limits of {@link #factory()} but without duplicate detection, for the
   * fast paths, which must detect duplicates themselves and fall back to {@link #parse} for the
   * message. Only for input that passed {@link #byteParserReadsAsDecoded}.
   */
  static JsonParser fastParser(byte[] utf8) throws IOException {
    return FAST_FACTORY.createParser(utf8);
  }

  /** The node factory of {@link #parse}'s trees (decimals kept exactly as written). */
  static JsonNodeFactory nodeFactory() {
    return MAPPER.getNodeFactory();
  }

  /** Whether the bytes are strict UTF-8 (as {@link #decodeUtf8} requires), without keeping text. */
  static boolean isStrictUtf8(byte[] utf8) {
    int i = 0;
    // 32, then 8 bytes per step while no byte has its high bit set, then byte by byte.
    while (i + 32 <= utf8.length
        && (((long) LONGS.get(utf8, i)
                    | (long) LONGS.get(utf8, i + 8)
                    | (long) LONGS.get(utf8, i + 16)
                    | (long) LONGS.get(utf8, i + 24))
                & 0x8080808080808080L)
            == 0) {
      i += 32;
    }
    while (i + 8 <= utf8.length && ((long) LONGS.get(utf8, i) & 0x8080808080808080L) == 0) {
      i += 8;
    }
    while (i < utf8.length && utf8[i] >= 0) {
      i++;
    }
    if (i == utf8.length) {
      return true; // ASCII, the common case
    }
    CharsetDecoder decoder =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(utf8, i, utf8.length - i);
    CharBuffer out = CharBuffer.allocate(Math.min(utf8.length - i, 4096));
    while (true) {
      CoderResult result = decoder.decode(in, out, true);
      if (result.isError()) {
        return false;
      }
      if (!result.isOverflow()) {
        break;
      }
      out.clear();
    }
    out.clear();
    return !decoder.flush(out).isError();
  }

  /** The general path: decode strictly, then parse the text; words every failure. */
  static JsonNode parseDecoded(byte[] utf8) throws InvalidEventException {
    if (utf8.length == 0) {
      throw new InvalidEventException("empty input");
    }
    CharBuffer chars = decodeUtf8(utf8);
    int start = chars.position();
    int end = chars.limit();
    if (end > start && chars.get(start) == '\uFEFF') {
      // RFC 8259 §8.1 lets parsers ignore a byte order mark; editors on Windows write one.
      start++;
    }
    if (isJsonWhitespace(chars, start, end)) {
      throw new InvalidEventException(
          start == end ? "empty input" : "blank input (only whitespace)");
    }
    try (JsonParser parser = FACTORY.createParser(chars.array(), start, end - start)) {
      JsonNode node;
      try {
        node = readTree(parser);
      } catch (NumberFormatException | ArithmeticException e) {
        // BigDecimal cannot hold an exponent beyond the int range, e.g. 1e-2147483649.
        throw new InvalidEventException(
            "number out of range" + at(parser.currentLocation()) + ": its exponent is too large");
      }
      JsonLocation afterValue = parser.currentLocation();
      boolean trailing;
      try {
        trailing = parser.nextToken() != null;
      } catch (JsonProcessingException e) {
        trailing = true;
      }
      if (trailing) {
        throw new InvalidEventException(
            "trailing data after the JSON value"
                + at(afterValue)
                + "; expected one value per event");
      }
      return node;
    } catch (JsonProcessingException e) {
      throw new InvalidEventException(describe(e));
    } catch (IOException e) {
      // Parsing from memory performs no I/O; keep the message free of input anyway.
      throw new InvalidEventException("could not read JSON: " + e.getClass().getSimpleName());
    }
  }

  /**
   * Builds the tree for the parser's next value, iteratively. Not {@code ObjectMapper.readTree}:
   * Jackson 2.15's tree deserializer turns floats beyond double range (1e400) into Infinity even
   * with USE_BIG_DECIMAL_FOR_FLOATS, which would make different numbers equal. Here integers stay
   * int/long/BigInteger and every other number a BigDecimal exactly as written.
   */
  private static JsonNode readTree(JsonParser parser) throws IOException {
    JsonNodeFactory nodes = MAPPER.getNodeFactory();
    Deque<ContainerNode<?>> open = new ArrayDeque<>();
    JsonToken token = parser.nextToken();
    while (token != null) {
      JsonNode value;
      switch (token) {
        case FIELD_NAME -> {
          token = parser.nextToken();
          continue;
        }
        case END_OBJECT, END_ARRAY -> {
          ContainerNode<?> closed = open.pop();
          if (open.isEmpty()) {
            return closed;
          }
          token = parser.nextToken();
          continue;
        }
        case START_OBJECT -> value = nodes.objectNode();
        case START_ARRAY -> value = nodes.arrayNode();
        case VALUE_STRING -> value = nodes.textNode(parser.getText());
        case VALUE_NUMBER_INT ->
            value =
                switch (parser.getNumberType()) {
                  case INT -> nodes.numberNode(parser.getIntValue());
                  case LONG -> nodes.numberNode(parser.getLongValue());
                  default -> nodes.numberNode(parser.getBigIntegerValue());
                };
        case VALUE_NUMBER_FLOAT -> value = nodes.numberNode(parser.getDecimalValue());
        case VALUE_TRUE -> value = nodes.booleanNode(true);
        case VALUE_FALSE -> value = nodes.booleanNode(false);
        case VALUE_NULL -> value = nodes.nullNode();
        default -> throw new JsonParseException(parser, "unexpected token " + token);
      }
      ContainerNode<?> parent = open.peek();
      if (parent instanceof ObjectNode object) {
        // For a value, and for the start of a nested container, the name is the member's.
        if (object.replace(parser.currentName(), value) != null) {
          // Only without STRICT_DUPLICATE_DETECTION (the fast path), which then falls back.
          throw new JsonParseException(parser, "duplicate key");
        }
      } else if (parent instanceof ArrayNode array) {
        array.add(value);
      }
      if (value instanceof ContainerNode<?> container) {
        open.push(container);
      } else if (parent == null) {
        return value;
      }
      token = parser.nextToken();
    }
    throw new JsonEOFException(parser, null, "end of input inside a value");
  }

  /**
   * Compiles a JSON Pointer (RFC 6901) given for a setting, rejecting what RFC 6901 rejects and
   * Jackson tolerates (a {@code ~} not followed by {@code 0} or {@code 1}) and the empty pointer,
   * which would mean the whole document.
   *
   * @throws IllegalArgumentException naming the setting and the rule broken
   */
  public static JsonPointer pointer(String setting, String text) {
    if (text == null) {
      throw new IllegalArgumentException(setting + ": a JSON Pointer must not be null");
    }
    if (text.isEmpty()) {
      throw new IllegalArgumentException(
          setting + ": the empty JSON Pointer means the whole document; give a field such as /id");
    }
    if (text.charAt(0) != '/') {
      throw new IllegalArgumentException(
          setting + ": '" + text + "' is not a JSON Pointer (RFC 6901): it must start with '/'");
    }
    for (int i = 0; i < text.length(); i++) {
      if (text.charAt(i) == '~'
          && (i + 1 == text.length() || (text.charAt(i + 1) != '0' && text.charAt(i + 1) != '1'))) {
        throw new IllegalArgumentException(
            setting
                + ": '"
                + text
                + "' is not a JSON Pointer (RFC 6901): '~' must be followed by 0 or 1"
                + " (write ~0 for '~' and ~1 for '/')");
      }
    }
    return JsonPointer.compile(text);
  }

  /** The type of a JSON value as an article and noun, for messages: "an array", "a string". */
  static String describeType(JsonNodeType type) {
    return switch (type) {
      case OBJECT, POJO -> "an object";
      case ARRAY -> "an array";
      case STRING, BINARY -> "a string";
      case NUMBER -> "a number";
      case BOOLEAN -> "a boolean";
      case NULL -> "null";
      case MISSING -> "nothing";
    };
  }

  private static CharBuffer decodeUtf8(byte[] utf8) throws InvalidEventException {
    CharsetDecoder decoder =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(utf8);
    // UTF-8 never needs more UTF-16 chars than bytes.
    CharBuffer out = CharBuffer.allocate(utf8.length);
    CoderResult result = decoder.decode(in, out, true);
    if (!result.isError()) {
      result = decoder.flush(out);
    }
    if (result.isError()) {
      throw new InvalidEventException(
          "not valid UTF-8: malformed byte sequence at byte offset " + in.position());
    }
    out.flip();
    return out;
  }

  private static boolean isJsonWhitespace(CharBuffer chars, int start, int end) {
    for (int i = start; i < end; i++) {
      char c = chars.get(i);
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        return false;
      }
    }
    return true;
  }

  /** A message for a Jackson failure without any fragment of the input. */
  static String describe(JsonProcessingException e) {
    String original = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
    if (e instanceof StreamConstraintsException) {
      return "JSON exceeds a parser limit: " + CONSTRAINT_NOTE.matcher(original).replaceAll("");
    }
    if (e instanceof JsonEOFException || original.contains("end-of-input")) {
      return "truncated JSON: unexpected end of input" + at(e.getLocation());
    }
    if (original.startsWith("Duplicate field '")) {
      String parent = "";
      if (e.getProcessor() instanceof JsonParser parser
          && parser.getParsingContext() != null
          && parser.getParsingContext().getParent() != null) {
        parent = parser.getParsingContext().getParent().pathAsPointer().toString();
      }
      String name = original.substring("Duplicate field '".length(), original.lastIndexOf('\''));
      return "duplicate key "
          + abbreviate(parent + "/" + name.replace("~", "~0").replace("/", "~1"))
          + at(e.getLocation())
          + "; duplicate keys make an event ambiguous";
    }
    return "malformed JSON" + at(e.getLocation()) + ": " + sanitize(original);
  }

  /** Removes quoted input fragments (tokens, keys) from a Jackson message, keeping single chars. */
  private static String sanitize(String message) {
    String withoutLocation =
        NUMBER_TEXT.matcher(LOCATION_NOTE.matcher(message).replaceAll("")).replaceAll("$1");
    Matcher m = QUOTED.matcher(withoutLocation);
    StringBuilder sb = new StringBuilder();
    while (m.find()) {
      String quoted = m.group(1);
      boolean keep =
          quoted.length() <= 1
              || quoted.equals("null")
              || quoted.equals("true")
              || quoted.equals("false")
              || quoted.equals("NaN")
              || (quoted.length() == 2 && quoted.charAt(0) == '\\');
      m.appendReplacement(sb, Matcher.quoteReplacement(keep ? m.group() : "'…'"));
    }
    m.appendTail(sb);
    String text = sb.toString().trim();
    return text.isEmpty() ? "unreadable JSON" : lowerFirst(text);
  }

  private static String lowerFirst(String s) {
    return s.substring(0, 1).toLowerCase(Locale.ROOT) + s.substring(1);
  }

  private static String at(JsonLocation location) {
    if (location == null || location.getLineNr() < 1) {
      return "";
    }
    return " at line " + location.getLineNr() + ", column " + location.getColumnNr();
  }

  private static String abbreviate(String s) {
    if (s.length() <= 200) {
      return s;
    }
    int cut = Character.isHighSurrogate(s.charAt(199)) ? 199 : 200;
    return s.substring(0, cut) + "…";
  }
}
