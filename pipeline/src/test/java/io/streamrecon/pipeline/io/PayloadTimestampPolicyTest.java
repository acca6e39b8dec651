package io.streamrecon.pipeline.io;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.streamrecon.json.EventTimeExtractor;
import io.streamrecon.model.Side;
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
  private static final Duration MINUTE = Duration.standardMinutes(1);

  /** How far behind its event times a replica or a loader appends. */
  private static final Duration LAG = Duration.standardMinutes(15);

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
    PayloadTimestampPolicy.Factory f = new PayloadTimestampPolicy.Factory("/t", BOUND, IDLE, null);
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
            new PayloadTimestampPolicy.Factory("/t", BOUND, IDLE, null)
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
            null,
            Optional.of(T.minus(BOUND)),
            new PayloadTimestampPolicy.Observation("test"));
    assertEquals(T.minus(BOUND), idleUntilNow(p));
    Instant later = NOW.plus(Duration.standardMinutes(5));
    assertEquals(later.minus(BOUND), observeEmpty(p, NOW, later));
  }

  @Test
  public void aPartitionThatRunsBehindKeepsItsLagWhenQuiet() {
    // A replica appends every record 15 minutes after its event time, then goes quiet.
    PayloadTimestampPolicy p = policy(null);
    readBehind(p, NOW.minus(Duration.standardMinutes(2)), NOW.minus(MINUTE), LAG);
    Instant w = observeEmpty(p, NOW.minus(MINUTE), NOW);
    assertEquals(NOW.minus(LAG).minus(BOUND), w);
    Instant next = p.getTimestampForRecord(null, record(NOW.minus(LAG), NOW));
    assertFalse("its next record, as late as the others, is on time", next.isBefore(w));
  }

  @Test
  public void theLargestLagOfABurstKeepsTheNextBurstOnTime() {
    // Loaded every 15 minutes: a burst carries the quarter hour before it, oldest first.
    PayloadTimestampPolicy p = policy(null);
    Instant firstBurst = NOW.minus(LAG);
    for (long m = 15; m >= 0; m--) {
      p.getTimestampForRecord(
          null, record(firstBurst.minus(Duration.standardMinutes(m)), firstBurst));
    }
    Instant w = observeEmpty(p, firstBurst, NOW);
    assertEquals(firstBurst.minus(BOUND), w);
    Instant next = p.getTimestampForRecord(null, record(firstBurst.plus(1000), NOW));
    assertFalse("the next burst's oldest record is on time", next.isBefore(w));
  }

  @Test
  public void aSpellAfterAnIdleOneKeepsItsOwnLargestLag() {
    PayloadTimestampPolicy p = policy(null);
    readBehind(
        p, NOW.minus(Duration.standardMinutes(3)), NOW.minus(Duration.standardMinutes(2)), LAG);
    observeEmpty(p, NOW.minus(Duration.standardMinutes(2)), NOW.minus(MINUTE));
    // The replica caught up: its records now come a minute after their event time.
    readBehind(p, NOW.minus(MINUTE), NOW.minus(MINUTE), MINUTE);
    assertEquals(NOW.minus(MINUTE).minus(BOUND), observeEmpty(p, NOW.minus(MINUTE), NOW));
  }

  @Test
  public void theObservedLagOutlivesTheReader() {
    PayloadTimestampPolicy.Factory f = new PayloadTimestampPolicy.Factory("/t", BOUND, IDLE, null);
    TopicPartition tp = new TopicPartition("orders", 0);
    PayloadTimestampPolicy first =
        (PayloadTimestampPolicy) f.createTimestampPolicy(tp, Optional.empty());
    readBehind(first, NOW.minus(Duration.standardMinutes(2)), NOW.minus(MINUTE), LAG);
    Instant checkpointed = first.watermark(0, NOW.minus(MINUTE), NOW.minus(MINUTE));
    // The DirectRunner makes a new reader from the checkpoint every few bundles.
    PayloadTimestampPolicy second =
        (PayloadTimestampPolicy) f.createTimestampPolicy(tp, Optional.of(checkpointed));
    assertEquals(NOW.minus(LAG).minus(BOUND), observeEmpty(second, NOW.minus(MINUTE), NOW));
  }

  @Test
  public void aDeclaredLagHoldsAPartitionThatNeverHadARecord() {
    Duration sixHours = Duration.standardHours(6);
    // --targetLag=6h, as the pipeline passes it to the target's read.
    PayloadTimestampPolicy p =
        (PayloadTimestampPolicy)
            ((MeteredTimestampPolicy)
                    ReadKafka.of(Side.TARGET, InputSpec.parse("target", "kafka://127.0.0.1:9/t"))
                        .withTimeField("/t")
                        .withMaxOutOfOrderness(BOUND)
                        .withAppendLag(sixHours)
                        .kafkaRead()
                        .getTimestampPolicyFactory()
                        .createTimestampPolicy(new TopicPartition("t", 0), Optional.empty()))
                .policy();
    Instant start = NOW.minus(IDLE);
    assertEquals(BoundedWindow.TIMESTAMP_MIN_VALUE, p.watermark(0, start, start));
    assertEquals(NOW.minus(sixHours).minus(BOUND), idleUntilNow(p));
  }

  @Test
  public void aReadTakesADeclaredLagOfZeroToSevenDays() {
    ReadKafka read = ReadKafka.of(Side.TARGET, InputSpec.parse("target", "kafka://127.0.0.1:9/t"));
    read.withAppendLag(null).withAppendLag(Duration.ZERO).withAppendLag(Duration.standardDays(7));
    assertThrows(
        IllegalArgumentException.class, () -> read.withAppendLag(Duration.standardDays(8)));
    assertThrows(IllegalArgumentException.class, () -> read.withAppendLag(Duration.millis(-1)));
  }

  @Test
  public void aDeclaredLagReplacesTheObservedOne() {
    PayloadTimestampPolicy p = policy(Duration.standardMinutes(5));
    readBehind(p, NOW.minus(Duration.standardMinutes(2)), NOW.minus(MINUTE), LAG);
    assertEquals(
        NOW.minus(Duration.standardMinutes(5)).minus(BOUND),
        observeEmpty(p, NOW.minus(MINUTE), NOW));
  }

  @Test
  public void aDeclaredLagOfZeroFollowsTheWallClock() {
    PayloadTimestampPolicy behind = policy(Duration.ZERO);
    readBehind(behind, NOW.minus(Duration.standardMinutes(2)), NOW.minus(MINUTE), LAG);
    assertEquals(NOW.minus(BOUND), observeEmpty(behind, NOW.minus(MINUTE), NOW));
    assertEquals("never read", NOW.minus(BOUND), idleUntilNow(policy(Duration.ZERO)));
  }

  @Test
  public void anObservedLagBeyondTheCapIsAReplayThatKeepsNoLag() {
    Duration cap = PayloadTimestampPolicy.MAX_OBSERVED_LAG;
    PayloadTimestampPolicy replay = policy(null);
    readBehind(replay, NOW.minus(MINUTE), NOW.minus(MINUTE), cap.plus(1000));
    assertEquals(NOW.minus(BOUND), observeEmpty(replay, NOW.minus(MINUTE), NOW));
    PayloadTimestampPolicy late = policy(null);
    readBehind(late, NOW.minus(MINUTE), NOW.minus(MINUTE), cap);
    assertEquals(NOW.minus(cap).minus(BOUND), observeEmpty(late, NOW.minus(MINUTE), NOW));
  }

  @Test
  public void aDayOldRecordIsBehindAPartitionWithASmallLag() {
    Duration twoMinutes = Duration.standardMinutes(2);
    PayloadTimestampPolicy p = policy(null);
    readBehind(p, NOW.minus(twoMinutes), NOW.minus(MINUTE), twoMinutes);
    Instant w = observeEmpty(p, NOW.minus(MINUTE), NOW);
    assertEquals(NOW.minus(twoMinutes).minus(BOUND), w);
    Instant dayOld =
        p.getTimestampForRecord(null, record(NOW.minus(Duration.standardDays(1)), NOW));
    assertTrue(dayOld.isBefore(w));
  }

  @Test
  public void aStragglerBehindTheWatermarkDoesNotBecomeTheKeptLag() {
    // An hour-old record read after a quiet spell is late (late_events); kept as the partition's
    // lag it would hold every expiry an hour back.
    PayloadTimestampPolicy p = policy(null);
    Instant firstIdle = NOW.minus(MINUTE);
    readBehind(p, firstIdle.minus(MINUTE), firstIdle.minus(MINUTE), Duration.ZERO);
    Instant w = observeEmpty(p, firstIdle.minus(MINUTE), firstIdle);
    assertEquals(firstIdle.minus(BOUND), w);
    Instant straggler =
        p.getTimestampForRecord(
            null, record(firstIdle.minus(Duration.standardHours(1)), firstIdle.plus(1000)));
    assertTrue(straggler.isBefore(w));
    assertEquals(NOW.minus(BOUND), observeEmpty(p, firstIdle.plus(2000), NOW));
    assertFalse(p.watermark(3, NOW, NOW).isBefore(NOW.minus(BOUND)));
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

  /** Reads a record a second from {@code from} to {@code to}, each {@code lag} old when read. */
  private static void readBehind(PayloadTimestampPolicy p, Instant from, Instant to, Duration lag) {
    for (Instant t = from; !t.isAfter(to); t = t.plus(1000)) {
      p.getTimestampForRecord(null, record(t.minus(lag), t));
      p.watermark(0, t, t);
    }
  }

  /** A policy without a checkpoint, its lag observed ({@code null}) or declared. */
  private static PayloadTimestampPolicy policy(Duration declaredLag) {
    return new PayloadTimestampPolicy(
        new EventTimeExtractor("/t"),
        BOUND,
        IDLE,
        declaredLag,
        Optional.empty(),
        new PayloadTimestampPolicy.Observation("test"));
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
