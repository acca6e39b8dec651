package io.streamrecon.pipeline.report;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

/** Escaping, truncation, index collapsing and the other pure helpers of the report. */
public class TextTest {
  @Test
  public void escapesMarkupQuotesAndControlCharacters() {
    assertEquals(
        "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;",
        Text.html("<script>alert(\"x\")</script> & 'y'"));
    assertEquals("a\\u0000b\tc", Text.html("a\u0000b\tc"));
    assertEquals("", Text.html(null));
  }

  @Test
  public void truncatesByCodePointsAndSaysHowMuchWasCut() {
    assertEquals("abc", Text.truncate("abc", 3));
    assertEquals("ab… (1 more characters)", Text.truncate("abc", 2));
    // A surrogate pair (one code point) is never split.
    String emoji = "\uD83D\uDE00\uD83D\uDE00";
    assertEquals("\uD83D\uDE00… (1 more characters)", Text.truncate(emoji, 1));
    assertEquals(null, Text.truncate(null, 3));
  }

  @Test
  public void collapsesArrayIndexesOnly() {
    assertEquals("/items/*/qty", Text.collapseIndexes("/items/3/qty"));
    assertEquals("/a/*/b/*", Text.collapseIndexes("/a/10/b/0"));
    // Not canonical indexes: leading zero, sign, letters, the empty member name.
    assertEquals("/a/01/x1/-1/", Text.collapseIndexes("/a/01/x1/-1/"));
    assertEquals("/status", Text.collapseIndexes("/status"));
    assertEquals("", Text.collapseIndexes(""));
  }

  @Test
  public void shellWordsSurviveTheShell() {
    assertEquals("ord-00022", Text.shellWord("ord-00022"));
    assertEquals("'a b'", Text.shellWord("a b"));
    assertEquals("'it'\"'\"'s'", Text.shellWord("it's"));
    assertEquals("'$(rm -rf x)'", Text.shellWord("$(rm -rf x)"));
    // Characters a terminal acts on are written as UTF-8 bytes inside ANSI-C quotes.
    assertEquals("$'a\\x1b[31m\\'\\\\b'", Text.shellWord("a\u001b[31m'\\b"));
    assertEquals("$'\\xc2\\x85\\xe2\\x80\\xaeid\\x0a'", Text.shellWord("\u0085\u202eid\n"));
  }

  @Test
  public void bucketWidthFollowsTheSpan() {
    long t = 1_709_280_000_000L; // 2024-03-01T08:00Z
    assertEquals(TimeBuckets.Unit.MINUTE, TimeBuckets.choose(t, t + 3 * 3_600_000L));
    assertEquals(TimeBuckets.Unit.HOUR, TimeBuckets.choose(t, t + 6 * 3_600_000L));
    assertEquals(TimeBuckets.Unit.DAY, TimeBuckets.choose(t, t + 30 * 86_400_000L));
    assertEquals(TimeBuckets.Unit.WEEK, TimeBuckets.choose(t, t + 3 * 365 * 86_400_000L));
    assertTrue(
        TimeBuckets.buckets(TimeBuckets.choose(t, t + 299 * 60_000L), t, t + 299 * 60_000L)
            <= TimeBuckets.MAX_BUCKETS);
  }

  @Test
  public void nearestRankPercentiles() {
    long[] v = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    assertEquals(5, ReportReader.percentile(v, 50));
    assertEquals(9, ReportReader.percentile(v, 90));
    assertEquals(10, ReportReader.percentile(v, 99));
    assertEquals(0, ReportReader.percentile(new long[0], 50));
  }

  @Test
  public void niceAxisCoversTheMaximum() {
    long[] a = Svg.niceAxis(17);
    assertTrue(a[0] >= 17);
    assertEquals(0, a[0] % a[1]);
    assertFalse(a[0] / a[1] > 10);
  }
}
