package io.streamrecon.json;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamrecon.model.Event;
import io.streamrecon.model.RawInput;
import io.streamrecon.model.Side;
import java.io.Serializable;
import java.math.BigDecimal;
import java.time.OffsetDateTime;
import java.time.chrono.IsoChronology;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.format.ResolverStyle;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.IntFunction;
import org.joda.time.Instant;

/**
 * Turns one {@link RawInput} into an {@link Event} (docs/design.md#events-and-natural-ids), or says
 * in an {@link InvalidEventException} why it cannot. Plain and serializable so that a DoFn can
 * carry it.
 *
 * <p>Rules, in the order they are checked:
 *
 * <ol>
 *   <li>The input is at most {@link ParseConfig#maxEventBytes()} bytes, strict UTF-8, and exactly
 *       one JSON object within the limits of {@link JsonSupport} (no duplicate keys).
 *   <li>Natural id: each key field must hold a non-blank string (taken as is) or a number (taken as
 *       its canonical text, so {@code 42}, {@code 42.0} and {@code "42"} pair). Missing, null,
 *       boolean, object, array, empty or blank string, or a string with an unpaired surrogate
 *       (which UTF-8 storage could not keep) is rejected. With several key fields the id is the
 *       canonical JSON array of the parts as strings, e.g. {@code ["acme","42"]}, which no two
 *       different part lists share.
 *   <li>Event time: an ISO-8601 date-time with an offset ({@code 2026-01-01T00:00:00Z}, {@code
 *       2026-01-01T02:00:00.123+02:00}; {@code +0200} and {@code +02} are accepted too) or an
 *       integral number of epoch milliseconds; sub-millisecond digits are truncated. A date-time
 *       without offset, any other string, a fraction of a millisecond as a number, or any other
 *       type is rejected. An empty time field takes the record's own time. The time must lie in
 *       years 0001..9999 (what Delta Lake and Spark timestamps hold).
 *   <li>The ignored fields are removed, then the canonical SHA-256 is computed. The event keeps the
 *       payload bytes exactly as received.
 * </ol>
 */
public final class EventParser implements Serializable {
  private static final long serialVersionUID = 1L;

  /** 0001-01-01T00:00:00Z. */
  static final long MIN_EVENT_MILLIS = -62135596800000L;

  /** 9999-12-31T23:59:59.999Z. */
  static final long MAX_EVENT_MILLIS = 253402300799999L;

  private static final DateTimeFormatter ISO_WITH_OFFSET =
      new DateTimeFormatterBuilder()
          .append(DateTimeFormatter.ISO_LOCAL_DATE_TIME)
          // Z, +02:00 (ISO extended), +0200 (ISO basic) or +02; the first that fits wins.
          .optionalStart()
          .appendOffset("+HH:MM:ss", "Z")
          .optionalEnd()
          .optionalStart()
          .appendOffset("+HHMM", "Z")
          .optionalEnd()
          .optionalStart()
          .appendOffset("+HH", "Z")
          .optionalEnd()
          .toFormatter(Locale.ROOT)
          .withChronology(IsoChronology.INSTANCE)
          .withResolverStyle(ResolverStyle.STRICT);

  private final ParseConfig config;
  private final ComparisonRules rules;
  private transient ComparisonRules effectiveRules;
  private transient List<JsonPointer> keyPointers;
  private transient JsonPointer timePointer;
  private transient List<JsonPointer> ignorePointers;
  // Top-level member names for the streaming path (keys, then time; ignored), or null without it.
  private transient List<String> captureNames;
  private transient List<String> dropNames;

  public EventParser(ParseConfig config) {
    this(config, ComparisonRules.none());
  }

  /**
   * A parser that hashes each document normalised under {@code rules}
   * (docs/design.md#comparison-rules) as the document of its side; the natural id and event time
   * are read from the document as received.
   */
  public EventParser(ParseConfig config, ComparisonRules rules) {
    if (config == null) {
      throw new IllegalArgumentException("config must not be null");
    }
    if (rules == null) {
      throw new IllegalArgumentException("rules must not be null; use ComparisonRules.none()");
    }
    this.config = config;
    this.rules = rules;
  }

  public ParseConfig config() {
    return config;
  }

  /** The comparison rules, without the ignoreFields of the config. */
  public ComparisonRules rules() {
    return rules;
  }

  /**
   * Buffers that one thread reuses across {@link #parse(RawInput, Scratch)} calls (the canonical
   * writer's buffer and the digest), so that parsing allocates no more than the event needs. Not
   * thread-safe: keep one per thread, e.g. in a transient DoFn field set in {@code @Setup}.
   */
  public static final class Scratch {
    final CanonicalJson.Hasher hasher = new CanonicalJson.Hasher();
    final CanonicalStream stream = new CanonicalStream();
    JsonNode[] captured = new JsonNode[0];
  }

  /**
   * The event for one input, or an exception whose message never quotes the payload. Thread-safe; a
   * caller that parses many inputs on one thread should use {@link #parse(RawInput, Scratch)}.
   */
  public Event parse(RawInput input) throws InvalidEventException {
    return parse(input, new Scratch());
  }

  /** {@link #parse(RawInput)} with buffers owned by the calling thread. */
  public Event parse(RawInput input, Scratch scratch) throws InvalidEventException {
    byte[] bytes = input.bytes();
    if (bytes.length > config.maxEventBytes()) {
      // A line reader keeps only the first maxEventBytes + 1 bytes of a longer line: that length
      // says "over the limit", not the line's size, so it is not reported as one.
      throw new InvalidEventException(
          bytes.length == config.maxEventBytes() + 1
              ? "event is over maxEventBytes (" + config.maxEventBytes() + " bytes)"
              : "event is "
                  + bytes.length
                  + " bytes, more than maxEventBytes ("
                  + config.maxEventBytes()
                  + ")");
    }
    compilePointers();
    if (effectiveRules == null && captureNames != null) {
      Event event = parseStreaming(input, scratch);
      if (event != null) {
        return event;
      }
    }
    return parseTree(input, scratch);
  }

  /**
   * The fast path for valid events without comparison rules and with top-level id, time and ignored
   * fields: the canonical hash from the token stream, no tree. Null for anything it does not vouch
   * for, which {@link #parseTree} then accepts or rejects in its own words; so both paths give
   * the same event for every input (a test compares them on random documents).
   */
  private Event parseStreaming(RawInput input, Scratch scratch) {
    byte[] bytes = input.bytes();
    if (!JsonSupport.byteParserReadsAsDecoded(bytes)) {
      return null;
    }
    if (scratch.captured.length != captureNames.size()) {
      scratch.captured = new JsonNode[captureNames.size()];
    }
    JsonNode[] captured = scratch.captured;
    String sha256 = scratch.stream.sha256(bytes, captureNames, captured, dropNames);
    if (sha256 == null) {
      return null;
    }
    try {
      String naturalId = naturalId(i -> orMissing(captured[i]));
      Instant eventTime =
          timePointer == null
              ? eventTime(null, input.recordTime())
              : eventTime(orMissing(captured[config.keyFields().size()]), input.recordTime());
      return new Event(input.side(), naturalId, eventTime, sha256, bytes, input.origin());
    } catch (InvalidEventException | RuntimeException e) {
      return null;
    }
  }

  private static JsonNode orMissing(JsonNode node) {
    return node == null ? MissingNode.getInstance() : node;
  }

  /**
   * The natural id an input would have, read the way {@link #parse} reads it, or {@code null} when
   * the input is not a JSON object or its key fields do not make an id. For inputs that failed
   * later (event time, size): it tells which id a dead letter belongs to, without its time, hash
   * or size limit.
   */
  public String naturalIdOf(byte[] input) {
    compilePointers();
    try {
      ObjectNode root = JsonSupport.parseObject(input);
      return naturalId(i -> root.at(keyPointers.get(i)));
    } catch (InvalidEventException | RuntimeException e) {
      return null;
    }
  }

  /** The general path: the whole tree, then id, time, rules and hash from it. */
  Event parseTree(RawInput input, Scratch scratch) throws InvalidEventException {
    byte[] bytes = input.bytes();
    compilePointers();
    try {
      ObjectNode root = JsonSupport.parseObject(bytes);
      String naturalId = naturalId(i -> root.at(keyPointers.get(i)));
      Instant eventTime =
          eventTime(timePointer == null ? null : root.at(timePointer), input.recordTime());
      // One parse: the tree is normalised in place after the id and time were read from it.
      String sha256 = hashTree(root, input.side(), scratch);
      return new Event(input.side(), naturalId, eventTime, sha256, bytes, input.origin());
    } catch (RuntimeException e) {
      // A bug must not lose the input: it becomes a dead letter that can be replayed. Only the
      // type is reported; the message of an unknown exception might quote the input.
      throw new InvalidEventException(
          "internal error while parsing (" + e.getClass().getName() + ")");
    }
  }

  /** The canonical hash of a parsed document of a side; normalises the tree in place. */
  private String hashTree(ObjectNode root, Side side, Scratch scratch) {
    if (effectiveRules == null) {
      CanonicalJson.removeInPlace(root, ignorePointers);
      return scratch.hasher.sha256(root);
    }
    return effectiveRules.sha256(root, side, scratch.hasher);
  }

  /**
   * The canonical hash {@link #parse} gives a payload of {@code side} under this parser's ignored
   * fields and rules, without reading its natural id or time: for a stored event judged again under
   * other rules. The payload must be one JSON object.
   */
  public String sha256(Side side, byte[] payload, Scratch scratch) throws InvalidEventException {
    compilePointers();
    // The token-stream path parse takes, where it applies: no tree for a plain rehash.
    if (effectiveRules == null
        && captureNames != null
        && JsonSupport.byteParserReadsAsDecoded(payload)) {
      if (scratch.captured.length != captureNames.size()) {
        scratch.captured = new JsonNode[captureNames.size()];
      }
      String sha256 = scratch.stream.sha256(payload, captureNames, scratch.captured, dropNames);
      if (sha256 != null) {
        return sha256;
      }
    }
    try {
      return hashTree(JsonSupport.parseObject(payload), side, scratch);
    } catch (RuntimeException e) {
      // Only the type: the message of an unknown exception might quote the payload.
      throw new InvalidEventException(
          "internal error while hashing (" + e.getClass().getName() + ")");
    }
  }

  private void compilePointers() {
    if (keyPointers == null) {
      List<JsonPointer> keys = new ArrayList<>();
      for (String field : config.keyFields()) {
        keys.add(JsonSupport.pointer("keyFields", field));
      }
      List<JsonPointer> ignore = new ArrayList<>();
      for (String field : config.ignoreFields()) {
        ignore.add(JsonSupport.pointer("ignoreFields", field));
      }
      timePointer =
          config.timeField().isEmpty()
              ? null
              : JsonSupport.pointer("timeField", config.timeField());
      ignorePointers = List.copyOf(ignore);
      effectiveRules =
          rules.id() == null && rules.isEmpty()
              ? null
              : rules.withIgnoreFields(config.ignoreFields());
      captureNames = null;
      dropNames = null;
      List<JsonPointer> captures = new ArrayList<>(keys);
      if (timePointer != null) {
        captures.add(timePointer);
      }
      if (captures.stream().allMatch(EventParser::isTopLevel)
          && ignore.stream().allMatch(EventParser::isTopLevel)) {
        // Immutable lists, so that a thread that sees them sees their content.
        captureNames = captures.stream().map(JsonPointer::getMatchingProperty).toList();
        dropNames = ignore.stream().map(JsonPointer::getMatchingProperty).toList();
      }
      keyPointers = List.copyOf(keys);
    }
  }

  /** A pointer to a member of the root object, which {@link CanonicalStream} can capture. */
  private static boolean isTopLevel(JsonPointer pointer) {
    return !pointer.matches() && pointer.head() != null && pointer.head().matches();
  }

  /** The natural id from the values of the key fields, {@code keyValue.apply(i)} for field i. */
  private String naturalId(IntFunction<JsonNode> keyValue) throws InvalidEventException {
    List<String> keyFields = config.keyFields();
    if (keyFields.size() == 1) {
      return idPart(keyValue.apply(0), keyFields.get(0));
    }
    StringBuilder sb = new StringBuilder("[");
    for (int i = 0; i < keyFields.size(); i++) {
      if (i > 0) {
        sb.append(',');
      }
      CanonicalJson.writeString(idPart(keyValue.apply(i), keyFields.get(i)), sb);
    }
    return sb.append(']').toString();
  }

  private static String idPart(JsonNode value, String field) throws InvalidEventException {
    String prefix = "keyField " + field + " ";
    if (value.isMissingNode()) {
      throw new InvalidEventException(prefix + "is missing");
    }
    if (value.isNumber()) {
      return CanonicalJson.canonicalNumber(value);
    }
    if (value.isTextual()) {
      String text = value.textValue();
      if (text.isEmpty()) {
        throw new InvalidEventException(prefix + "is an empty string");
      }
      if (text.isBlank()) {
        throw new InvalidEventException(prefix + "is blank (only whitespace)");
      }
      if (hasUnpairedSurrogate(text)) {
        throw new InvalidEventException(
            prefix + "contains an unpaired surrogate (\\uD800-\\uDFFF escape), not valid text");
      }
      return text;
    }
    throw new InvalidEventException(
        prefix
            + "is "
            + JsonSupport.describeType(value.getNodeType())
            + "; a natural id must be a string or a number");
  }

  /** The event time from the time field's value, or from the record when timeField is empty. */
  private Instant eventTime(JsonNode value, Instant recordTime) throws InvalidEventException {
    if (timePointer == null) {
      return inRange(recordTime.getMillis(), "the record time (timeField is empty)");
    }
    String prefix = "timeField " + config.timeField() + " ";
    if (value.isMissingNode()) {
      throw new InvalidEventException(prefix + "is missing");
    }
    if (value.isTextual()) {
      long millis;
      try {
        millis = parseIso(value.textValue());
      } catch (DateTimeParseException | ArithmeticException e) {
        throw new InvalidEventException(
            prefix
                + "is not an ISO-8601 date-time with offset such as 2026-01-01T00:00:00Z"
                + " or 2026-01-01T02:00:00+02:00");
      }
      return inRange(millis, prefix.trim());
    }
    if (value.isNumber()) {
      BigDecimal millis = CanonicalJson.decimalValue(value);
      // Range first: it bounds the magnitude before any digit work on numbers such as 1e999999999.
      if (millis.compareTo(BigDecimal.valueOf(MIN_EVENT_MILLIS)) < 0
          || millis.compareTo(BigDecimal.valueOf(MAX_EVENT_MILLIS)) > 0) {
        throw new InvalidEventException(prefix + outOfRange());
      }
      if (millis.signum() != 0 && millis.stripTrailingZeros().scale() > 0) {
        throw new InvalidEventException(
            prefix + "is a number with a fraction; epoch milliseconds must be integral");
      }
      return new Instant(millis.longValueExact());
    }
    throw new InvalidEventException(
        prefix
            + "is "
            + JsonSupport.describeType(value.getNodeType())
            + "; expected an ISO-8601 string with offset or epoch milliseconds");
  }

  /**
   * Epoch milliseconds of an ISO-8601 date-time with offset as accepted for event times, within
   * years 0001..9999, or null.
   */
  static Long isoMillis(String text) {
    try {
      long millis = parseIso(text);
      return millis < MIN_EVENT_MILLIS || millis > MAX_EVENT_MILLIS ? null : millis;
    } catch (DateTimeParseException | ArithmeticException e) {
      return null;
    }
  }

  /** Epoch milliseconds of an ISO-8601 date-time with offset, sub-milliseconds truncated. */
  private static long parseIso(String text) {
    long fast = fastIsoMillis(text);
    return fast != NOT_FAST ? fast : formatterMillis(text);
  }

  /** The general path: the formatter, for every shape {@link #fastIsoMillis} leaves to it. */
  static long formatterMillis(String text) {
    return OffsetDateTime.parse(text, ISO_WITH_OFFSET).toInstant().toEpochMilli();
  }

  /** What {@link #fastIsoMillis} returns for text it leaves to the full formatter. */
  static final long NOT_FAST = Long.MIN_VALUE;

  /**
   * The common shape, {@code yyyy-MM-ddTHH:mm:ss[.f{1,9}](Z|±HH:MM)}, read without the formatter's
   * general machinery (which cost a tenth of the bare logic's time). Returns exactly what {@code
   * OffsetDateTime.parse(text, ISO_WITH_OFFSET)} would, or {@link #NOT_FAST} for anything else,
   * valid or not (lower-case separators, other offset forms, out-of-range fields), which the
   * formatter then accepts or rejects as before. A test compares both on many inputs.
   */
  static long fastIsoMillis(String t) {
    int len = t.length();
    if (len < 20
        || t.charAt(4) != '-'
        || t.charAt(7) != '-'
        || t.charAt(10) != 'T'
        || t.charAt(13) != ':'
        || t.charAt(16) != ':') {
      return NOT_FAST;
    }
    int year = digits(t, 0, 4);
    int month = digits(t, 5, 2);
    int day = digits(t, 8, 2);
    int hour = digits(t, 11, 2);
    int minute = digits(t, 14, 2);
    int second = digits(t, 17, 2);
    if ((year | month | day | hour | minute | second) < 0
        || month < 1
        || month > 12
        || day < 1
        || day > java.time.Month.of(month).length(java.time.Year.isLeap(year))
        || hour > 23
        || minute > 59
        || second > 59) {
      return NOT_FAST;
    }
    int i = 19;
    int millis = 0;
    if (t.charAt(i) == '.') {
      int start = ++i;
      while (i < len && i - start < 9 && t.charAt(i) >= '0' && t.charAt(i) <= '9') {
        if (i - start < 3) {
          millis = millis * 10 + (t.charAt(i) - '0');
        }
        i++;
      }
      int n = i - start;
      if (n == 0) {
        return NOT_FAST;
      }
      for (; n < 3; n++) {
        millis *= 10;
      }
    }
    int offsetSeconds;
    if (i == len - 1 && t.charAt(i) == 'Z') {
      offsetSeconds = 0;
    } else if (i == len - 6
        && (t.charAt(i) == '+' || t.charAt(i) == '-')
        && t.charAt(i + 3) == ':') {
      int oh = digits(t, i + 1, 2);
      int om = digits(t, i + 4, 2);
      if (oh < 0 || om < 0 || oh > 17 || om > 59 || (oh == 0 && om == 0 && t.charAt(i) == '-')) {
        return NOT_FAST;
      }
      offsetSeconds = (t.charAt(i) == '-' ? -1 : 1) * (oh * 3600 + om * 60);
    } else {
      return NOT_FAST;
    }
    long epochDay = java.time.LocalDate.of(year, month, day).toEpochDay();
    long epochSecond = epochDay * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds;
    return epochSecond * 1000 + millis;
  }

  /** The value of {@code n} ASCII digits at {@code from}, or -1. */
  private static int digits(String t, int from, int n) {
    int v = 0;
    for (int i = from; i < from + n; i++) {
      char c = t.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      v = v * 10 + (c - '0');
    }
    return v;
  }

  private static Instant inRange(long millis, String what) throws InvalidEventException {
    if (millis < MIN_EVENT_MILLIS || millis > MAX_EVENT_MILLIS) {
      throw new InvalidEventException(what + " " + outOfRange());
    }
    return new Instant(millis);
  }

  private static String outOfRange() {
    return "is outside the supported range 0001-01-01T00:00:00Z..9999-12-31T23:59:59.999Z";
  }

  private static boolean hasUnpairedSurrogate(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return true;
      }
    }
    return false;
  }
}
