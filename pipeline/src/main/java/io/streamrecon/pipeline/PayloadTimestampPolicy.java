package io.streamrecon.pipeline;

import java.util.Optional;
import org.apache.beam.sdk.io.kafka.KafkaRecord;
import org.apache.beam.sdk.io.kafka.TimestampPolicy;
import org.apache.beam.sdk.io.kafka.TimestampPolicyFactory;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.kafka.common.TopicPartition;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka timestamps and watermark from the payload's event time, per partition.
 *
 * <ul>
 *   <li>Record timestamp: the event time at {@code --timeField}; the Kafka record time when the
 *       option is empty. A record whose time cannot be read (it will become a dead letter) gets
 *       the partition's largest event time so far, so it neither moves the watermark nor is late.
 *   <li>Watermark: the largest event time seen in the partition minus {@code
 *       --kafkaMaxOutOfOrderness}, never beyond wall clock minus that bound.
 *   <li>Idle partition: the watermark advances with the wall clock minus the bound minus the
 *       partition's <em>append lag</em>, so a quiet partition does not hold back expiry of the
 *       others. A partition is idle once the reader's backlog checks have found it empty, with no
 *       record read, for {@link #IDLE_AFTER} without a gap longer than {@link #MAX_CHECK_GAP}
 *       between two checks. A gap means the broker was unreachable: producers were buffering
 *       then, and records they append once it is back carry event times from the outage, so the
 *       observation starts again. A restored reader starts unobserved too. The same holds for an
 *       empty partition.
 *   <li>Append lag: how long after its event time the partition's last on-time record reached
 *       Kafka (its Kafka timestamp minus its event time, zero when negative). A producer that runs
 *       behind (a loaded host, a broker outage that made it buffer, a restart of ours that left a
 *       backlog) appends records well after their event time; without this, the wall-clock rule
 *       would move the watermark past records still to come and turn them late, or expire the
 *       entries they would pair with. Records behind the watermark (late ones) do not count.
 *   <li>The watermark never goes back.
 * </ul>
 */
final class PayloadTimestampPolicy extends TimestampPolicy<byte[], byte[]> {
  private static final Logger LOG = LoggerFactory.getLogger(PayloadTimestampPolicy.class);

  /**
   * How long a partition must be seen empty before the wall clock moves its watermark. Long
   * enough for a producer to reconnect after a broker outage (librdkafka backs off up to 10 s)
   * and flush what it buffered; short against the minutes a reconciliation timeout usually is.
   */
  static final Duration IDLE_AFTER = Duration.standardSeconds(30);

  /**
   * The longest gap between two backlog checks (KafkaIO checks every second) that still counts as
   * one unbroken observation; a check older than this is stale (the broker does not answer).
   */
  static final Duration MAX_CHECK_GAP = Duration.standardSeconds(10);

  private final EventTimeExtractor extractor;
  private final Duration maxOutOfOrderness;
  private Instant maxEventTime;
  private Duration appendLag = Duration.ZERO;
  private Instant lastWatermark;
  /** Check time since which the partition has been seen empty without a break; null if not. */
  private Instant emptySince;
  private Instant lastCheck;

  PayloadTimestampPolicy(
      EventTimeExtractor extractor, Duration maxOutOfOrderness, Optional<Instant> previous) {
    this.extractor = extractor;
    this.maxOutOfOrderness = maxOutOfOrderness;
    // Resuming from a checkpoint: the watermark then was max - bound, so max is at least that.
    this.maxEventTime =
        previous.map(w -> w.plus(maxOutOfOrderness)).orElse(BoundedWindow.TIMESTAMP_MIN_VALUE);
    this.lastWatermark = previous.orElse(BoundedWindow.TIMESTAMP_MIN_VALUE);
  }

  @Override
  public Instant getTimestampForRecord(PartitionContext ctx, KafkaRecord<byte[], byte[]> record) {
    emptySince = null;
    Instant t =
        extractor == null
            ? new Instant(record.getTimestamp())
            : extractor.extract(record.getKV().getValue());
    if (t == null) {
      return maxEventTime.isAfter(BoundedWindow.TIMESTAMP_MIN_VALUE)
          ? maxEventTime
          : new Instant(record.getTimestamp());
    }
    if (t.isAfter(maxEventTime)) {
      maxEventTime = t;
    }
    if (!t.isBefore(lastWatermark)) {
      long lag = record.getTimestamp() - t.getMillis();
      appendLag = Duration.millis(Math.max(0, lag));
    }
    return t;
  }

  @Override
  public Instant getWatermark(PartitionContext ctx) {
    return watermark(ctx.getMessageBacklog(), ctx.getBacklogCheckTime(), Instant.now());
  }

  /** The watermark for a backlog seen at {@code checkTime}, never below the last one. */
  Instant watermark(long backlog, Instant checkTime, Instant now) {
    Instant w = candidate(backlog, checkTime, now);
    if (w.isAfter(lastWatermark)) {
      lastWatermark = w;
    }
    return lastWatermark;
  }

  /** The append lag the idle rule allows for now; for tests. */
  Duration appendLag() {
    return appendLag;
  }

  private Instant candidate(long backlog, Instant checkTime, Instant now) {
    Instant wallClockBound = now.minus(maxOutOfOrderness).minus(appendLag);
    if (isIdle(backlog, checkTime, now)) {
      Instant idle = checkTime.minus(maxOutOfOrderness).minus(appendLag);
      if (idle.isAfter(maxEventTime.minus(maxOutOfOrderness))) {
        return min(idle, wallClockBound);
      }
    }
    if (maxEventTime.equals(BoundedWindow.TIMESTAMP_MIN_VALUE)) {
      return BoundedWindow.TIMESTAMP_MIN_VALUE;
    }
    return min(maxEventTime.minus(maxOutOfOrderness), now.minus(maxOutOfOrderness));
  }

  private boolean isIdle(long backlog, Instant checkTime, Instant now) {
    if (checkTime == null) {
      return false;
    }
    boolean unbroken = lastCheck != null && !checkTime.isAfter(lastCheck.plus(MAX_CHECK_GAP));
    lastCheck = checkTime;
    if (backlog != 0) {
      emptySince = null;
      return false;
    }
    if (emptySince == null || !unbroken) {
      emptySince = checkTime;
    }
    boolean stale = checkTime.isBefore(now.minus(MAX_CHECK_GAP));
    return !stale && !checkTime.isBefore(emptySince.plus(IDLE_AFTER));
  }

  private static Instant min(Instant a, Instant b) {
    return a.isBefore(b) ? a : b;
  }

  /** Creates one policy per partition. */
  static final class Factory implements TimestampPolicyFactory<byte[], byte[]> {
    private static final long serialVersionUID = 1L;
    private final String timeField;
    private final Duration maxOutOfOrderness;

    /** @param timeField JSON Pointer of the event time; empty for the Kafka record time */
    Factory(String timeField, Duration maxOutOfOrderness) {
      this.timeField = timeField;
      this.maxOutOfOrderness = maxOutOfOrderness;
    }

    @Override
    public TimestampPolicy<byte[], byte[]> createTimestampPolicy(
        TopicPartition tp, Optional<Instant> previousWatermark) {
      // Once per partition and start: says where a restored reader's event time resumes.
      previousWatermark.ifPresent(w -> LOG.info("Kafka partition {} resumes at watermark {}", tp, w));
      return new PayloadTimestampPolicy(
          timeField.isEmpty() ? null : new EventTimeExtractor(timeField),
          maxOutOfOrderness,
          previousWatermark);
    }
  }
}
