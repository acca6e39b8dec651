package io.streamrecon.bench;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.JUnit4;

/** {@link LineReader} returns every non-empty line, whatever the line lengths and buffer fills. */
@RunWith(JUnit4.class)
public class LineReaderTest {
  @Test
  public void returnsEveryNonEmptyLineWithNewlinesAtEveryOffset() throws IOException {
    SplittableRandom r = new SplittableRandom(11);
    for (int round = 0; round < 50; round++) {
      List<String> lines = new ArrayList<>();
      ByteArrayOutputStream text = new ByteArrayOutputStream();
      int n = r.nextInt(1, 60);
      for (int i = 0; i < n; i++) {
        int length = r.nextInt(10) == 0 ? r.nextInt(70_000, 140_000) : r.nextInt(0, 40);
        String line = "é".repeat(length % 3) + "x".repeat(length);
        text.writeBytes(line.getBytes(StandardCharsets.UTF_8));
        if (!line.isEmpty()) {
          lines.add(line);
        }
        if (i < n - 1 || r.nextBoolean()) {
          text.write('\n');
        }
      }
      try (LineReader in = new LineReader(new ByteArrayInputStream(text.toByteArray()))) {
        for (String expected : lines) {
          assertArrayEquals(expected.getBytes(StandardCharsets.UTF_8), in.next());
        }
        assertNull(in.next());
      }
    }
  }

  @Test
  public void newlineSkipsOnlyWordsWithoutANewline() {
    for (int at = 0; at < 24; at++) {
      byte[] b = "a".repeat(24).getBytes(StandardCharsets.US_ASCII);
      b[at] = '\n';
      int from = LineReader.newline(b, 0, b.length);
      // at most 15 bytes before the newline are left to the byte loop, and never one after it
      assertTrue(from + " for " + at, from <= at && at - from < 16);
    }
  }
}
