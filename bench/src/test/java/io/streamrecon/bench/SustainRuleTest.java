package io.streamrecon.bench;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import io.streamrecon.bench.SustainRule.Sample;
import io.streamrecon.bench.SustainRule.Verdict;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntToLongFunction;
import org.junit.Test;

public class SustainRuleTest {
  private static final double RATE = 1_000; // events/s
  private static final double PLANNED = 300;

  /** A sample every 20 s over 5 minutes, lag in events from the sample's index. */
  private static List<Sample> samples(IntToLongFunction lagEvents) {
    List<Sample> out = new ArrayList<>();
    for (int i = 1; i <= 15; i++) {
      out.add(new Sample(i * 20.0, lagEvents.applyAsLong(i)));
    }
    return out;
  }

  @Test
  public void aFlatFewSecondLagHolds() {
    Verdict v = SustainRule.judge(samples(i -> 4_000 + (i % 2) * 2_000), RATE, PLANNED, 301, 6);
    assertTrue(v.reason(), v.held());
    assertEquals(6.0, v.maxLagSeconds(), 1e-9);
  }

  @Test
  public void theWarmUpIsNotJudged() {
    // 50 s behind while starting, then 3 s.
    Verdict v = SustainRule.judge(samples(i -> i <= 3 ? 50_000 : 3_000), RATE, PLANNED, 300, 3);
    assertTrue(v.reason(), v.held());
  }

  @Test
  public void aLagAboveTheBoundIsNotHeld() {
    Verdict v = SustainRule.judge(samples(i -> i == 9 ? 31_000 : 3_000), RATE, PLANNED, 300, 3);
    assertFalse(v.held());
    assertThat(v.reason(), containsString("lag reached 31.0 s"));
  }

  @Test
  public void aGrowingLagBelowTheBoundIsNotHeld() {
    // 2 s more every sample: 8 s to 30 s, never above the bound, but the engine falls behind.
    Verdict v = SustainRule.judge(samples(i -> 2_000L * i), RATE, PLANNED, 300, 20);
    assertFalse(v.held());
    assertThat(v.reason(), containsString("lag grew"));
  }

  @Test
  public void aSlowDrainIsNotHeld() {
    Verdict v = SustainRule.judge(samples(i -> 3_000), RATE, PLANNED, 300, 45);
    assertFalse(v.held());
    assertThat(v.reason(), containsString("45 s after production"));
    assertFalse(SustainRule.judge(samples(i -> 3_000), RATE, PLANNED, 300, -1).held());
  }

  @Test
  public void aProducerThatFellBehindMakesTheTrialNotHeld() {
    Verdict v = SustainRule.judge(samples(i -> 3_000), RATE, PLANNED, 330, 3);
    assertFalse(v.held());
    assertThat(v.reason(), containsString("the producer fell behind"));
  }

  @Test
  public void tooFewSamplesCannotBeJudged() {
    Verdict v = SustainRule.judge(List.of(new Sample(70, 0), new Sample(80, 0)), RATE, 90, 90, 1);
    assertFalse(v.held());
    assertThat(v.reason(), containsString("fewer than 3 samples"));
  }

  /** Spark: storage keeps up (a late batch reads more) while the batches fall behind schedule. */
  @Test
  public void batchesFallingBehindScheduleAreNotHeld() {
    List<Sample> growing = new ArrayList<>();
    List<Sample> steady = new ArrayList<>();
    for (int i = 1; i <= 15; i++) {
      growing.add(new Sample(i * 20.0, 10_000, 10.0 + 4 * i)); // 14 s ... 70 s behind
      steady.add(new Sample(i * 20.0, 10_000, i % 2 == 0 ? 30 : 10));
    }
    Verdict v = SustainRule.judge(growing, RATE, PLANNED, 300, 5);
    assertFalse(v.held());
    assertThat(v.reason(), containsString("behind schedule"));
    assertTrue(SustainRule.judge(steady, RATE, PLANNED, 300, 5).held());

    List<Sample> slowGrowth = new ArrayList<>();
    for (int i = 1; i <= 15; i++) {
      slowGrowth.add(new Sample(i * 20.0, 10_000, 10.0 + 2 * i)); // 18 s ... 40 s, below 60
    }
    Verdict g = SustainRule.judge(slowGrowth, RATE, PLANNED, 300, 5);
    assertFalse(g.held());
    assertThat(g.reason(), containsString("fell further behind schedule"));
  }
}
