package io.streamrecon.json;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamrecon.model.Event;
import io.streamrecon.model.Origin;
import io.streamrecon.model.RawInput;
import io.streamrecon.model.Side;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.joda.time.Instant;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.JUnit4;

/**
 * The streaming path of {@link EventParser} (canonical hash from the token stream, {@link
 * CanonicalStream}) must give, for every input, exactly what the tree path gives: the same event,
 * or the same error message. Random documents are written as text in varied ways (whitespace,
 * escaped or raw non-ASCII, members out of order, duplicate and trailing data) under several
 * configurations, and both paths are compared on each.
 */
@RunWith(JUnit4.class)
public class EventParserStreamingTest {
  private static final JsonNodeFactory NODES = JsonNodeFactory.withExactBigDecimals(true);
  private static final Instant RECORD_TIME = new Instant(1_767_225_600_000L);

  private static final List<ParseConfig> CONFIGS =
      List.of(
          ParseConfig.defaults(),
          ParseConfig.defaults().withIgnoreFields(List.of("/note", "/b", "/missing")),
          ParseConfig.defaults().withKeyFields(List.of("/a", "/id")),
          ParseConfig.defaults().withTimeField(""),
          ParseConfig.defaults().withIgnoreFields(List.of("/id", "/eventTime")),
          // not top-level: the tree path only, which must still agree with itself
          ParseConfig.defaults().withKeyFields(List.of("/o/id")));

  @Test
  public void streamingAndTreePathsAgreeOnRandomEvents() {
    int accepted = 0;
    int rejected = 0;
    for (ParseConfig config : CONFIGS) {
      EventParser parser = new EventParser(config);
      EventParser.Scratch scratch = new EventParser.Scratch();
      int acceptedHere = 0;
      for (int seed = 0; seed < 1500; seed++) {
        SplittableRandom r = new SplittableRandom(seed);
        byte[] text = write(r, event(r), r.nextInt(4));
        if (compare(parser, scratch, text, config + " seed " + seed)) {
          acceptedHere++;
        } else {
          rejected++;
        }
      }
      accepted += acceptedHere;
      if (config.keyFields().get(0).equals("/o/id")) {
        assertEquals("no streaming for a nested key", 0, scratch.stream.hashed);
      } else {
        // The streaming path hashed every accepted event (and some that the id rules then reject).
        assertTrue(config + ": " + scratch.stream.hashed, scratch.stream.hashed >= acceptedHere);
      }
    }
    // Both outcomes must be well represented, or the comparison proves little.
    assertTrue("accepted " + accepted, accepted > 3000);
    assertTrue("rejected " + rejected, rejected > 300);
  }

  @Test
  public void damagedTextGivesTheTreePathsErrors() {
    EventParser parser = new EventParser(ParseConfig.defaults());
    EventParser.Scratch scratch = new EventParser.Scratch();
    String ok = "{\"id\":\"k1\",\"eventTime\":\"2026-01-01T00:00:00Z\",\"s\":\"x\"}";
    List<String> inputs =
        new ArrayList<>(
            List.of(
                ok,
                "\uFEFF" + ok,
                // a quote three bytes before a value's quote: where the raw string copy would
                // start if Jackson counted byte offsets from past the byte order mark
                "\uFEFF{\"k\":1,\"a\": \"xy\",\"id\":\"k1\",\"eventTime\":1}",
                "{\"k\":1,\"a\": \"xy\",\"id\":\"k1\",\"eventTime\":1}",
                ok + " ",
                ok + "{}",
                ok + " x",
                "[" + ok + "]",
                "\"k1\"",
                "{\"id\":\"k1\",\"id\":\"k2\",\"eventTime\":\"2026-01-01T00:00:00Z\"}",
                "{\"id\":\"k1\",\"eventTime\":\"2026-01-01T00:00:00Z\",\"o\":{\"a\":1,\"a\":1}}",
                "{\"id\":\"k1\",\"eventTime\":\"2026-01-01T00:00:00Z\","
                    + "\"o\":{\"b\":1,\"a\":{\"a\":[1,{\"z\":1,\"z\":2}]}}}",
                "{\"id\":{\"x\":1},\"eventTime\":\"2026-01-01T00:00:00Z\"}",
                "{\"id\":[\"k1\"],\"eventTime\":\"2026-01-01T00:00:00Z\"}",
                "{\"id\":\"k1\",\"eventTime\":[1]}",
                "{\"id\":\"k1\",\"eventTime\":\"2026-01-01T00:00:00\"}",
                "{\"id\":\"k1\",\"eventTime\":1.5}",
                "{\"id\":\"k1\",\"eventTime\":1e999999}",
                "{\"id\":\" \",\"eventTime\":1}",
                "{\"id\":\"\\ud800\",\"eventTime\":1}",
                "{\"id\":true,\"eventTime\":1}",
                "{\"id\":null,\"eventTime\":1}",
                "{\"id\":\"k1\",\"eventTime\":1,\"s\":\"tab\there\"}",
                "{\"id\":\"k1\",\"eventTime\":1,\"s\":\"unterminated}",
                "{\"id\":\"k1\",\"eventTime\":1,\"s\":\"a\\qb\"}",
                "{\"id\":\"k1\",\"eventTime\":1,\"n\":01}",
                "{\"id\":\"k1\",\"eventTime\":1,\"n\":1e-2147483649}",
                "{\"id\":\"k1\",\"eventTime\":1,\"n\":NaN}",
                "{\"id\":\"k1\",\"eventTime\":1,",
                "{\"id\":\"k1\",\"eventTime\":1}}",
                "{\"id\":\"k1\" \"eventTime\":1}",
                "{'id':'k1','eventTime':1}",
                "{}",
                "{ }",
                "    ",
                "",
                "{\"id\":\"k1\",\"eventTime\":1,\"deep\":"
                    + "[".repeat(1001)
                    + "]".repeat(1001)
                    + "}"));
    for (String input : inputs) {
      compare(parser, scratch, input.getBytes(StandardCharsets.UTF_8), input);
    }
    byte[] badUtf8 = ok.getBytes(StandardCharsets.UTF_8);
    badUtf8[badUtf8.length - 3] = (byte) 0xC3;
    compare(parser, scratch, badUtf8, "malformed UTF-8");
    byte[] surrogateUtf8 = ok.getBytes(StandardCharsets.UTF_8);
    surrogateUtf8[badUtf8.length - 4] = (byte) 0xED;
    surrogateUtf8[badUtf8.length - 3] = (byte) 0xA0;
    surrogateUtf8[badUtf8.length - 2] = (byte) 0x80;
    compare(parser, scratch, surrogateUtf8, "an encoded surrogate");
  }

  @Test
  public void plainStringsAreCopiedAsTheirBytes() {
    EventParser parser = new EventParser(ParseConfig.defaults());
    EventParser.Scratch scratch = new EventParser.Scratch();
    String doc =
        "{\"note\":\"plain ascii, long enough to cross a word or two\",\"id\":\"k1\","
            + "\"eventTime\":\"2026-01-01T00:00:00Z\",\"u\":\"caf\u00e9 \u20ac \uD83D\uDE00\","
            + "\"e\":\"a\\\"b\"}";
    compare(parser, scratch, doc.getBytes(StandardCharsets.UTF_8), doc);
    // note and u are copied; e has an escape and is decoded; id and time are read as text
    assertEquals(2, scratch.stream.rawStrings);
  }

  @Test
  public void plainStringEndFindsTheQuoteOrAnEscape() {
    for (int pad = 0; pad < 20; pad++) {
      String prefix = "x".repeat(pad);
      assertEquals(pad + 1, CanonicalStream.plainStringEnd(bytes("\"" + prefix + "\"tail"), 1));
      assertEquals(-1, CanonicalStream.plainStringEnd(bytes("\"" + prefix + "\\\"\""), 1));
      assertEquals(-1, CanonicalStream.plainStringEnd(bytes("\"" + prefix + "\n\""), 1));
      assertEquals(-1, CanonicalStream.plainStringEnd(bytes("\"" + prefix + "\u001f\""), 1));
      assertEquals(-1, CanonicalStream.plainStringEnd(bytes("\"" + prefix), 1));
      // non-ASCII bytes (high bit set) are content, not specials
      int end = CanonicalStream.plainStringEnd(bytes("\"" + prefix + "\u00e9\u20ac\"x"), 1);
      assertEquals(pad + 1 + 2 + 3, end);
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Both paths on one input; true if accepted. */
  private static boolean compare(
      EventParser parser, EventParser.Scratch scratch, byte[] text, String what) {
    RawInput input = new RawInput(Side.SOURCE, text, Origin.fileLine("file:/t", 7), RECORD_TIME);
    Event tree = null;
    String treeError = null;
    try {
      tree = parser.parseTree(input, new EventParser.Scratch());
    } catch (InvalidEventException e) {
      treeError = e.getMessage();
    }
    Event streamed = null;
    try {
      streamed = parser.parse(input, scratch);
      if (treeError != null) {
        fail(what + ": the tree path rejects (" + treeError + "), parse accepts");
      }
    } catch (InvalidEventException e) {
      assertEquals(what, treeError, e.getMessage());
    }
    assertEquals(what, tree, streamed);
    if (tree != null) {
      assertNotNull(streamed);
      return true;
    }
    assertNull(streamed);
    return false;
  }

  /** An event: id and eventTime of varied validity, and random members, in random order. */
  private static ObjectNode event(SplittableRandom r) {
    ObjectNode o = NODES.objectNode();
    List<Map.Entry<String, JsonNode>> members = new ArrayList<>();
    if (r.nextInt(12) > 0) {
      members.add(Map.entry("id", id(r)));
    }
    if (r.nextInt(12) > 0) {
      members.add(Map.entry("eventTime", time(r)));
    }
    if (r.nextBoolean()) {
      members.add(Map.entry("a", id(r)));
    }
    if (r.nextInt(4) == 0) {
      ObjectNode nested = NODES.objectNode();
      nested.set("id", id(r));
      members.add(Map.entry("o", nested));
    }
    members.add(Map.entry("note", NODES.textNode("n".repeat(r.nextInt(300)))));
    JsonNode rest = CanonicalHashEquivalenceTest.value(r, 2);
    if (rest instanceof ObjectNode restObject) {
      for (Iterator<Map.Entry<String, JsonNode>> it = restObject.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        if (!e.getKey().equals("id") && !e.getKey().equals("eventTime")) {
          members.add(e);
        }
      }
    } else {
      members.add(Map.entry("b", rest));
    }
    for (int i = members.size() - 1; i > 0; i--) {
      int j = r.nextInt(i + 1);
      Map.Entry<String, JsonNode> t = members.get(i);
      members.set(i, members.get(j));
      members.set(j, t);
    }
    for (Map.Entry<String, JsonNode> e : members) {
      o.set(e.getKey(), e.getValue());
    }
    return o;
  }

  private static JsonNode id(SplittableRandom r) {
    return switch (r.nextInt(10)) {
      case 0 -> NODES.numberNode(r.nextInt(1000));
      case 1 -> NODES.numberNode(new java.math.BigDecimal("42.0"));
      case 2 -> NODES.textNode(" ");
      case 3 -> NODES.textNode("");
      case 4 -> NODES.booleanNode(true);
      case 5 -> NODES.textNode("k\"" + r.nextInt(100));
      default -> NODES.textNode("k" + r.nextInt(100_000));
    };
  }

  private static JsonNode time(SplittableRandom r) {
    return switch (r.nextInt(10)) {
      case 0 -> NODES.numberNode(1_767_225_600_123L + r.nextInt(1000));
      case 1 -> NODES.numberNode(new java.math.BigDecimal("1767225600123.5"));
      case 2 -> NODES.textNode("2026-01-01T00:00:00");
      case 3 -> NODES.textNode("2026-01-01T02:00:00.123456+02:00");
      case 4 -> NODES.nullNode();
      default -> NODES.textNode("2026-01-0" + (1 + r.nextInt(9)) + "T00:00:00.5Z");
    };
  }

  /**
   * JSON text of a tree, in one of several styles: compact, with whitespace, with every non-ASCII
   * character escaped, with a duplicate member, trailing data or a byte order mark added.
   */
  private static byte[] write(SplittableRandom r, JsonNode node, int style) {
    StringBuilder sb = new StringBuilder();
    write(r, node, style, sb);
    if (r.nextInt(40) == 0) {
      sb.insert(1, "\"note\":1,");
    }
    if (r.nextInt(60) == 0) {
      sb.append(r.nextBoolean() ? " " : "x");
    }
    if (r.nextInt(20) == 0) {
      sb.insert(0, '\uFEFF'); // a byte order mark, which editors on Windows write
    }
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static void write(SplittableRandom r, JsonNode node, int style, StringBuilder sb) {
    String space = style == 1 ? (r.nextBoolean() ? " " : "\n\t ") : "";
    if (node.isObject()) {
      sb.append('{').append(space);
      boolean first = true;
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        if (!first) {
          sb.append(',').append(space);
        }
        first = false;
        string(e.getKey(), style, sb);
        sb.append(space).append(':').append(space);
        write(r, e.getValue(), style, sb);
      }
      sb.append(space).append('}');
    } else if (node.isArray()) {
      sb.append('[').append(space);
      for (int i = 0; i < node.size(); i++) {
        if (i > 0) {
          sb.append(',').append(space);
        }
        write(r, node.get(i), style, sb);
      }
      sb.append(space).append(']');
    } else if (node.isTextual()) {
      string(node.textValue(), style, sb);
    } else if (node.isBigDecimal() && style == 3) {
      sb.append(node.decimalValue().toString().replace("E", "e"));
    } else {
      sb.append(node.toString());
    }
  }

  private static void string(String s, int style, StringBuilder sb) {
    sb.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      boolean pair =
          Character.isHighSurrogate(c)
              && i + 1 < s.length()
              && Character.isLowSurrogate(s.charAt(i + 1));
      if (c == '"' || c == '\\') {
        sb.append('\\').append(c);
      } else if (c < 0x20 || (Character.isSurrogate(c) && !pair) || (style == 2 && c > 0x7e)) {
        sb.append(String.format("\\u%04x", (int) c));
      } else if (style == 3 && c == '/') {
        sb.append("\\/");
      } else {
        sb.append(c);
        if (pair) {
          sb.append(s.charAt(++i));
        }
      }
    }
    sb.append('"');
  }
}
