package io.streamrecon.json;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.JUnit4;

/**
 * {@link JsonSupport#parse} reads bytes with Jackson's byte parser when it can; it must accept and
 * reject exactly what the decode-then-parse path ({@link JsonSupport#parseDecoded}) does, give
 * equal trees (numbers with their scale) and the same error messages. Random documents (fixed
 * seeds) with non-ASCII text, escapes, byte order marks, whitespace, and random byte damage.
 */
@RunWith(JUnit4.class)
public class JsonSupportFastParseTest {

  @Test
  public void fastPathReadsWhatTheDecodingPathReads() {
    int accepted = 0;
    for (int seed = 0; seed < 1000; seed++) {
      SplittableRandom r = new SplittableRandom(seed);
      byte[] bytes = text(r);
      if (r.nextInt(3) == 0) {
        bytes = damage(r, bytes);
      }
      if (same(bytes)) {
        accepted++;
      }
    }
    assertTrue("accepted " + accepted, accepted > 500);
  }

  @Test
  public void edgeCases() {
    for (String s :
        new String[] {
          "{}",
          "[]",
          "1",
          "12",
          "123",
          "1234",
          "\"ab\"",
          " {} ",
          "\uFEFF{\"a\":1}",
          "\uFEFF\uFEFF{\"a\":1}",
          "{\"a\":1} x",
          "{\"a\":1}{}",
          "   ",
          "",
          "\u0000{}  ",
          "{\"a\":1,\"a\":2}",
          "{\"x\":{\"b\":[],\"b\":{}}}",
          "[{\"a\":null,\"a\":null}]",
          "{\"a\":1e-2147483649}",
          "{\"a\":1e400}",
          "{\"é\":\"\uD83D\uDE00\"}",
          "[".repeat(1001) + "]".repeat(1001),
          "{\"a\":\"\\uD800\"}",
          "{\"a\":tru}"
        }) {
      same(s.getBytes(StandardCharsets.UTF_8));
    }
    // invalid UTF-8: overlong, encoded surrogate, beyond U+10FFFF, truncated, lone continuation
    for (byte[] b :
        new byte[][] {
          {'{', '"', 'a', '"', ':', '"', (byte) 0xC0, (byte) 0x80, '"', '}'},
          {'{', '"', 'a', '"', ':', '"', (byte) 0xED, (byte) 0xA0, (byte) 0x80, '"', '}'},
          {
            '{',
            '"',
            'a',
            '"',
            ':',
            '"',
            (byte) 0xF4,
            (byte) 0x90,
            (byte) 0x80,
            (byte) 0x80,
            '"',
            '}'
          },
          {'{', '"', 'a', '"', ':', '"', (byte) 0xE2, (byte) 0x82, '"', '}'},
          {'{', '"', 'a', '"', ':', '"', (byte) 0x80, '"', '}'},
          {(byte) 0xFF, (byte) 0xFE, '{', 0, '}', 0},
          {0, '{', 0, '}'},
        }) {
      assertFalse(JsonSupport.isStrictUtf8(b) && b[0] != 0);
      same(b);
    }
  }

  @Test
  public void strictUtf8CheckAgreesWithTheJdkDecoder() {
    SplittableRandom r = new SplittableRandom(5);
    for (int n = 0; n < 30_000; n++) {
      byte[] b = new byte[r.nextInt(1, 12)];
      for (int i = 0; i < b.length; i++) {
        b[i] = (byte) (r.nextInt(4) == 0 ? r.nextInt(0x80) : r.nextInt(0x80, 0x100));
      }
      boolean jdk;
      try {
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT)
            .decode(ByteBuffer.wrap(b));
        jdk = true;
      } catch (CharacterCodingException e) {
        jdk = false;
      }
      assertEquals(Arrays.toString(b), jdk, JsonSupport.isStrictUtf8(b));
    }
  }

  /** Asserts both paths agree; true if the input was accepted. */
  private static boolean same(byte[] bytes) {
    JsonNode expected = null;
    String expectedError = null;
    try {
      expected = JsonSupport.parseDecoded(bytes);
    } catch (InvalidEventException e) {
      expectedError = e.getMessage();
    }
    JsonNode actual = null;
    String actualError = null;
    try {
      actual = JsonSupport.parse(bytes);
    } catch (InvalidEventException e) {
      actualError = e.getMessage();
    }
    String what = new String(bytes, StandardCharsets.UTF_8);
    assertEquals(what, expectedError, actualError);
    assertEquals(what, expected, actual);
    if (expected != null) {
      // equal trees, and equal canonical text (which also compares number node types' output)
      assertEquals(
          what, LegacyCanonicalJson.canonicalForm(expected), CanonicalJson.canonicalForm(actual));
      assertEquals(what, expected.toString(), actual.toString());
    }
    return expected != null;
  }

  private static byte[] text(SplittableRandom r) {
    JsonNode doc = CanonicalHashEquivalenceTest.value(r, 0);
    String text = LegacyCanonicalJson.canonicalForm(doc);
    if (r.nextBoolean()) {
      text = text.replace(",", r.nextBoolean() ? " , " : ",\n\t");
    }
    if (r.nextInt(10) == 0) {
      text = "\uFEFF" + text;
    }
    if (r.nextInt(10) == 0) {
      text = "  " + text + "\r\n";
    }
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] damage(SplittableRandom r, byte[] b) {
    if (b.length == 0) {
      return b;
    }
    byte[] c = b.clone();
    int at = r.nextInt(c.length);
    switch (r.nextInt(4)) {
      case 0 -> c[at] = (byte) r.nextInt(256);
      case 1 -> c[at] = (byte) (0x80 | r.nextInt(0x80));
      case 2 -> c = Arrays.copyOf(c, at); // truncated
      default -> c[at] = 0;
    }
    return c;
  }
}
