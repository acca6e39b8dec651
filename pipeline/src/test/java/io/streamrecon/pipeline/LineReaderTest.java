package io.streamrecon.pipeline;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
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
