package io.streamrecon.json;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.time.DateTimeException;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.JUnit4;

/**
 * The event-time fast path must never disagree with the ISO formatter it short-cuts: whatever it
 * answers, the formatter accepts with the same instant; whatever it declines goes to the formatter.
 * Random near-valid strings (fixed seed) probe every field's bounds, leap days, fractions of 0 to
 * 10 digits and every offset form.
 */
@RunWith(JUnit4.class)
public class EventTimeFastPathTest {

  @Test
  public void fastPathAgreesWithTheFormatterOnRandomNearValidTimes() {
    SplittableRandom r = new SplittableRandom(11);
    int fast = 0;
    for (int n = 0; n < 100_000; n++) {
      String text = candidate(r);
      check(text);
      if (EventTimes.fastIsoMillis(text) != EventTimes.NOT_FAST) {
        fast++;
      }
    }
    // Most candidates are well-formed: the fast path must actually take them.
    assertTrue("fast path taken " + fast + " times", fast > 30_000);
  }

  @Test
  public void edgeCases() {
    for (String text :
        List.of(
            "2026-01-01T00:00:00Z",
            "2024-02-29T23:59:59.999999999Z",
            "2023-02-29T00:00:00Z",
            "1900-02-29T00:00:00Z",
            "2000-02-29T00:00:00Z",
            "0000-01-01T00:00:00Z",
            "0001-01-01T00:00:00Z",
            "9999-12-31T23:59:59.999+00:00",
            "9999-12-31T23:59:59.999-18:00",
            "1970-01-01T00:00:00.5+18:00",
            "1969-12-31T23:59:59.999Z",
            "1969-12-31T23:59:59.9999Z",
            "2026-01-01T00:00:00-00:00",
            "2026-01-01T00:00:00+17:59",
            "2026-01-01T00:00:00+18:01",
            "2026-01-01T00:00:60Z",
            "2026-01-01T24:00:00Z",
            "2026-01-01t00:00:00Z",
            "2026-01-01T00:00:00z",
            "2026-01-01T00:00:00.Z",
            "2026-01-01T00:00:00.1234567891Z",
            "2026-01-01T00:00:00+0200",
            "2026-01-01T00:00:00+02",
            "2026-01-01T00:00:00+02:00:30",
            "2026-01-01T00:00Z",
            "+2026-01-01T00:00:00Z",
            "2026-1-01T00:00:00Z",
            "２026-01-01T00:00:00Z")) {
      check(text);
    }
    assertNotEquals(EventTimes.NOT_FAST, EventTimes.fastIsoMillis("2026-01-04T23:59:52.171Z"));
    assertEquals(1767571192171L, EventTimes.fastIsoMillis("2026-01-04T23:59:52.171Z"));
  }

  private static void check(String text) {
    long fast = EventTimes.fastIsoMillis(text);
    if (fast == EventTimes.NOT_FAST) {
      return;
    }
    try {
      assertEquals(text, EventTimes.formatterMillis(text), fast);
    } catch (DateTimeException | ArithmeticException e) {
      fail(text + ": the fast path gave " + fast + " but the formatter rejects it: " + e);
    }
  }

  private static String candidate(SplittableRandom r) {
    StringBuilder sb = new StringBuilder();
    sb.append(pad(r.nextInt(10) == 0 ? r.nextInt(10_000) : 1960 + r.nextInt(80), 4)).append('-');
    sb.append(pad(r.nextInt(8) == 0 ? r.nextInt(14) : 1 + r.nextInt(12), 2)).append('-');
    sb.append(pad(r.nextInt(4) == 0 ? 27 + r.nextInt(6) : r.nextInt(33), 2));
    sb.append(r.nextInt(50) == 0 ? 't' : 'T');
    sb.append(pad(r.nextInt(26), 2)).append(':');
    sb.append(pad(r.nextInt(62), 2)).append(':');
    sb.append(pad(r.nextInt(62), 2));
    int fraction = r.nextInt(12) - 1;
    if (fraction >= 0) {
      sb.append('.');
      for (int i = 0; i < fraction; i++) {
        sb.append((char) ('0' + r.nextInt(10)));
      }
    }
    switch (r.nextInt(8)) {
      case 0, 1, 2 -> sb.append('Z');
      case 3 -> sb.append(r.nextBoolean() ? "z" : "+0200");
      case 4 -> sb.append(r.nextBoolean() ? "+05" : "-03:30:15");
      default -> {
        sb.append(r.nextBoolean() ? '+' : '-');
        sb.append(pad(r.nextInt(20), 2)).append(':').append(pad(r.nextInt(61), 2));
      }
    }
    if (r.nextInt(30) == 0) {
      // one random character replaced
      int at = r.nextInt(sb.length());
      sb.setCharAt(at, (char) r.nextInt(0x20, 0x7f));
    }
    return sb.toString();
  }

  private static String pad(int v, int width) {
    String s = Integer.toString(v);
    return "0".repeat(Math.max(0, width - s.length())) + s;
  }
}
