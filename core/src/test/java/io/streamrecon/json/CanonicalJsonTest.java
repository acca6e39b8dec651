package io.streamrecon.json;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertThrows;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.JUnit4;

@RunWith(JUnit4.class)
public class CanonicalJsonTest {

  static JsonNode parse(String json) {
    try {
      return JsonSupport.parse(json.getBytes(StandardCharsets.UTF_8));
    } catch (InvalidEventException e) {
      throw new AssertionError("test input does not parse: " + e.getMessage());
    }
  }

  private static String canonical(String json) {
    return CanonicalJson.canonicalForm(parse(json));
  }

  private static String sha256Hex(String text) throws Exception {
    return HexFormat.of()
        .formatHex(
            MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
  }

  // ------------------------------------------- examples of docs/design.md#canonical-hash

  @Test
  public void sortsKeysAndDropsWhitespace() {
    assertEquals(
        "{\"a\":[3,1,2],\"b\":{\"x\":null,\"y\":true},\"c\":\"s\"}",
        canonical(
            " { \"c\" : \"s\" ,\n"
                + " \"b\" : { \"y\" : true , \"x\" : null } ,\t\"a\" : [ 3 , 1 , 2 ] } "));
  }

  @Test
  public void keepsArrayOrder() {
    assertNotEquals(canonical("[1,2]"), canonical("[2,1]"));
    assertEquals("[{\"a\":0,\"b\":1},2]", canonical("[{\"b\":1,\"a\":0},2]"));
  }

  @Test
  public void numbersWrittenDifferentlyAreEqual() {
    String one = canonical("{\"n\":1}");
    for (String form : List.of("1.0", "1e0", "1E0", "10E-1", "0.1e1", "1.000", "100e-2", "1e+0")) {
      assertEquals(form, one, canonical("{\"n\":" + form + "}"));
    }
    assertEquals("{\"n\":1}", one);
  }

  @Test
  public void negativeZeroIsZero() {
    for (String form : List.of("-0", "-0.0", "0.000", "0e10", "-0E-5")) {
      assertEquals(form, "0", canonical(form));
    }
  }

  @Test
  public void numberFormIsFixed() {
    String[][] cases = {
      {"42", "42"},
      {"-42", "-42"},
      {"12.50", "12.5"},
      {"1e3", "1000"},
      {"1E+2", "100"},
      {"0.000001", "0.000001"},
      {"1e-7", "1e-7"},
      {"1.5e-7", "1.5e-7"},
      {"1e20", "100000000000000000000"},
      {"1e21", "1e+21"},
      {"-1.25e21", "-1.25e+21"},
      {"123456789012345678901234", "1.23456789012345678901234e+23"},
      {"9223372036854775807", "9223372036854775807"},
      {"9223372036854775808", "9223372036854775808"},
      {"99999.99999", "99999.99999"},
      {"9999999999e-5", "99999.99999"},
    };
    for (String[] c : cases) {
      assertEquals(c[0], c[1], canonical(c[0]));
    }
  }

  @Test
  public void hugeExponentsStayShort() {
    // toPlainString() would build a billion zeros here; stripTrailingZeros() would overflow.
    assertEquals("1e+999999999", canonical("1e999999999"));
    assertEquals("-1e-999999999", canonical("-1e-999999999"));
    assertEquals("1e+2147483649", canonical("100e2147483647"));
    assertEquals("1e+999999999", canonical("10e999999998"));
    assertNotEquals(canonical("1e400"), canonical("1e401"));
  }

  @Test
  public void doubleAndFloatNodesUseTheirDecimalValue() {
    JsonNodeFactory f = JsonNodeFactory.instance;
    assertEquals("0.1", CanonicalJson.canonicalForm(f.numberNode(0.1d)));
    assertEquals("0.1", CanonicalJson.canonicalForm(f.numberNode(0.1f)));
    assertEquals("1", CanonicalJson.canonicalForm(f.numberNode(new BigDecimal("1.000"))));
    assertThrows(
        IllegalArgumentException.class,
        () -> CanonicalJson.canonicalForm(f.numberNode(Double.NaN)));
  }

  // ------------------------------------------------------------------ key order

  @Test
  public void keysSortByCodePointNotUtf16() {
    // U+FFFD sorts before U+1F600 by code point; in UTF-16 units D83D < FFFD would put it after.
    String json = "{\"\uD83D\uDE00\":2,\"\uFFFD\":1,\"\uE000\":0,\"z\":3}";
    assertEquals("{\"z\":3,\"\uE000\":0,\"\uFFFD\":1,\"\uD83D\uDE00\":2}", canonical(json));
    assertThat(
        "sanity: UTF-16 order differs",
        "\uD83D\uDE00".compareTo("\uFFFD") < 0,
        org.hamcrest.Matchers.is(true));
  }

  @Test
  public void keysSortByCodePointWithinPrefixes() {
    assertEquals(
        "{\"\":0,\"a\":1,\"aa\":2,\"b\":3}", canonical("{\"b\":3,\"aa\":2,\"a\":1,\"\":0}"));
  }

  @Test
  public void codePointComparisonIsATotalOrderOnEdgeCases() {
    assertEquals(0, CanonicalJson.compareCodePoints("\uD83D\uDE00", "\uD83D\uDE00"));
    assertEquals(-1, Integer.signum(CanonicalJson.compareCodePoints("\uFFFF", "\uD800\uDC00")));
    assertEquals(
        1, Integer.signum(CanonicalJson.compareCodePoints("\uD83D\uDE01", "\uD83D\uDE00")));
    assertEquals(-1, Integer.signum(CanonicalJson.compareCodePoints("a", "a\uD83D\uDE00")));
  }

  // ------------------------------------------------------------------ strings

  @Test
  public void escapesStringsOneWay() {
    // The same value written with and without escapes has one canonical form.
    assertEquals(canonical("\"\\u00e9\\/\""), canonical("\"é/\""));
    assertEquals("\"é/\"", canonical("\"\\u00e9\\/\""));
    assertEquals("\"q\\\"b\\\\\"", canonical("\"q\\\"b\\\\\""));
    assertEquals(
        "\"\\b\\f\\n\\r\\t\\u0000\\u001f\"", canonical("\"\\b\\f\\n\\r\\t\\u0000\\u001F\""));
    assertEquals("\"\u007f\u2028\uD83D\uDE00\"", canonical("\"\\u007f\\u2028\\ud83d\\ude00\""));
  }

  @Test
  public void unpairedSurrogatesAreEscapedAndStayDistinct() {
    assertEquals("\"\\ud800x\"", canonical("\"\\uD800x\""));
    assertEquals("\"\\udc00\"", canonical("\"\\uDC00\""));
    assertNotEquals(
        CanonicalJson.sha256(parse("\"\\uD800\"")), CanonicalJson.sha256(parse("\"\\uD801\"")));
  }

  // ------------------------------------------------------------------ hash

  @Test
  public void sha256IsLowerHexOfCanonicalUtf8() throws Exception {
    JsonNode node = parse("{\"b\":\"\uD83D\uDE00 é\",\"a\":1.0}");
    assertEquals("{\"a\":1,\"b\":\"\uD83D\uDE00 é\"}", CanonicalJson.canonicalForm(node));
    assertEquals(sha256Hex("{\"a\":1,\"b\":\"\uD83D\uDE00 é\"}"), CanonicalJson.sha256(node));
    assertEquals(
        "the digest of {\"a\":1} is fixed",
        "015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862",
        CanonicalJson.sha256(parse("{\"a\":1}")));
  }

  @Test
  public void sha256StreamsAcrossBufferBoundaries() throws Exception {
    // Long strings of 1-, 2-, 3- and 4-byte characters cross the digest buffer at every offset.
    for (String unit : List.of("a", "é", "€", "\uD83D\uDE00")) {
      for (int n = 2040; n < 2060; n++) {
        ObjectNode node = JsonNodeFactory.instance.objectNode();
        node.put("k", unit.repeat(n));
        assertEquals(
            unit + n, sha256Hex(CanonicalJson.canonicalForm(node)), CanonicalJson.sha256(node));
      }
    }
  }

  @Test
  public void equalByValueMeansEqualHash() {
    assertEquals(
        CanonicalJson.sha256(parse("{\"a\":[1,{\"y\":2.0,\"x\":\"\\u0041\"}],\"b\":-0}")),
        CanonicalJson.sha256(parse("{ \"b\": 0, \"a\": [1e0, {\"x\": \"A\", \"y\": 20e-1}] }")));
    assertNotEquals(
        CanonicalJson.sha256(parse("{\"a\":1}")), CanonicalJson.sha256(parse("{\"a\":\"1\"}")));
  }

  // ------------------------------------------------------------------ depth

  @Test
  public void writesDocumentsAtTheParserDepthLimit() {
    int depth = JsonSupport.MAX_NESTING_DEPTH;
    String arrays = "[".repeat(depth) + "]".repeat(depth);
    assertEquals(arrays, canonical(arrays));
    String objects = "{\"a\":".repeat(depth - 1) + "{}" + "}".repeat(depth - 1);
    assertEquals(objects, canonical(objects));
  }

  @Test
  public void writerDoesNotUseTheJavaStackForDepth() {
    // Far deeper than the parser allows: a tree built in code must not overflow the stack either.
    ArrayNode root = JsonNodeFactory.instance.arrayNode();
    ArrayNode current = root;
    for (int i = 0; i < 200_000; i++) {
      current = current.addArray();
    }
    String canonical = CanonicalJson.canonicalForm(root);
    assertEquals(2 * 200_001, canonical.length());
    assertEquals(64, CanonicalJson.sha256(root).length());
  }

  @Test
  public void rejectsNodesThatAreNotJsonValues() {
    assertThrows(
        IllegalArgumentException.class,
        () -> CanonicalJson.canonicalForm(JsonNodeFactory.instance.binaryNode(new byte[] {1})));
  }

  // ------------------------------------------------------------------ ignored fields

  private static List<JsonPointer> pointers(String... texts) {
    return java.util.Arrays.stream(texts).map(t -> JsonSupport.pointer("ignoreFields", t)).toList();
  }

  @Test
  public void withoutFieldsRemovesMembersAddressedWithEscapes() {
    JsonNode node = parse("{\"a/b\":1,\"m~n\":2,\"a\":{\"b\":3},\"keep\":4}");
    JsonNode stripped = CanonicalJson.withoutFields(node, pointers("/a~1b", "/m~0n"));
    assertEquals("{\"a\":{\"b\":3},\"keep\":4}", CanonicalJson.canonicalForm(stripped));
    JsonNode nested = CanonicalJson.withoutFields(node, pointers("/a/b"));
    assertEquals("{\"a\":{},\"a/b\":1,\"keep\":4,\"m~n\":2}", CanonicalJson.canonicalForm(nested));
  }

  @Test
  public void withoutFieldsCopiesAndLeavesTheInputAlone() {
    JsonNode node = parse("{\"a\":1,\"b\":2}");
    CanonicalJson.withoutFields(node, pointers("/a"));
    assertEquals("{\"a\":1,\"b\":2}", CanonicalJson.canonicalForm(node));
  }

  @Test
  public void withoutFieldsIgnoresPointersToNothing() {
    JsonNode node = parse("{\"a\":{\"b\":1},\"s\":\"x\",\"arr\":[1]}");
    JsonNode stripped =
        CanonicalJson.withoutFields(
            node, pointers("/zz", "/a/c", "/s/x", "/arr/5", "/arr/-", "/arr/01"));
    assertEquals(CanonicalJson.canonicalForm(node), CanonicalJson.canonicalForm(stripped));
  }

  @Test
  public void withoutFieldsRemovesArrayElementsResolvedBeforeAnyRemoval() {
    JsonNode node = parse("{\"arr\":[\"x0\",\"x1\",\"x2\",\"x3\"]}");
    // Both pointers address the original elements, in either order.
    assertEquals(
        "{\"arr\":[\"x1\",\"x3\"]}",
        CanonicalJson.canonicalForm(
            CanonicalJson.withoutFields(node, pointers("/arr/0", "/arr/2"))));
    assertEquals(
        "{\"arr\":[\"x1\",\"x3\"]}",
        CanonicalJson.canonicalForm(
            CanonicalJson.withoutFields(node, pointers("/arr/2", "/arr/0"))));
  }

  @Test
  public void ignoredFieldsChangeTheHashOnlyThroughWhatTheyRemove() {
    List<JsonPointer> ignore = pointers("/meta/receivedAt");
    JsonNode a = parse("{\"id\":1,\"meta\":{\"receivedAt\":\"t1\",\"v\":1}}");
    JsonNode b = parse("{\"id\":1,\"meta\":{\"receivedAt\":\"t2\",\"v\":1}}");
    assertNotEquals(CanonicalJson.sha256(a), CanonicalJson.sha256(b));
    assertEquals(
        CanonicalJson.sha256(CanonicalJson.withoutFields(a, ignore)),
        CanonicalJson.sha256(CanonicalJson.withoutFields(b, ignore)));
  }

  @Test
  public void pointerSettingsAreValidated() {
    assertThat(
        assertThrows(IllegalArgumentException.class, () -> JsonSupport.pointer("ignoreFields", "a"))
            .getMessage(),
        containsString(
            "ignoreFields: 'a' is not a JSON Pointer (RFC 6901): it must start with '/'"));
    assertThat(
        assertThrows(
                IllegalArgumentException.class, () -> JsonSupport.pointer("ignoreFields", "/a~2"))
            .getMessage(),
        containsString("'~' must be followed by 0 or 1"));
    assertThat(
        assertThrows(
                IllegalArgumentException.class, () -> JsonSupport.pointer("ignoreFields", "/a~"))
            .getMessage(),
        containsString("'~' must be followed by 0 or 1"));
    assertThat(
        assertThrows(IllegalArgumentException.class, () -> JsonSupport.pointer("keyFields", ""))
            .getMessage(),
        containsString("keyFields: the empty JSON Pointer means the whole document"));
  }
}
