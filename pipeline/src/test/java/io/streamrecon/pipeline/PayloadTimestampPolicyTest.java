package io.streamrecon.pipeline;

import static org.junit.Assert.assertEquals;

import java.util.Optional;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.Test;

public class PayloadTimestampPolicyTest {
  private static final Duration BOUND = Duration.standardSeconds(30);
  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
  private static final Instant T = Instant.parse("2025-06-01T00:00:00Z");

  @Test
  public void watermarkTrailsMaxEventTimeWhileBacklogRemains() {
    PayloadTimestampPolicy p = policyWithMax(T);
    assertEquals(T.minus(BOUND), p.watermark(5, NOW, NOW));
    assertEquals("backlog unknown is not idle", T.minus(BOUND), p.watermark(-1, NOW, NOW));
  }

  @Test
  public void idlePartitionAdvancesWithWallClock() {
    PayloadTimestampPolicy p = policyWithMax(T);
    assertEquals(NOW.minus(BOUND), p.watermark(0, NOW, NOW));
  }

  @Test
  public void emptyPartitionIsMinUntilKnownIdle() {
    PayloadTimestampPolicy p =
        new PayloadTimestampPolicy(new EventTimeExtractor("/t"), BOUND, Optional.empty());
    assertEquals(BoundedWindow.TIMESTAMP_MIN_VALUE, p.watermark(3, NOW, NOW));
    assertEquals(NOW.minus(BOUND), p.watermark(0, NOW, NOW));
  }

  @Test
  public void futureEventTimesDoNotPushWatermarkPastWallClock() {
    PayloadTimestampPolicy p = policyWithMax(NOW.plus(Duration.standardDays(1)));
    assertEquals(NOW.minus(BOUND), p.watermark(5, NOW, NOW));
  }

  @Test
  public void resumesFromPreviousWatermark() {
    PayloadTimestampPolicy p =
        new PayloadTimestampPolicy(
            new EventTimeExtractor("/t"), BOUND, Optional.of(T.minus(BOUND)));
    assertEquals(T.minus(BOUND), p.watermark(5, NOW, NOW));
  }

  private static PayloadTimestampPolicy policyWithMax(Instant max) {
    return new PayloadTimestampPolicy(
        new EventTimeExtractor("/t"), BOUND, Optional.of(max.minus(BOUND)));
  }
}
