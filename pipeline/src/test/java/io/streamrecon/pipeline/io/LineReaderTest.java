package io.streamrecon.pipeline.io;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.Test;

public class LineReaderTest {
  private static List<String> lines(String text, int max) throws IOException {
    LineReader r =
        new LineReader(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)), max);
    List<String> out = new ArrayList<>();
    for (byte[] b = r.next(); b != null; b = r.next()) {
      out.add(new String(b, StandardCharsets.UTF_8));
    }
    return out;
  }

  @Test
  public void splitsOnNewlinesAndDropsCarriageReturns() throws IOException {
    assertEquals(List.of("a", "", "bc", "d"), lines("a\n\r\nbc\r\nd", 100));
    assertEquals(List.of("a"), lines("a\n", 100));
    assertEquals(List.of(), lines("", 100));
  }

  @Test
  public void cutsLongLinesAndKeepsCounting() throws IOException {
    assertEquals(List.of("abc", "xy", "z"), lines("abcdefgh\nxy\nz", 3));
  }

  @Test
  public void tellsACutLineFromAShortOneAndKeepsACarriageReturnInsideIt() throws IOException {
    LineReader r =
        new LineReader(
            new ByteArrayInputStream("abc\r\n  \tlong\nab\rcd\n".getBytes(StandardCharsets.UTF_8)),
            3);
    assertEquals("abc", new String(r.next(), StandardCharsets.UTF_8));
    assertEquals(false, r.lastLineCut()); // its \r\n is the terminator, not content
    // Only blanks are kept, but the line was longer: a reader must not take it for blank.
    assertEquals("  \t", new String(r.next(), StandardCharsets.UTF_8));
    assertEquals(true, r.lastLineCut());
    assertEquals("ab\r", new String(r.next(), StandardCharsets.UTF_8));
    assertEquals(true, r.lastLineCut());
    assertEquals(null, r.next());
  }

  @Test
  public void agreesWithASimpleSplitOnRandomText() throws IOException {
    SplittableRandom r = new SplittableRandom(5);
    for (int round = 0; round < 300; round++) {
      StringBuilder text = new StringBuilder();
      int n = r.nextInt(0, 30);
      for (int i = 0; i < n; i++) {
        int length = r.nextInt(8) == 0 ? r.nextInt(60_000, 70_000) : r.nextInt(0, 30);
        for (int k = 0; k < length; k++) {
          text.append("ab\r\u00e9c".charAt(r.nextInt(5)));
        }
        if (i < n - 1 || r.nextBoolean()) {
          text.append(r.nextBoolean() ? "\n" : "\r\n");
        }
      }
      int max = r.nextBoolean() ? 1 << 20 : r.nextInt(0, 40);
      assertEquals("round " + round, expected(text.toString(), max), lines(text.toString(), max));
    }
  }

  /** Split at \n (no line after a final \n), drop the line's last \r, cut to max bytes. */
  private static List<String> expected(String text, int max) {
    List<String> out = new ArrayList<>();
    byte[] all = text.getBytes(StandardCharsets.UTF_8);
    int start = 0;
    for (int i = 0; i <= all.length; i++) {
      if (i == all.length ? i > start : all[i] == '\n') {
        int content = i > start && all[i - 1] == '\r' ? i - 1 : i;
        int end = Math.min(content, start + max);
        out.add(new String(all, start, end - start, StandardCharsets.UTF_8));
        start = i + 1;
      }
    }
    return out;
  }

  @Test
  public void indexOfNewlineFindsTheFirstAtEveryOffset() {
    for (int at = 0; at < 24; at++) {
      byte[] b = "a".repeat(24).getBytes(StandardCharsets.US_ASCII);
      b[at] = '\n';
      assertEquals(at, LineReader.indexOfNewline(b, 0, b.length));
      assertEquals(at < 3 ? 24 : at, LineReader.indexOfNewline(b, Math.min(3, 24), b.length));
    }
    assertEquals(5, LineReader.indexOfNewline(new byte[5], 0, 5));
  }

  @Test
  public void linesSpanningChunksStayWhole() throws IOException {
    String big = "x".repeat(200_000);
    // A stream that returns a few bytes at a time crosses every chunk boundary.
    InputStream trickle =
        new ByteArrayInputStream((big + "\nend").getBytes(StandardCharsets.UTF_8)) {
          @Override
          public synchronized int read(byte[] b, int off, int len) {
            return super.read(b, off, Math.min(len, 7));
          }
        };
    LineReader r = new LineReader(trickle, 1 << 20);
    assertArrayEquals(big.getBytes(StandardCharsets.UTF_8), r.next());
    assertArrayEquals("end".getBytes(StandardCharsets.UTF_8), r.next());
    assertNull(r.next());
  }
}
