package io.streamrecon.pipeline;

import java.util.Optional;
import org.apache.beam.sdk.io.kafka.KafkaRecord;
import org.apache.beam.sdk.io.kafka.TimestampPolicy;
import org.apache.beam.sdk.io.kafka.TimestampPolicyFactory;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.kafka.common.TopicPartition;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * Kafka timestamps and watermark from the payload's event time, per partition.
 *
 * <ul>
 *   <li>Record timestamp: the event time at {@code --timeField}; the Kafka record time when the
 *       option is empty. A record whose time cannot be read (it will become a dead letter) gets
 *       the partition's largest event time so far, so it neither moves the watermark nor is late.
 *   <li>Watermark: the largest event time seen in the partition minus {@code
 *       --kafkaMaxOutOfOrderness}, never beyond wall clock minus that bound.
 *   <li>Idle partition (no backlog at the last check, event time behind the wall clock): the
 *       watermark advances with the wall clock minus the bound, so a quiet partition does not
 *       hold back expiry of the others. An empty partition counts as idle once its backlog is
 *       known to be zero.
 * </ul>
 */
final class PayloadTimestampPolicy extends TimestampPolicy<byte[], byte[]> {
  private final EventTimeExtractor extractor;
  private final Duration maxOutOfOrderness;
  private Instant maxEventTime;

  PayloadTimestampPolicy(
      EventTimeExtractor extractor, Duration maxOutOfOrderness, Optional<Instant> previous) {
    this.extractor = extractor;
    this.maxOutOfOrderness = maxOutOfOrderness;
    // Resuming from a checkpoint: the watermark then was max - bound, so max is at least that.
    this.maxEventTime =
        previous.map(w -> w.plus(maxOutOfOrderness)).orElse(BoundedWindow.TIMESTAMP_MIN_VALUE);
  }

  @Override
  public Instant getTimestampForRecord(PartitionContext ctx, KafkaRecord<byte[], byte[]> record) {
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
    return t;
  }

  @Override
  public Instant getWatermark(PartitionContext ctx) {
    return watermark(ctx.getMessageBacklog(), ctx.getBacklogCheckTime(), Instant.now());
  }

  /** The watermark for a backlog seen at {@code checkTime}; pure, for tests. */
  Instant watermark(long backlog, Instant checkTime, Instant now) {
    Instant wallClockBound = now.minus(maxOutOfOrderness);
    if (backlog == 0 && checkTime != null) {
      Instant idle = checkTime.minus(maxOutOfOrderness);
      if (idle.isAfter(maxEventTime.minus(maxOutOfOrderness))) {
        return min(idle, wallClockBound);
      }
    }
    if (maxEventTime.equals(BoundedWindow.TIMESTAMP_MIN_VALUE)) {
      return BoundedWindow.TIMESTAMP_MIN_VALUE;
    }
    return min(maxEventTime.minus(maxOutOfOrderness), wallClockBound);
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
      return new PayloadTimestampPolicy(
          timeField.isEmpty() ? null : new EventTimeExtractor(timeField),
          maxOutOfOrderness,
          previousWatermark);
    }
  }
}
