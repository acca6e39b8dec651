package io.streamrecon.pipeline;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import org.joda.time.Duration;
import org.junit.Test;

public class DurationParserTest {
  @Test
  public void parsesShortForms() {
    assertEquals(Duration.millis(500), DurationParser.parse("timeout", "500ms"));
    assertEquals(Duration.standardSeconds(30), DurationParser.parse("timeout", "30s"));
    assertEquals(Duration.standardMinutes(10), DurationParser.parse("timeout", "10m"));
    assertEquals(Duration.standardHours(2), DurationParser.parse("timeout", "2h"));
    assertEquals(Duration.standardDays(1), DurationParser.parse("timeout", "1d"));
    assertEquals(Duration.ZERO, DurationParser.parse("timeout", "0s"));
    assertEquals(Duration.standardMinutes(10), DurationParser.parse("timeout", " 10M "));
  }

  @Test
  public void parsesIso8601() {
    assertEquals(Duration.standardMinutes(10), DurationParser.parse("timeout", "PT10M"));
    assertEquals(Duration.standardMinutes(90), DurationParser.parse("timeout", "PT1H30M"));
    assertEquals(Duration.standardDays(1), DurationParser.parse("timeout", "P1D"));
    assertEquals(Duration.millis(1500), DurationParser.parse("timeout", "PT1.5S"));
    assertEquals(Duration.standardMinutes(10), DurationParser.parse("timeout", "pt10m"));
  }

  @Test
  public void rejectsGarbageNamingTheOption() {
    for (String bad : new String[] {"", "ten minutes", "10", "-5m", "10x", "P1M", "PT-1M", "P"}) {
      IllegalArgumentException e =
          assertThrows(
              bad, IllegalArgumentException.class, () -> DurationParser.parse("timeout", bad));
      assertThat(e.getMessage(), containsString("--timeout="));
      assertThat(e.getMessage(), containsString("10m"));
    }
  }

  @Test
  public void atLeastNamesTheMinimum() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> DurationParser.parseAtLeast("commitInterval", "10ms", Duration.millis(100)));
    assertThat(e.getMessage(), containsString("--commitInterval=10ms"));
    assertThat(e.getMessage(), containsString("at least 100ms"));
  }

  @Test
  public void refusesDurationsPastWhatATimerCanHoldNamingTheOption() {
    assertEquals(DurationParser.MAX, DurationParser.parse("timeout", DurationParser.MAX_TEXT));
    for (String tooLong : new String[] {"99999999999d", "3650001d", "P3650001D", "PT87600025H"}) {
      IllegalArgumentException e =
          assertThrows(
              tooLong,
              IllegalArgumentException.class,
              () -> DurationParser.parse("timeout", tooLong));
      assertEquals(
          "--timeout=" + tooLong + " is too long: must be at most " + DurationParser.MAX_TEXT,
          e.getMessage());
    }
    assertThrows(
        IllegalArgumentException.class,
        () -> DurationParser.parseAtLeast("allowedLateness", "99999999999d", Duration.millis(1)));
  }

  @Test
  public void formatsShortest() {
    assertEquals("10m", DurationParser.format(Duration.standardMinutes(10)));
    assertEquals("2h", DurationParser.format(Duration.standardHours(2)));
    assertEquals("1500ms", DurationParser.format(Duration.millis(1500)));
    assertEquals("0ms", DurationParser.format(Duration.ZERO));
    assertEquals("1d", DurationParser.format(Duration.standardDays(1)));
  }
}
