package io.streamrecon.pipeline.run;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.not;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import io.streamrecon.model.MetricNames;
import io.streamrecon.model.Side;
import java.util.HashMap;
import java.util.Map;
import org.junit.Test;

public class SummaryTest {
  private static Map<String, Long> balanced() {
    Map<String, Long> m = new HashMap<>();
    m.put(MetricNames.input(Side.SOURCE), 10L);
    m.put(MetricNames.input(Side.TARGET), 9L);
    m.put(MetricNames.deadLetters(Side.SOURCE), 1L);
    m.put(MetricNames.deadLetters(Side.TARGET), 2L);
    m.put(MetricNames.RAW_EVENTS, 16L);
    m.put("late", 1L);
    m.put("duplicate", 2L);
    m.put("superseded", 1L);
    m.put("events_in_verdicts", 12L);
    m.put("match", 4L);
    return m;
  }

  @Test
  public void balancedCountsAddUp() {
    Summary s = new Summary(balanced());
    assertTrue(s.addsUp());
    assertThat(s.format(), containsString("counts add up"));
    assertThat(s.format(), not(containsString("WARNING")));
  }

  /** Deleted payloads are shown; their verdicts were written and counted, so nothing is lost. */
  @Test
  public void deletedPayloadsAreShownAndCountsStillAddUp() {
    Map<String, Long> m = balanced();
    m.put(MetricNames.PAYLOADS_DELETED, 2L);
    Summary s = new Summary(m);
    assertTrue(s.addsUp());
    assertThat(s.format(), containsString("payloads deleted, not diffed"));
    assertThat(s.format(), containsString("counts add up"));
    assertTrue(Summary.counterNames().contains(MetricNames.PAYLOADS_DELETED));
    assertThat(new Summary(balanced()).format(), not(containsString("payloads deleted")));
  }

  @Test
  public void lostInputIsALoudWarningWithTheGap() {
    Map<String, Long> m = balanced();
    m.put(MetricNames.RAW_EVENTS, 15L);
    m.put("events_in_verdicts", 11L);
    Summary s = new Summary(m);
    assertFalse(s.inputAddsUp());
    assertTrue(s.rawAddsUp());
    assertThat(s.format(), containsString("WARNING: COUNTS DO NOT ADD UP"));
    assertThat(s.format(), containsString("(gap 1)"));
  }

  @Test
  public void unaccountedRawEventsAreFlagged() {
    Map<String, Long> m = balanced();
    m.put("events_in_verdicts", 10L);
    Summary s = new Summary(m);
    assertFalse(s.rawAddsUp());
    assertThat(s.format(), containsString("raw events 16 != late + duplicate"));
  }

  @Test
  public void blankLinesAreInputThatTheSummaryAccountsFor() {
    Map<String, Long> m = balanced();
    m.put(MetricNames.input(Side.SOURCE), 13L);
    m.put(MetricNames.blankLines(Side.SOURCE), 3L);
    Summary s = new Summary(m);
    assertTrue(s.addsUp());
    assertThat(s.format(), containsString("blank lines, source"));
    assertThat(s.format(), containsString("= blank lines 3 + dead letters 3 + raw events 16"));
    // A blank line read but not counted as blank would be a gap.
    m.put(MetricNames.blankLines(Side.SOURCE), 2L);
    assertFalse(new Summary(m).inputAddsUp());
    assertThat(new Summary(m).format(), containsString("(gap 1)"));
  }
}
