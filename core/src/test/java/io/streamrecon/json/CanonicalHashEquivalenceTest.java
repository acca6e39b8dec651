package io.streamrecon.json;

import static org.junit.Assert.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.JUnit4;

/**
 * Stored hashes must not change: the block-wise canonical writer and digest of {@link
 * CanonicalJson} must give, for every document, exactly the canonical text and SHA-256 of the
 * char-at-a-time algorithm it replaced ({@link LegacyCanonicalJson}), and the key order must be the
 * same. Random documents (fixed seeds, so a failure reproduces) stress what the fast paths
 * special-case: escapes, control characters, 2-, 3- and 4-byte characters, paired and unpaired
 * surrogates, keys around the surrogate/U+E000 ordering trap, numbers of every node type and
 * strings longer than the digest block.
 */
@RunWith(JUnit4.class)
public class CanonicalHashEquivalenceTest {
  private static final JsonNodeFactory NODES = JsonNodeFactory.withExactBigDecimals(true);

  /** Characters chosen to hit every branch of the string encoder. */
  private static final char[] SPECIAL = {
    '"', '\\', '/', '\b', '\f', '\n', '\r', '\t', 0, 1, 0x1f, 0x20, 0x7f, 0x80, 0xe9, 0x7ff, 0x800,
    0x2028, 0xd7ff, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0xe000, 0xfeff, 0xfffd, 0xffff, 'a', 'Z', '~'
  };

  @Test
  public void blockDigestEqualsTheCharAtATimeDigestOnRandomDocuments() {
    CanonicalJson.Hasher reused = new CanonicalJson.Hasher();
    for (int seed = 0; seed < 3000; seed++) {
      SplittableRandom random = new SplittableRandom(seed);
      JsonNode doc = value(random, 0);
      assertSame(seed, doc, reused);
    }
  }

  @Test
  public void longStringsCrossTheBlockAtEveryOffset() {
    CanonicalJson.Hasher reused = new CanonicalJson.Hasher();
    SplittableRandom random = new SplittableRandom(7);
    for (String unit : List.of("a", "é", "€", "\uD83D\uDE00", "\\", "\n", "\u0001", "\uD800")) {
      for (int n = 1300; n < 1400; n += 3) {
        ObjectNode node = NODES.objectNode();
        node.put("k", unit.repeat(n));
        node.put("pad" + unit, string(random, random.nextInt(40)));
        assertSame(unit + n, node, reused);
        // and as several strings in a row, so every string starts at a different buffer offset
        ArrayNode array = NODES.arrayNode();
        for (int i = 0; i < 12; i++) {
          array.add(unit.repeat(n / 12 + i) + string(random, 5));
        }
        assertSame(unit + n + "[]", array, reused);
      }
    }
    ObjectNode huge = NODES.objectNode();
    huge.put("s", string(new SplittableRandom(3), 200_000));
    assertSame("200k chars", huge, reused);
  }

  @Test
  public void numbersOfEveryNodeTypeMatch() {
    CanonicalJson.Hasher reused = new CanonicalJson.Hasher();
    List<JsonNode> numbers =
        List.of(
            NODES.numberNode(0),
            NODES.numberNode(-1),
            NODES.numberNode(Integer.MIN_VALUE),
            NODES.numberNode(Long.MIN_VALUE),
            NODES.numberNode(Long.MAX_VALUE),
            NODES.numberNode(100_000_000_000_000_000L),
            NODES.numberNode((short) -7),
            NODES.numberNode((byte) 3),
            NODES.numberNode(1.5f),
            NODES.numberNode(0.1),
            NODES.numberNode(-0.0),
            NODES.numberNode(1e300),
            NODES.numberNode(new BigInteger("123456789012345678901234567890")),
            NODES.numberNode(new BigInteger("-100000000000000000000")),
            NODES.numberNode(new BigInteger("1000000000000000000000")),
            NODES.numberNode(new BigDecimal("1e999999999")),
            NODES.numberNode(new BigDecimal("-0.000001000")),
            NODES.numberNode(new BigDecimal("0.0000001")),
            NODES.numberNode(new BigDecimal("12.50")),
            NODES.numberNode(new BigDecimal("-0E-5")));
    for (JsonNode n : numbers) {
      assertSame(n.toString(), n, reused);
      ArrayNode wrapped = NODES.arrayNode().add(n).add(n);
      assertSame(n + " in an array", wrapped, reused);
    }
  }

  @Test
  public void parsedDocumentsWithEscapesMatch() throws InvalidEventException {
    CanonicalJson.Hasher reused = new CanonicalJson.Hasher();
    for (String json :
        List.of(
            "{\"b\":\"\\uD83D\\uDE00 \\u00e9\",\"a\":1.0,\"\\uDBFF\\uDFFF\":[],\"\\uE000\":{}}",
            "[\"\\uD800\",\"\\uDC00x\",\"x\\uD800\\uD800\\uDC00\",\"\\u0000\\u001f\\\"\\\\\\/\"]",
            "{\"n\":[1e400,-1E-400,0.0,-0,123456789012345678901234567890,1.000e3]}",
            "{\"deep\":[[[[[[{\"z\":{\"y\":[true,false,null]}}]]]]]]}",
            "{}",
            "[]",
            "\"\"",
            "0")) {
      JsonNode node = JsonSupport.parse(json.getBytes(StandardCharsets.UTF_8));
      assertSame(json, node, reused);
    }
  }

  @Test
  public void keyOrderIsCodePointOrderAsBefore() {
    for (int seed = 0; seed < 200_000; seed++) {
      SplittableRandom random = new SplittableRandom(seed);
      String a = key(random);
      String b = random.nextInt(4) == 0 ? a + key(random) : key(random);
      if (random.nextBoolean()) {
        String c = a;
        a = b;
        b = c;
      }
      assertEquals(
          a + " vs " + b,
          Integer.signum(LegacyCanonicalJson.compareCodePoints(a, b)),
          Integer.signum(CanonicalJson.compareCodePoints(a, b)));
    }
  }

  private static void assertSame(Object what, JsonNode node, CanonicalJson.Hasher reused) {
    String form = LegacyCanonicalJson.canonicalForm(node);
    String hash = LegacyCanonicalJson.sha256(node);
    assertEquals("canonical form of " + what, form, CanonicalJson.canonicalForm(node));
    assertEquals("hash of " + what, hash, CanonicalJson.sha256(node));
    assertEquals("reused hasher on " + what, hash, reused.sha256(node));
  }

  static JsonNode value(SplittableRandom r, int depth) {
    int kind = r.nextInt(depth > 4 ? 6 : 9);
    switch (kind) {
      case 0:
        return NODES.textNode(string(r, r.nextInt(r.nextInt(10) == 0 ? 3000 : 30)));
      case 1:
        return NODES.numberNode(r.nextLong() >> r.nextInt(64));
      case 2:
        return NODES.numberNode(r.nextInt() >> r.nextInt(32));
      case 3:
        return NODES.numberNode(
            new BigDecimal(BigInteger.valueOf(r.nextLong()).shiftLeft(r.nextInt(80)))
                .scaleByPowerOfTen(r.nextInt(60) - 30));
      case 4:
        return r.nextBoolean() ? NODES.booleanNode(r.nextBoolean()) : NODES.nullNode();
      case 5:
        return NODES.numberNode(
            new BigInteger(r.nextInt(1, 100), new java.util.Random(r.nextLong())));
      case 6:
      case 7:
        {
          ObjectNode o = NODES.objectNode();
          int n = r.nextInt(12);
          for (int i = 0; i < n; i++) {
            o.set(key(r), value(r, depth + 1));
          }
          return o;
        }
      default:
        {
          ArrayNode a = NODES.arrayNode();
          int n = r.nextInt(10);
          for (int i = 0; i < n; i++) {
            a.add(value(r, depth + 1));
          }
          return a;
        }
    }
  }

  private static String key(SplittableRandom r) {
    return string(r, r.nextInt(6));
  }

  private static String string(SplittableRandom r, int length) {
    StringBuilder sb = new StringBuilder(length);
    int mode = r.nextInt(4); // mostly ASCII, as real events are, sometimes anything
    for (int i = 0; i < length; i++) {
      int pick = r.nextInt(10);
      if (mode > 0 && pick < 8) {
        sb.append((char) r.nextInt(0x20, 0x7f));
      } else if (pick < 5) {
        sb.append(SPECIAL[r.nextInt(SPECIAL.length)]);
      } else if (pick < 7) {
        sb.appendCodePoint(r.nextInt(0x10000, 0x110000)); // a valid pair
      } else {
        sb.append((char) r.nextInt(0x10000)); // anything, lone surrogates included
      }
    }
    return sb.toString();
  }
}
