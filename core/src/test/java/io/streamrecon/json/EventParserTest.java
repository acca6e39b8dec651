package io.streamrecon.json;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertThrows;

import io.streamrecon.model.Event;
import io.streamrecon.model.Origin;
import io.streamrecon.model.RawInput;
import io.streamrecon.model.Side;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.joda.time.Instant;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.JUnit4;

@RunWith(JUnit4.class)
public class EventParserTest {
  private static final String SECRET = "SECRET-c4rd-4111";
  private static final String T = "\"eventTime\":\"2026-01-01T00:00:00Z\"";
  private static final Instant T_INSTANT = Instant.parse("2026-01-01T00:00:00Z");
  private static final Instant RECORD_TIME = Instant.parse("2026-06-30T12:00:00Z");
  private static final Origin ORIGIN = Origin.fileLine("orders.jsonl", 7);

  private static final EventParser DEFAULT = new EventParser(ParseConfig.defaults());

  private static RawInput raw(byte[] bytes) {
    return new RawInput(Side.SOURCE, bytes, ORIGIN, RECORD_TIME);
  }

  private static RawInput raw(String json) {
    return raw(json.getBytes(StandardCharsets.UTF_8));
  }

  private static Event parse(EventParser parser, String json) {
    try {
      return parser.parse(raw(json));
    } catch (InvalidEventException e) {
      throw new AssertionError("expected an event, got: " + e.getMessage());
    }
  }

  private static Event parse(String json) {
    return parse(DEFAULT, json);
  }

  /** Asserts rejection with exactly this message, which never quotes the payload. */
  private static void rejects(EventParser parser, byte[] input, String message) {
    InvalidEventException e =
        assertThrows(InvalidEventException.class, () -> parser.parse(raw(input)));
    assertEquals(message, e.getMessage());
    assertThat(e.getMessage(), not(containsString(SECRET)));
  }

  private static void rejects(EventParser parser, String json, String message) {
    rejects(parser, json.getBytes(StandardCharsets.UTF_8), message);
  }

  private static void rejects(String json, String message) {
    rejects(DEFAULT, json, message);
  }

  private static EventParser parser(ParseConfig config) {
    return new EventParser(config);
  }

  // ------------------------------------------------------------------ a good event

  @Test
  public void parsesAnEvent() {
    String json = "{\"id\":\"order-1\"," + T + ",\"amount\":10.50,\"card\":\"" + SECRET + "\"}";
    Event event = parse(json);
    assertEquals(Side.SOURCE, event.side());
    assertEquals("order-1", event.naturalId());
    assertEquals(T_INSTANT, event.eventTime());
    assertEquals(ORIGIN, event.origin());
    assertArrayEquals(json.getBytes(StandardCharsets.UTF_8), event.payload());
    assertEquals(CanonicalJson.sha256(CanonicalJsonTest.parse(json)), event.sha256());
  }

  @Test
  public void keepsThePayloadExactlyAsReceived() {
    byte[] withBom = ("\uFEFF{ \"id\" : 1 , " + T + " }\r\n").getBytes(StandardCharsets.UTF_8);
    Event event;
    try {
      event = DEFAULT.parse(raw(withBom));
    } catch (InvalidEventException e) {
      throw new AssertionError(e.getMessage());
    }
    assertArrayEquals(withBom, event.payload());
    assertEquals(parse("{\"id\":1," + T + "}").sha256(), event.sha256());
  }

  // ------------------------------------------------------------------ natural id

  @Test
  public void numberIdsUseTheCanonicalNumberText() {
    assertEquals("42", parse("{\"id\":42," + T + "}").naturalId());
    assertEquals("42", parse("{\"id\":\"42\"," + T + "}").naturalId());
    assertEquals("42", parse("{\"id\":42.0," + T + "}").naturalId());
    assertEquals("42", parse("{\"id\":4.2e1," + T + "}").naturalId());
    assertEquals("0", parse("{\"id\":-0," + T + "}").naturalId());
    assertEquals("1.5", parse("{\"id\":1.50," + T + "}").naturalId());
    assertEquals("1e+21", parse("{\"id\":1e21," + T + "}").naturalId());
    // Integers of 22 digits or more take the exponent form, like every number from 1e21 up.
    assertEquals(
        "1.2345678901234567890123456789e+29",
        parse("{\"id\":123456789012345678901234567890," + T + "}").naturalId());
    assertEquals(
        "999999999999999999999", parse("{\"id\":999999999999999999999," + T + "}").naturalId());
  }

  @Test
  public void stringIdsAreTakenAsIs() {
    assertEquals(" padded ", parse("{\"id\":\" padded \"," + T + "}").naturalId());
    assertEquals("042", parse("{\"id\":\"042\"," + T + "}").naturalId());
    assertEquals("\uD83D\uDE00", parse("{\"id\":\"\\ud83d\\ude00\"," + T + "}").naturalId());
  }

  @Test
  public void rejectsUnusableIds() {
    rejects("{" + T + ",\"x\":\"" + SECRET + "\"}", "keyField /id is missing");
    rejects(
        "{\"id\":null," + T + "}",
        "keyField /id is null; a natural id must be a string or a number");
    rejects(
        "{\"id\":{\"v\":\"" + SECRET + "\"}," + T + "}",
        "keyField /id is an object; a natural id must be a string or a number");
    rejects(
        "{\"id\":[\"" + SECRET + "\"]," + T + "}",
        "keyField /id is an array; a natural id must be a string or a number");
    rejects(
        "{\"id\":true," + T + "}",
        "keyField /id is a boolean; a natural id must be a string or a number");
    rejects("{\"id\":\"\"," + T + "}", "keyField /id is an empty string");
    rejects("{\"id\":\" \\t \"," + T + "}", "keyField /id is blank (only whitespace)");
    rejects(
        "{\"id\":\"a\\ud800\"," + T + "}",
        "keyField /id contains an unpaired surrogate (\\uD800-\\uDFFF escape), not valid text");
  }

  @Test
  public void nestedAndEscapedKeyPointers() {
    EventParser nested = parser(ParseConfig.defaults().withKeyFields(List.of("/customer/id")));
    assertEquals("c-9", parse(nested, "{\"customer\":{\"id\":\"c-9\"}," + T + "}").naturalId());
    rejects(nested, "{\"customer\":\"c-9\"," + T + "}", "keyField /customer/id is missing");
    EventParser escaped = parser(ParseConfig.defaults().withKeyFields(List.of("/a~1b/m~0n")));
    assertEquals("v", parse(escaped, "{\"a/b\":{\"m~n\":\"v\"}," + T + "}").naturalId());
    EventParser index = parser(ParseConfig.defaults().withKeyFields(List.of("/ids/1")));
    assertEquals("second", parse(index, "{\"ids\":[\"first\",\"second\"]," + T + "}").naturalId());
  }

  @Test
  public void compositeKeyIsACanonicalJsonArrayOfStrings() {
    EventParser composite = parser(ParseConfig.defaults().withKeyFields(List.of("/tenant", "/id")));
    assertEquals(
        "[\"acme\",\"42\"]",
        parse(composite, "{\"tenant\":\"acme\",\"id\":42," + T + "}").naturalId());
    assertEquals(
        "[\"acme\",\"42\"]",
        parse(composite, "{\"tenant\":\"acme\",\"id\":\"42\"," + T + "}").naturalId());
    // Separators and quotes inside parts cannot make two different part lists collide.
    String a = parse(composite, "{\"tenant\":\"a\\\",\\\"b\",\"id\":\"c\"," + T + "}").naturalId();
    String b = parse(composite, "{\"tenant\":\"a\",\"id\":\"b\\\",\\\"c\"," + T + "}").naturalId();
    assertEquals("[\"a\\\",\\\"b\",\"c\"]", a);
    assertNotEquals(a, b);
    rejects(composite, "{\"tenant\":\"acme\"," + T + "}", "keyField /id is missing");
    rejects(
        composite,
        "{\"tenant\":false,\"id\":1," + T + "}",
        "keyField /tenant is a boolean; a natural id must be a string or a number");
  }

  // ------------------------------------------------------------------ event time

  private static Instant time(String value) {
    return parse("{\"id\":1,\"eventTime\":" + value + "}").eventTime();
  }

  @Test
  public void isoTimesNeedAnOffset() {
    assertEquals(T_INSTANT, time("\"2026-01-01T00:00:00Z\""));
    assertEquals(T_INSTANT, time("\"2026-01-01T02:00:00+02:00\""));
    assertEquals(T_INSTANT, time("\"2026-01-01T02:00:00+0200\""));
    assertEquals(T_INSTANT, time("\"2026-01-01T02:00:00+02\""));
    assertEquals(T_INSTANT, time("\"2025-12-31T19:00:00-05:00\""));
    assertEquals(T_INSTANT, time("\"2026-01-01T00:00Z\""));
    assertEquals(T_INSTANT.plus(123), time("\"2026-01-01T00:00:00.123Z\""));
    assertEquals(
        "truncated, not rounded", T_INSTANT.plus(123), time("\"2026-01-01T00:00:00.123999999Z\""));
  }

  @Test
  public void epochMillisMustBeIntegral() {
    assertEquals(T_INSTANT, time("1767225600000"));
    assertEquals(T_INSTANT, time("1.7672256e12"));
    assertEquals(T_INSTANT, time("1767225600000.000"));
    assertEquals(new Instant(-1000), time("-1000"));
    rejects(
        "{\"id\":1,\"eventTime\":1767225600000.5}",
        "timeField /eventTime is a number with a fraction; epoch milliseconds must be integral");
  }

  @Test
  public void rejectsUnusableTimes() {
    String iso =
        "timeField /eventTime is not an ISO-8601 date-time with offset such as"
            + " 2026-01-01T00:00:00Z or 2026-01-01T02:00:00+02:00";
    rejects("{\"id\":1,\"eventTime\":\"2026-01-01T00:00:00\"}", iso);
    rejects("{\"id\":1,\"eventTime\":\"2026-01-01\"}", iso);
    rejects("{\"id\":1,\"eventTime\":\"2026-02-30T00:00:00Z\"}", iso);
    rejects("{\"id\":1,\"eventTime\":\"1767225600000\"}", iso);
    rejects("{\"id\":1,\"eventTime\":\"" + SECRET + "\"}", iso);
    rejects("{\"id\":1,\"eventTime\":\"\"}", iso);
    rejects("{\"id\":1}", "timeField /eventTime is missing");
    rejects(
        "{\"id\":1,\"eventTime\":null}",
        "timeField /eventTime is null; expected an ISO-8601 string with offset or epoch"
            + " milliseconds");
    rejects(
        "{\"id\":1,\"eventTime\":true}",
        "timeField /eventTime is a boolean; expected an ISO-8601 string with offset or epoch"
            + " milliseconds");
    rejects(
        "{\"id\":1,\"eventTime\":{\"at\":1}}",
        "timeField /eventTime is an object; expected an ISO-8601 string with offset or epoch"
            + " milliseconds");
  }

  @Test
  public void rejectsTimesOutsideYears1To9999() {
    String range =
        "timeField /eventTime is outside the supported range"
            + " 0001-01-01T00:00:00Z..9999-12-31T23:59:59.999Z";
    rejects("{\"id\":1,\"eventTime\":\"+10000-01-01T00:00:00Z\"}", range);
    rejects("{\"id\":1,\"eventTime\":\"-0001-01-01T00:00:00Z\"}", range);
    rejects("{\"id\":1,\"eventTime\":1e20}", range);
    rejects("{\"id\":1,\"eventTime\":-1e20}", range);
    rejects("{\"id\":1,\"eventTime\":1e999999999}", range);
    assertEquals(new Instant(EventTimes.MAX_MILLIS), time("\"9999-12-31T23:59:59.999Z\""));
    assertEquals(new Instant(EventTimes.MIN_MILLIS), time("\"0001-01-01T00:00:00Z\""));
  }

  @Test
  public void emptyTimeFieldUsesTheRecordTime() {
    EventParser recordTime = parser(ParseConfig.defaults().withTimeField(""));
    assertEquals(
        RECORD_TIME, parse(recordTime, "{\"id\":1,\"eventTime\":\"garbage\"}").eventTime());
  }

  @Test
  public void nestedTimeField() {
    EventParser nested = parser(ParseConfig.defaults().withTimeField("/meta/ts"));
    assertEquals(
        T_INSTANT,
        parse(nested, "{\"id\":1,\"meta\":{\"ts\":\"2026-01-01T00:00:00Z\"}}").eventTime());
    rejects(nested, "{\"id\":1," + T + "}", "timeField /meta/ts is missing");
  }

  // ------------------------------------------------------------------ ignored fields

  @Test
  public void ignoredFieldsAreRemovedBeforeHashingButKeptInThePayload() {
    EventParser ignoring =
        parser(ParseConfig.defaults().withIgnoreFields(List.of("/meta/receivedAt", "/a~1b")));
    String first = "{\"id\":1," + T + ",\"meta\":{\"receivedAt\":\"x\",\"v\":1},\"a/b\":1}";
    String second = "{\"id\":1," + T + ",\"meta\":{\"receivedAt\":\"y\",\"v\":1},\"a/b\":2}";
    Event a = parse(ignoring, first);
    Event b = parse(ignoring, second);
    assertEquals(a.sha256(), b.sha256());
    assertEquals(parse("{\"id\":1," + T + ",\"meta\":{\"v\":1}}").sha256(), a.sha256());
    assertArrayEquals(first.getBytes(StandardCharsets.UTF_8), a.payload());
    assertNotEquals(parse(first).sha256(), parse(second).sha256());
  }

  @Test
  public void theIdIsReadBeforeIgnoredFieldsAreRemoved() {
    EventParser ignoring = parser(ParseConfig.defaults().withIgnoreFields(List.of("/id")));
    Event event = parse(ignoring, "{\"id\":\"k\"," + T + "}");
    assertEquals("k", event.naturalId());
    assertEquals(CanonicalJson.sha256(CanonicalJsonTest.parse("{" + T + "}")), event.sha256());
  }

  // ------------------------------------------------------------------ bad input

  @Test
  public void rejectsInputOverMaxEventBytes() {
    EventParser small = parser(ParseConfig.defaults().withMaxEventBytes(64));
    String fits = "{\"id\":1," + T + ",\"p\":\"" + "x".repeat(64 - 50) + "\"}";
    assertEquals(64, fits.length());
    assertEquals("1", parse(small, fits).naturalId());
    rejects(small, fits.replace("\"p\":\"", "\"p\":\"x"), "event is over maxEventBytes (64 bytes)");
    rejects(
        small,
        fits.replace("\"p\":\"", "\"p\":\"xx"),
        "event is 66 bytes, more than maxEventBytes (64)");
  }

  @Test
  public void rejectsTenMegabyteDocumentsByDefault() {
    String big =
        "{\"id\":1," + T + ",\"p\":\"" + SECRET.repeat(10_000_000 / SECRET.length()) + "\"}";
    rejects(
        big,
        "event is "
            + big.length()
            + " bytes, more than maxEventBytes ("
            + ParseConfig.DEFAULT_MAX_EVENT_BYTES
            + ")");
  }

  @Test
  public void rejectsBytesThatAreNotUtf8() {
    byte[] latin1 =
        ("{\"id\":1," + T + ",\"name\":\"Jos\u00e9\"}").getBytes(StandardCharsets.ISO_8859_1);
    rejects(DEFAULT, latin1, "not valid UTF-8: malformed byte sequence at byte offset 54");
    rejects(
        DEFAULT,
        new byte[] {(byte) 0xff, (byte) 0xfe, '{', '}'},
        "not valid UTF-8: malformed byte sequence at byte offset 0");
    // A surrogate encoded as three bytes (CESU-8) is not UTF-8 either.
    rejects(
        DEFAULT,
        new byte[] {'"', (byte) 0xED, (byte) 0xA0, (byte) 0x80, '"'},
        "not valid UTF-8: malformed byte sequence at byte offset 1");
  }

  @Test
  public void rejectsEmptyAndBlankInput() {
    rejects(DEFAULT, new byte[0], "empty input");
    rejects("   \t ", "blank input (only whitespace)");
    rejects("\r\n", "blank input (only whitespace)");
    rejects("\uFEFF", "empty input");
  }

  @Test
  public void rejectsJsonThatIsNotAnObject() {
    rejects("[{\"id\":1}]", "an event must be a JSON object, got an array");
    rejects("42", "an event must be a JSON object, got a number");
    rejects("\"" + SECRET + "\"", "an event must be a JSON object, got a string");
    rejects("null", "an event must be a JSON object, got null");
    rejects("true", "an event must be a JSON object, got a boolean");
  }

  @Test
  public void rejectsTruncatedAndMalformedJson() {
    rejects(
        "{\"id\":1,\"card\":\"" + SECRET,
        "truncated JSON: unexpected end of input at line 1, column 33");
    rejects("{\"id\":1,", "truncated JSON: unexpected end of input at line 1, column 9");
    rejects("{\"id\":1,\"x\":[1,2", "truncated JSON: unexpected end of input at line 1, column 17");
    rejects(
        "{\"id\":" + SECRET + "}",
        "malformed JSON at line 1, column 13: unrecognized token '…': was expecting (JSON String,"
            + " Number, Array, Object or token 'null', 'true' or 'false')");
    rejects(
        "{'id':1}",
        "malformed JSON at line 1, column 3: unexpected character (''' (code 39)): was expecting"
            + " double-quote to start field name");
    rejects(
        "{\"id\":1,}",
        "malformed JSON at line 1, column 10: unexpected character ('}' (code 125)): was"
            + " expecting double-quote to start field name");
    rejects(
        "{\"id\":1e-2147483649}", "malformed JSON at line 1, column 20: malformed numeric value");
  }

  @Test
  public void rejectsTrailingData() {
    String message =
        "trailing data after the JSON value at line 1, column 9; expected one value per event";
    rejects("{\"id\":1} {\"id\":2}", message);
    rejects("{\"id\":1}]", message);
    rejects("{\"id\":1}" + SECRET, message);
  }

  @Test
  public void rejectsDuplicateKeys() {
    rejects(
        "{\"id\":1,\"id\":2," + T + "}",
        "duplicate key /id at line 1, column 13; duplicate keys make an event ambiguous");
    rejects(
        "{\"id\":1," + T + ",\"a\":[{\"x/y\":1,\"x/y\":2}]}",
        "duplicate key /a/0/x~1y at line 1, column 63; duplicate keys make an event ambiguous");
  }

  @Test
  public void rejectsNestingDeeperThanTheLimit() {
    String depth =
        "JSON exceeds a parser limit: Depth (1001) exceeds the maximum allowed nesting"
            + " depth (1000)";
    rejects("[".repeat(10_000) + "]".repeat(10_000), depth);
    rejects("{\"a\":".repeat(10_000) + "1" + "}".repeat(10_000), depth);
    rejects("[".repeat(10_000), depth);
  }

  @Test
  public void acceptsNestingAtTheLimit() {
    // The event object is level 1, 998 nested objects reach 999, the innermost array 1000.
    String atLimit =
        "{\"id\":1," + T + ",\"deep\":" + "{\"a\":".repeat(998) + "[]" + "}".repeat(998) + "}";
    assertEquals("1", parse(atLimit).naturalId());
    String overLimit =
        "{\"id\":1," + T + ",\"deep\":" + "{\"a\":".repeat(999) + "[]" + "}".repeat(999) + "}";
    rejects(
        overLimit,
        "JSON exceeds a parser limit: Depth (1001) exceeds the maximum allowed nesting depth"
            + " (1000)");
  }

  @Test
  public void rejectsNumbersLongerThanTheLimit() {
    rejects(
        "{\"id\":" + "1".repeat(1001) + "," + T + "}",
        "JSON exceeds a parser limit: Number length (1001) exceeds the maximum length (1000)");
  }

  // ------------------------------------------------------------------ configuration

  @Test
  public void survivesJavaSerialization() throws Exception {
    EventParser configured =
        parser(
            ParseConfig.defaults()
                .withKeyFields(List.of("/t", "/id"))
                .withIgnoreFields(List.of("/x")));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(configured);
    }
    EventParser copy;
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      copy = (EventParser) in.readObject();
    }
    assertEquals(configured.config(), copy.config());
    Event event = parse(copy, "{\"t\":\"a\",\"id\":1," + T + ",\"x\":1}");
    assertEquals("[\"a\",\"1\"]", event.naturalId());
    assertEquals(
        parse(configured, "{\"t\":\"a\",\"id\":1," + T + ",\"x\":2}").sha256(), event.sha256());
  }

  @Test
  public void configurationIsValidatedWithReadableMessages() {
    ParseConfig d = ParseConfig.defaults();
    assertThat(
        assertThrows(IllegalArgumentException.class, () -> d.withKeyFields(List.of())).getMessage(),
        startsWith("keyFields must name at least one JSON Pointer"));
    assertThat(
        assertThrows(IllegalArgumentException.class, () -> d.withKeyFields(List.of("/id", "/id")))
            .getMessage(),
        containsString("keyFields: /id is given twice"));
    assertThat(
        assertThrows(IllegalArgumentException.class, () -> d.withKeyFields(List.of("id")))
            .getMessage(),
        containsString("keyFields: 'id' is not a JSON Pointer (RFC 6901)"));
    assertThat(
        assertThrows(IllegalArgumentException.class, () -> d.withTimeField(null)).getMessage(),
        containsString("use \"\" to take the record's own timestamp"));
    assertThat(
        assertThrows(IllegalArgumentException.class, () -> d.withTimeField("ts")).getMessage(),
        containsString("timeField: 'ts' is not a JSON Pointer"));
    assertThat(
        assertThrows(IllegalArgumentException.class, () -> d.withIgnoreFields(List.of("/a~x")))
            .getMessage(),
        containsString("ignoreFields: '/a~x' is not a JSON Pointer (RFC 6901): '~' must be"));
    assertThat(
        assertThrows(IllegalArgumentException.class, () -> d.withMaxEventBytes(0)).getMessage(),
        containsString("maxEventBytes must be between 1 and 67108864 (64 MiB), got 0"));
    assertThat(
        assertThrows(IllegalArgumentException.class, () -> d.withMaxEventBytes((64 << 20) + 1))
            .getMessage(),
        containsString("got 67108865"));
    assertEquals(List.of("/id"), d.keyFields());
    assertEquals("/eventTime", d.timeField());
    assertEquals(4 << 20, d.maxEventBytes());
  }

  @Test
  public void rulesNormaliseEachSideBeforeHashingAndKeepThePayloadAsReceived() throws Exception {
    ComparisonRules rules =
        ComparisonRulesTest.rules(
            "{\"rename\":{\"/fullName\":\"/name\"},\"normalize\":{\"/email\":[\"trim\","
                + "\"lowercase\"]},\"unordered\":{\"/tags\":null},\"lenientTypes\":[\"/qty\",\"/id\"]}");
    EventParser parser = new EventParser(ParseConfig.defaults(), rules);
    String legacy =
        "{\"id\":7,"
            + T
            + ",\"fullName\":\"Ann\",\"email\":\" Ann@X.org\",\"tags\":[\"b\",\"a\"],"
            + "\"qty\":\"2\"}";
    String modern =
        "{\"id\":\"7\","
            + T
            + ",\"name\":\"Ann\",\"email\":\"ann@x.org\",\"tags\":[\"a\",\"b\"],"
            + "\"qty\":2.0}";
    Event source =
        parser.parse(
            new RawInput(
                Side.SOURCE, legacy.getBytes(StandardCharsets.UTF_8), ORIGIN, RECORD_TIME));
    Event target =
        parser.parse(
            new RawInput(
                Side.TARGET, modern.getBytes(StandardCharsets.UTF_8), ORIGIN, RECORD_TIME));
    assertEquals(source.sha256(), target.sha256());
    assertEquals("7", source.naturalId());
    assertEquals(legacy, new String(source.payload(), StandardCharsets.UTF_8));
    // Rename applies to the source only: the same legacy document as a target differs.
    Event legacyAsTarget =
        parser.parse(
            new RawInput(
                Side.TARGET, legacy.getBytes(StandardCharsets.UTF_8), ORIGIN, RECORD_TIME));
    assertNotEquals(source.sha256(), legacyAsTarget.sha256());
    // Without rules the two differ.
    assertNotEquals(DEFAULT.parse(raw(legacy)).sha256(), DEFAULT.parse(raw(modern)).sha256());
  }

  @Test
  public void ignoreFieldsAndRulesIgnoreCombine() throws Exception {
    EventParser parser =
        new EventParser(
            ParseConfig.defaults().withIgnoreFields(List.of("/a")),
            ComparisonRulesTest.rules("{\"ignore\":[\"/b\"]}"));
    assertEquals(
        parser.parse(raw("{\"id\":1," + T + ",\"a\":1,\"b\":1}")).sha256(),
        parser.parse(raw("{\"id\":1," + T + ",\"a\":2,\"b\":2}")).sha256());
  }
}
