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
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
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
 *       years 0001..9999 (what Delta Lake and Spark timestamps hold). {@link EventTimes} decides
 *       what is accepted, for every reader of event times; this class says why a value is not.
 *   <li>The ignored fields are removed, then the canonical SHA-256 is computed. The event keeps the
 *       payload bytes exactly as received.
 * </ol>
 */
public final class EventParser implements Serializable {
  private static final long serialVersionUID = 1L;

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
   * for, which {@link #parseTree} then accepts or rejects in its own words; so both paths give the
   * same event for every input (a test compares them on random documents).
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
   * later (event time, size): it tells which id a dead letter belongs to, without its time, hash or
   * size limit.
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
        millis = EventTimes.parseIso(value.textValue());
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
      if (!EventTimes.inRange(millis)) {
        throw new InvalidEventException(prefix + EventTimes.OUT_OF_RANGE);
      }
      if (!EventTimes.isIntegral(millis)) {
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

  private static Instant inRange(long millis, String what) throws InvalidEventException {
    if (!EventTimes.inRange(millis)) {
      throw new InvalidEventException(what + " " + EventTimes.OUT_OF_RANGE);
    }
    return new Instant(millis);
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
