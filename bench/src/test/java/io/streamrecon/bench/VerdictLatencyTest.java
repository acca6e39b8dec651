package io.streamrecon.bench;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.Assert.assertEquals;

import io.streamrecon.bench.VerdictLatency.Percentiles;
import io.streamrecon.bench.VerdictLatency.Summary;
import io.streamrecon.model.Status;
import java.util.List;
import org.junit.Test;

public class VerdictLatencyTest {
  private static final long TIMEOUT = 20_000;
  private static final long T = 1_780_000_000_000L;

  @Test
  public void percentilesAreNearestRank() {
    long[] samples = new long[100];
    for (int i = 0; i < 100; i++) {
      samples[i] = 100 - i; // unsorted on purpose: 100, 99, ..., 1
    }
    assertEquals(new Percentiles(100, 50, 95, 99, 100), Percentiles.of(samples, 100));

    // Ten samples: rank ceil(0.5 * 10) = 5, ceil(0.95 * 10) = 10, ceil(0.99 * 10) = 10.
    long[] ten = {7, 1, 9, 3, 5, 2, 10, 4, 8, 6};
    assertEquals(new Percentiles(10, 5, 10, 10, 10), Percentiles.of(ten, 10));

    assertEquals(new Percentiles(1, -3, -3, -3, -3), Percentiles.of(new long[] {-3}, 1));
    assertEquals(new Percentiles(0, 0, 0, 0, 0), Percentiles.of(new long[4], 0));
  }

  @Test
  public void onlyTheFirstNSamplesCount() {
    long[] samples = {30, 10, 20, 1_000_000};
    assertEquals(new Percentiles(3, 20, 30, 30, 30), Percentiles.of(samples, 3));
  }

  @Test
  public void pairLatencyRunsFromTheLaterAppendTime() {
    long[] source = {T + 1_000, T + 5_000};
    long[] target = {T + 1_500, T + 2_000};
    VerdictLatency latency = new VerdictLatency(source, target, new long[] {T, T}, TIMEOUT);
    latency.record(0, Status.MATCH, 3, T + 2_000); // target later: 2,000 - 1,500
    latency.record(1, Status.MISMATCH, 4, T + 9_000); // source later: 9,000 - 5,000
    Summary s = latency.summarize();
    assertEquals(new Percentiles(1, 500, 500, 500, 500), s.byStatus().get(Status.MATCH));
    assertEquals(new Percentiles(1, 4_000, 4_000, 4_000, 4_000), s.byStatus().get(Status.MISMATCH));
    assertEquals(0, s.byStatus().get(Status.MISSING_IN_TARGET).count());
  }

  @Test
  public void missingLatencyRunsFromEventTimePlusTimeout() {
    long[] source = {T + 100, VerdictLatency.NONE};
    long[] target = {VerdictLatency.NONE, T + 200};
    VerdictLatency latency = new VerdictLatency(source, target, new long[] {T, T + 50}, TIMEOUT);
    latency.record(0, Status.MISSING_IN_TARGET, 7, T + TIMEOUT + 1_234);
    latency.record(1, Status.MISSING_IN_SOURCE, 7, T + 50 + TIMEOUT - 10);
    Summary s = latency.summarize();
    // From event time, not from the append time of the one event that came.
    assertEquals(1_234, s.byStatus().get(Status.MISSING_IN_TARGET).max());
    assertEquals(-10, s.byStatus().get(Status.MISSING_IN_SOURCE).max());
    assertEquals(0, s.withoutTime());
  }

  @Test
  public void onlyTheLastVerdictOfAnIdCounts() {
    long[] source = {T, T, T};
    long[] target = {T, T, T};
    VerdictLatency latency = new VerdictLatency(source, target, new long[] {T, T, T}, TIMEOUT);
    // Id 0: the later commit is recorded first, the earlier one must not replace it.
    latency.record(0, Status.MATCH, 9, T + 900);
    latency.record(0, Status.MISMATCH, 5, T + 500);
    // Id 1: recorded in commit order.
    latency.record(1, Status.MISMATCH, 5, T + 500);
    latency.record(1, Status.MATCH, 9, T + 700);
    // Id 2: two rows in one commit: the one recorded last.
    latency.record(2, Status.MISMATCH, 6, T + 600);
    latency.record(2, Status.MATCH, 6, T + 600);
    Summary s = latency.summarize();
    assertEquals(new Percentiles(3, 700, 900, 900, 900), s.byStatus().get(Status.MATCH));
    assertEquals(0, s.byStatus().get(Status.MISMATCH).count());
    assertEquals(3, s.replaced());
  }

  @Test
  public void aPairWithoutBothAppendTimesIsLeftOutAndCounted() {
    long[] source = {T, T};
    long[] target = {VerdictLatency.NONE, T + 10};
    VerdictLatency latency = new VerdictLatency(source, target, new long[] {T, T}, TIMEOUT);
    latency.record(0, Status.MATCH, 1, T + 100);
    latency.record(1, Status.MATCH, 1, T + 100);
    Summary s = latency.summarize();
    assertEquals(new Percentiles(1, 90, 90, 90, 90), s.byStatus().get(Status.MATCH));
    assertEquals(1, s.withoutTime());
  }

  /** More samples than the initial buffer holds. */
  @Test
  public void manySamplesPerStatus() {
    int n = 1_000;
    long[] source = new long[n];
    long[] target = new long[n];
    long[] event = new long[n];
    VerdictLatency latency = new VerdictLatency(source, target, event, TIMEOUT);
    for (int i = 0; i < n; i++) {
      source[i] = T + i;
      target[i] = T + i;
      event[i] = T;
      latency.record(i, Status.MISMATCH, i, T + i + (i + 1)); // latencies 1..1000
    }
    assertEquals(
        new Percentiles(n, 500, 950, 990, 1_000),
        latency.summarize().byStatus().get(Status.MISMATCH));
  }

  @Test
  public void markdownHasOneRowPerStatusWithTheFigures() {
    VerdictLatency latency =
        new VerdictLatency(new long[] {T}, new long[] {T + 5}, new long[] {T}, TIMEOUT);
    latency.record(0, Status.MISMATCH, 2, T + 1_505);
    List<String> lines = latency.summarize().markdown();
    assertEquals(2 + Status.values().length + 1, lines.size());
    assertThat(
        lines.get(3),
        containsString(
            "| MISMATCH | later Kafka append time of the pair | 1 | 1,500 | 1,500 | 1,500 | 1,500 |"));
    assertThat(
        lines.get(2), containsString("| MATCH | later Kafka append time of the pair | 0 | – |"));
  }

  @Test(expected = IllegalArgumentException.class)
  public void arraysOfDifferentLengthsAreRejected() {
    new VerdictLatency(new long[2], new long[2], new long[1], TIMEOUT);
  }
}
