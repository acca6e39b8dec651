package io.streamrecon.pipeline.io;

import static org.junit.Assert.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.beam.sdk.io.kafka.KafkaRecord;
import org.apache.beam.sdk.io.kafka.KafkaTimestampType;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.kafka.common.TopicPartition;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.Test;

public class PayloadTimestampPolicyTest {
  private static final Duration BOUND = Duration.standardSeconds(30);
  private static final Duration IDLE = PayloadTimestampPolicy.DEFAULT_IDLE_AFTER;
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
    assertEquals(NOW.minus(BOUND), idleUntilNow(p));
  }

  @Test
  public void emptyPartitionIsMinUntilKnownIdle() {
    PayloadTimestampPolicy p =
        new PayloadTimestampPolicy(new EventTimeExtractor("/t"), BOUND, Optional.empty());
    assertEquals(BoundedWindow.TIMESTAMP_MIN_VALUE, p.watermark(3, NOW, NOW));
    assertEquals(NOW.minus(BOUND), idleUntilNow(p));
  }

  @Test
  public void futureEventTimesDoNotPushWatermarkPastWallClock() {
    PayloadTimestampPolicy p =
        new PayloadTimestampPolicy(new EventTimeExtractor("/t"), BOUND, Optional.empty());
    p.getTimestampForRecord(null, record(NOW.plus(Duration.standardDays(1)), NOW));
    assertEquals(NOW.minus(BOUND), p.watermark(5, NOW, NOW));
  }

  @Test
  public void resumesFromPreviousWatermark() {
    PayloadTimestampPolicy p =
        new PayloadTimestampPolicy(
            new EventTimeExtractor("/t"), BOUND, Optional.of(T.minus(BOUND)));
    assertEquals(T.minus(BOUND), p.watermark(5, NOW, NOW));
  }

  @Test
  public void aReplayedOldTopicGoesIdleLikeAnyOther() {
    // Records appended now with event times a year old: the topic is replayed or backfilled.
    PayloadTimestampPolicy p =
        new PayloadTimestampPolicy(new EventTimeExtractor("/t"), BOUND, Optional.empty());
    Instant old = NOW.minus(Duration.standardDays(365));
    p.getTimestampForRecord(null, record(old, NOW.minus(IDLE)));
    assertEquals(old.minus(BOUND), p.watermark(3, NOW.minus(31_000), NOW.minus(31_000)));
    assertEquals(NOW.minus(BOUND), idleUntilNow(p));
  }

  @Test
  public void anUnknownBacklogNeitherStartsNorEndsTheObservation() {
    PayloadTimestampPolicy p = policyWithMax(T);
    observeEmpty(p, NOW.minus(IDLE), NOW.minus(15_000));
    // A new reader does not know its backlog for a moment.
    assertEquals(T.minus(BOUND), p.watermark(-1, NOW.minus(14_000), NOW.minus(14_000)));
    assertEquals(NOW.minus(BOUND), observeEmpty(p, NOW.minus(13_000), NOW));
  }

  @Test
  public void theWatermarkNeverGoesBack() {
    PayloadTimestampPolicy p = policyWithMax(T);
    Instant idle = idleUntilNow(p);
    assertEquals(NOW.minus(BOUND), idle);
    // A backlog appears again whose largest event time is older: the watermark stays.
    assertEquals(idle, p.watermark(7, NOW, NOW));
  }

  @Test
  public void aPartitionSeenEmptyForLessThanIdleAfterIsNotIdle() {
    PayloadTimestampPolicy p = policyWithMax(T);
    Instant w = observeEmpty(p, NOW.minus(IDLE).plus(1000), NOW);
    assertEquals(T.minus(BOUND), w);
  }

  @Test
  public void aGapInTheBacklogChecksStartsTheObservationAgain() {
    PayloadTimestampPolicy p = policyWithMax(T);
    Instant downAt = NOW.minus(Duration.standardSeconds(45));
    observeEmpty(p, downAt.minus(Duration.standardSeconds(25)), downAt);
    // The broker is back at NOW - 15 s after 30 s without an answer: the 25 s seen before the
    // outage do not count, so 15 s of checks since are not enough.
    assertEquals(T.minus(BOUND), observeEmpty(p, NOW.minus(Duration.standardSeconds(15)), NOW));
    Instant later = NOW.plus(Duration.standardSeconds(15));
    assertEquals(later.minus(BOUND), observeEmpty(p, NOW, later));
  }

  @Test
  public void aCheckThatWaitedForTheBrokerDoesNotCountItsWait() {
    PayloadTimestampPolicy p = policyWithMax(T);
    Instant downAt = NOW.minus(Duration.standardSeconds(70));
    observeEmpty(p, downAt.minus(Duration.standardSeconds(20)), downAt);
    // No answer: the last check grows stale.
    assertEquals(T.minus(BOUND), p.watermark(0, downAt, downAt.plus(15_000)));
    // The client gave up on one check after 60 s; the next one began 9 s before the broker
    // answered at NOW and carries that start as its time.
    assertEquals(T.minus(BOUND), p.watermark(0, NOW.minus(9_000), NOW));
    // So the quiet counts from NOW, when the broker answered, not from 9 s before.
    assertEquals(T.minus(BOUND), observeEmpty(p, NOW.plus(1000), NOW.plus(29_000)));
    Instant idleAt = NOW.plus(IDLE);
    assertEquals(idleAt.minus(BOUND), p.watermark(0, idleAt, idleAt));
  }

  @Test
  public void aStaleCheckDoesNotMoveTheWatermarkWithTheWallClock() {
    PayloadTimestampPolicy p = policyWithMax(T);
    Instant lastAnswer = NOW.minus(Duration.standardMinutes(1));
    Instant w = observeEmpty(p, lastAnswer.minus(IDLE), lastAnswer);
    assertEquals(lastAnswer.minus(BOUND), w);
    assertEquals(w, p.watermark(0, lastAnswer, NOW));
  }

  @Test
  public void aRecordEndsTheIdleObservation() {
    PayloadTimestampPolicy p = policyWithMax(T);
    Instant mid = NOW.minus(Duration.standardSeconds(20));
    observeEmpty(p, NOW.minus(Duration.standardSeconds(40)), mid);
    p.getTimestampForRecord(null, record(T.plus(1000), mid));
    assertEquals(T.plus(1000).minus(BOUND), observeEmpty(p, mid, NOW));
  }

  @Test
  public void aRestoredPartitionIsObservedAgainBeforeItCountsAsIdle() {
    PayloadTimestampPolicy p = policyWithMax(T);
    assertEquals(T.minus(BOUND), p.watermark(0, NOW, NOW));
  }

  @Test
  public void aReaderMadeAgainFromItsCheckpointContinuesTheObservation() {
    PayloadTimestampPolicy.Factory f = new PayloadTimestampPolicy.Factory("/t", BOUND, IDLE);
    TopicPartition tp = new TopicPartition("orders", 0);
    Optional<Instant> restored = Optional.of(T.minus(BOUND));
    PayloadTimestampPolicy first = (PayloadTimestampPolicy) f.createTimestampPolicy(tp, restored);
    observeEmpty(first, NOW.minus(Duration.standardSeconds(40)), NOW.minus(20_000));
    // The DirectRunner closes readers and makes new ones from their checkpoint every few bundles.
    PayloadTimestampPolicy second = (PayloadTimestampPolicy) f.createTimestampPolicy(tp, restored);
    assertEquals(NOW.minus(BOUND), observeEmpty(second, NOW.minus(19_000), NOW));
    // Another pipeline (or a job restored in a new JVM) observes on its own.
    PayloadTimestampPolicy other =
        (PayloadTimestampPolicy)
            new PayloadTimestampPolicy.Factory("/t", BOUND, IDLE)
                .createTimestampPolicy(tp, restored);
    assertEquals(T.minus(BOUND), observeEmpty(other, NOW.minus(19_000), NOW));
  }

  @Test
  public void theIdleThresholdIsConfigurable() {
    PayloadTimestampPolicy p =
        new PayloadTimestampPolicy(
            new EventTimeExtractor("/t"),
            BOUND,
            Duration.standardMinutes(5),
            Optional.of(T.minus(BOUND)),
            new PayloadTimestampPolicy.Observation("test"));
    assertEquals(T.minus(BOUND), idleUntilNow(p));
    Instant later = NOW.plus(Duration.standardMinutes(5));
    assertEquals(later.minus(BOUND), observeEmpty(p, NOW, later));
  }

  /** Checks finding the partition empty every second from {@code now - IDLE_AFTER} to now. */
  private static Instant idleUntilNow(PayloadTimestampPolicy p) {
    return observeEmpty(p, NOW.minus(IDLE), NOW);
  }

  /** Checks finding the partition empty every second from {@code from} to {@code to}. */
  private static Instant observeEmpty(PayloadTimestampPolicy p, Instant from, Instant to) {
    Instant w = null;
    for (Instant t = from; !t.isAfter(to); t = t.plus(1000)) {
      w = p.watermark(0, t, t);
    }
    return w;
  }

  private static KafkaRecord<byte[], byte[]> record(Instant eventTime, Instant appended) {
    return record(eventTime, appended.getMillis());
  }

  private static KafkaRecord<byte[], byte[]> record(Instant eventTime, long appendedMillis) {
    byte[] value = ("{\"t\":\"" + eventTime + "\"}").getBytes(StandardCharsets.UTF_8);
    return new KafkaRecord<>(
        "topic", 0, 0L, appendedMillis, KafkaTimestampType.CREATE_TIME, null, new byte[0], value);
  }

  private static PayloadTimestampPolicy policyWithMax(Instant max) {
    return new PayloadTimestampPolicy(
        new EventTimeExtractor("/t"), BOUND, Optional.of(max.minus(BOUND)));
  }
}
