package io.streamrecon.pipeline;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.streamrecon.model.MetricNames;
import io.streamrecon.model.Side;
import io.streamrecon.pipeline.run.Summary;
import io.streamrecon.transforms.Diff;
import io.streamrecon.transforms.pairing.PairEvents;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.Test;

/** Parsing and judging {@code --failOn} rules against a summary's counts. */
public class FailOnRulesTest {
  /**
   * 1,000 verdicts (900 match, 2 of them within tolerance; 60 mismatch; 30 missing in target; 10
   * missing in source), 2,000 non-blank input lines of which 5 dead letters, 1,995 raw events of
   * which 7 late, 3 duplicate, 1 superseded.
   */
  private static Summary summary() {
    Map<String, Long> c = new HashMap<>();
    c.put(MetricNames.input(Side.SOURCE), 1001L);
    c.put(MetricNames.input(Side.TARGET), 1001L);
    c.put(MetricNames.blankLines(Side.SOURCE), 1L);
    c.put(MetricNames.blankLines(Side.TARGET), 1L);
    c.put(MetricNames.deadLetters(Side.SOURCE), 5L);
    c.put(MetricNames.RAW_EVENTS, 1995L);
    c.put(PairEvents.METRIC_MATCH, 898L);
    c.put(PairEvents.METRIC_MISMATCH, 62L);
    c.put(Diff.MATCH_WITHIN_TOLERANCE, 2L);
    c.put(PairEvents.METRIC_MISSING_IN_TARGET, 30L);
    c.put(PairEvents.METRIC_MISSING_IN_SOURCE, 10L);
    c.put(PairEvents.METRIC_LATE, 7L);
    c.put(PairEvents.METRIC_DUPLICATE, 3L);
    c.put(PairEvents.METRIC_SUPERSEDED, 1L);
    return new Summary(c);
  }

  private static List<String> breached(String rules) {
    return FailOnRules.parse(rules).breaches(summary()).stream()
        .map(b -> b.rule().toString())
        .toList();
  }

  @Test
  public void blankMeansNoRules() {
    assertTrue(FailOnRules.parse(null).isEmpty());
    assertTrue(FailOnRules.parse(" ").isEmpty());
    assertEquals(List.of(), FailOnRules.none().breaches(summary()));
  }

  @Test
  public void countRulesCompareTheSummarysCounts() {
    // mismatch is the summary's: pairing's 62 less the 2 within tolerance.
    assertEquals(List.of("mismatch>59"), breached("mismatch>59"));
    assertEquals(List.of(), breached("mismatch>60"));
    assertEquals(List.of("mismatch>=60"), breached("mismatch>=60"));
    assertEquals(List.of("missing>39"), breached("missing>39"));
    assertEquals(List.of(), breached("missing>40"));
    assertEquals(List.of("missingInTarget>29"), breached("missingInTarget>29"));
    assertEquals(List.of(), breached("missingInSource>10"));
    assertEquals(List.of("deadLetters>=5"), breached("deadLetters>=5"));
    assertEquals(List.of("late>6"), breached("late>6"));
    assertEquals(List.of("duplicate>2", "superseded>0"), breached("duplicate>2, superseded > 0"));
  }

  @Test
  public void percentagesAreSharesOfTheWholeEachMetricIsPartOf() {
    // 60 of 1,000 verdicts = 6%.
    assertEquals(List.of("mismatch>5.99%"), breached("mismatch>5.99%"));
    assertEquals(List.of(), breached("mismatch>6%"));
    assertEquals(List.of("mismatch>=6%"), breached("mismatch>=6%"));
    // 40 of 1,000 verdicts = 4%.
    assertEquals(List.of(), breached("missing>4%"));
    // 5 of 2,000 non-blank input lines = 0.25%.
    assertEquals(List.of("deadLetters>0.2%"), breached("deadLetters>0.2%"));
    assertEquals(List.of(), breached("deadLetters>0.25%"));
    // 7 of 1,995 raw events = 0.3509%.
    assertEquals(List.of("late>0.35%"), breached("late>0.35%"));
    assertEquals(List.of(), breached("late>0.351%"));
  }

  @Test
  public void aPercentageOfNothingIsZero() {
    Summary empty = new Summary(Map.of());
    assertEquals(List.of(), FailOnRules.parse("mismatch>0%,deadLetters>0").breaches(empty));
    assertEquals(1, FailOnRules.parse("mismatch>=0%").breaches(empty).size());
  }

  @Test
  public void aBreachLineNamesTheRuleAndWhatWasSeen() {
    List<FailOnRules.Breach> b = FailOnRules.parse("mismatch>0,late>=0.1%").breaches(summary());
    assertEquals("--failOn rule mismatch>0 breached: mismatch 60", b.get(0).line());
    assertEquals(
        "--failOn rule late>=0.1% breached: late 7 of 1995 raw events (0.3509%)", b.get(1).line());
    assertEquals(null, b.get(0).observedPercent());
    assertEquals(Long.valueOf(1995), b.get(1).whole());
  }

  @Test
  public void everyBadRuleIsOneLineNamingTheOptionTheItemAndTheGrammar() {
    assertBad("mismatch>0,bogus>1", "'bogus>1' names no metric 'bogus'");
    assertBad("mismatch>x", "'mismatch>x' has no valid count");
    assertBad("mismatch>1.5", "'mismatch>1.5' has no valid count");
    assertBad("mismatch>", "'mismatch>' has no valid count");
    assertBad(
        "mismatch>99999999999999999999", "'mismatch>99999999999999999999' has a count too large");
    assertBad("mismatch>-1", "'mismatch>-1' has a negative value");
    assertBad("missing>-0.5%", "'missing>-0.5%' has a negative value");
    assertBad("missing>1.%", "'missing>1.%' has no valid percentage");
    assertBad("missing>100.01%", "'missing>100.01%' has a percentage over 100%");
    assertBad("mismatch>0,,late>1", "'mismatch>0,,late>1' has an empty rule");
    assertBad("mismatch>0,", "'mismatch>0,' has an empty rule");
    assertBad("mismatch>0,mismatch>5%", "'mismatch>5%' names mismatch a second time");
    assertBad("mismatch<3", "'mismatch<3' is not a rule");
    assertBad("mismatch=3", "'mismatch=3' is not a rule");
    // 100% itself is a valid (if odd) threshold.
    assertEquals(List.of(), breached("missing>100%"));
  }

  private static void assertBad(String rules, String item) {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> FailOnRules.parse(rules));
    assertThat(e.getMessage(), containsString("--failOn: " + item));
    assertThat(
        e.getMessage(),
        containsString(
            "rules are METRIC>VALUE or METRIC>=VALUE, comma-separated, METRIC one of mismatch,"
                + " missingInTarget, missingInSource, missing, deadLetters, late, duplicate,"
                + " superseded, VALUE a whole count (like 0 or 10) or a percentage from 0% to 100%"
                + " (like 0.1%)"));
    assertEquals(1, e.getMessage().lines().count());
  }
}
