package io.streamrecon.pipeline.io;

import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
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
 *   <li>Idle partition: the watermark advances with the wall clock minus the bound, so a quiet
 *       partition does not hold back expiry of the others. A partition is idle once the reader's
 *       backlog checks have found it empty, with no record read, for {@code --kafkaIdleAfter}
 *       (default {@link #DEFAULT_IDLE_AFTER}) of wall clock, counted from the first fresh check
 *       that found it so. A check is fresh when it began less than {@link #MAX_CHECK_GAP} ago and
 *       less than that after the check before it. A stale check or a gap means the broker was
 *       unreachable: producers were buffering then, and records they append once it is back carry
 *       event times from the outage, so the observation starts again with the first fresh check
 *       after it. (KafkaIO stamps a check with the moment it began, and a check waits in the
 *       client for the broker: a check that began before an outage can end after it.) The
 *       observation outlives a reader (runners recreate readers from checkpoints) but not the
 *       JVM: a job restored after a crash starts unobserved. The same holds for an empty
 *       partition. Requiring 30 s of quiet, rather than a momentarily empty backlog, is what keeps
 *       a producer that runs behind (appending records seconds after their event time) from
 *       having its next records turned late. The idle watermark is not held back by the last
 *       record's append lag (Kafka time minus event time): on a replayed old topic, whose lag is
 *       months, that would freeze it for ever.
 *   <li>A backlog the reader does not know yet (a new reader's first moments) neither starts nor
 *       ends the observation.
 *   <li>The watermark never goes back.
 * </ul>
 */
final class PayloadTimestampPolicy extends TimestampPolicy<byte[], byte[]> {
  private static final Logger LOG = LoggerFactory.getLogger(PayloadTimestampPolicy.class);

  /**
   * Default of {@code --kafkaIdleAfter}: how long a partition must be seen empty before the wall
   * clock moves its watermark. Long enough for a producer to reconnect after a broker outage
   * (librdkafka backs off up to 10 s) and flush what it buffered; short against the minutes a
   * reconciliation timeout usually is.
   */
  static final Duration DEFAULT_IDLE_AFTER = Duration.standardSeconds(30);

  /**
   * The longest gap between two backlog checks (KafkaIO checks every second) that still counts as
   * one unbroken observation; a check older than this is stale (the broker does not answer).
   */
  static final Duration MAX_CHECK_GAP = Duration.standardSeconds(10);

  private final EventTimeExtractor extractor;
  private final Duration maxOutOfOrderness;
  private final Duration idleAfter;
  private Instant maxEventTime;
  private Instant lastWatermark;
  private final Observation seen;

  PayloadTimestampPolicy(
      EventTimeExtractor extractor, Duration maxOutOfOrderness, Optional<Instant> previous) {
    this(extractor, maxOutOfOrderness, DEFAULT_IDLE_AFTER, previous, new Observation("partition"));
  }

  PayloadTimestampPolicy(
      EventTimeExtractor extractor,
      Duration maxOutOfOrderness,
      Duration idleAfter,
      Optional<Instant> previous,
      Observation seen) {
    this.seen = seen;
    this.idleAfter = idleAfter;
    this.extractor = extractor;
    this.maxOutOfOrderness = maxOutOfOrderness;
    // Resuming from a checkpoint: the watermark then was max - bound, so max is at least that.
    this.maxEventTime =
        previous.map(w -> w.plus(maxOutOfOrderness)).orElse(BoundedWindow.TIMESTAMP_MIN_VALUE);
    this.lastWatermark = previous.orElse(BoundedWindow.TIMESTAMP_MIN_VALUE);
  }

  @Override
  public Instant getTimestampForRecord(PartitionContext ctx, KafkaRecord<byte[], byte[]> record) {
    synchronized (seen) {
      seen.emptySince = null;
      if (seen.idle) {
        seen.idle = false;
        // Once per idle spell: an operator sees when a partition's watermark stopped following
        // the wall clock (records appended later than its idle watermark are late).
        LOG.info("Kafka {}: records again after it was idle", seen.label);
      }
    }
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

  /** The watermark for a backlog seen at {@code checkTime}, never below the last one. */
  Instant watermark(long backlog, Instant checkTime, Instant now) {
    Instant w;
    synchronized (seen) {
      w = candidate(backlog, checkTime, now);
    }
    if (w.isAfter(lastWatermark)) {
      lastWatermark = w;
    }
    return lastWatermark;
  }

  private Instant candidate(long backlog, Instant checkTime, Instant now) {
    Instant wallClockBound = now.minus(maxOutOfOrderness);
    if (isIdle(backlog, checkTime, now)) {
      Instant idle = checkTime.minus(maxOutOfOrderness);
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
    // KafkaIO stamps a check with the moment it began, and a check blocks in the client while the
    // broker does not answer: a check that began before an outage may end after it. So a check is
    // trusted only while fresh, and the quiet is measured from the first fresh check seen.
    boolean gap = seen.lastCheck != null && checkTime.isAfter(seen.lastCheck.plus(MAX_CHECK_GAP));
    boolean stale = checkTime.isBefore(now.minus(MAX_CHECK_GAP));
    if (seen.lastCheck == null || checkTime.isAfter(seen.lastCheck)) {
      seen.lastCheck = checkTime;
    }
    if (gap || stale) {
      seen.interrupted = true;
      seen.emptySince = null;
      if (stale) {
        return false;
      }
    }
    if (backlog < 0) {
      return false;
    }
    if (seen.interrupted) {
      // Once per outage: the watermark waits --kafkaIdleAfter more for producers to catch up.
      LOG.info("Kafka {}: backlog checks answer again after an interruption (broker"
          + " unreachable); idleness is observed afresh from {}", seen.label, now);
      seen.interrupted = false;
    }
    if (backlog > 0) {
      seen.emptySince = null;
      return false;
    }
    if (seen.emptySince == null) {
      seen.emptySince = now;
    }
    boolean idle = !now.isBefore(seen.emptySince.plus(idleAfter));
    if (idle && !seen.idle) {
      seen.idle = true;
      LOG.info("Kafka {}: no record and an empty backlog since {}; its watermark follows the wall"
          + " clock", seen.label, seen.emptySince);
    }
    return idle;
  }

  private static Instant min(Instant a, Instant b) {
    return a.isBefore(b) ? a : b;
  }

  /**
   * What a partition's policies learned from its backlog checks and records: the idle
   * observation. A policy lives as long as one reader, and runners make new readers from a
   * checkpoint often (the DirectRunner on purpose, every few bundles), so this is kept per read
   * and partition for the life of the JVM. A job restored in a new JVM starts unobserved, which is
   * the cautious side.
   */
  static final class Observation {
    private final String label;
    private Instant emptySince;
    private Instant lastCheck;
    private boolean interrupted;
    private boolean idle;

    Observation(String label) {
      this.label = label;
    }
  }

  /** Creates one policy per partition. */
  static final class Factory implements TimestampPolicyFactory<byte[], byte[]> {
    private static final long serialVersionUID = 1L;
    private static final Map<String, Observation> OBSERVATIONS = new ConcurrentHashMap<>();
    /** Names this read of this pipeline's construction; a deserialized copy keeps it. */
    private final String readId = UUID.randomUUID().toString();
    private final String timeField;
    private final Duration maxOutOfOrderness;
    private final Duration idleAfter;

    /** @param timeField JSON Pointer of the event time; empty for the Kafka record time */
    Factory(String timeField, Duration maxOutOfOrderness, Duration idleAfter) {
      this.timeField = timeField;
      this.maxOutOfOrderness = maxOutOfOrderness;
      this.idleAfter = idleAfter;
    }

    @Override
    public TimestampPolicy<byte[], byte[]> createTimestampPolicy(
        TopicPartition tp, Optional<Instant> previousWatermark) {
      // Once per partition and start: says where a restored reader's event time resumes.
      previousWatermark.ifPresent(
          w -> LOG.info("Kafka partition {} resumes at watermark {}", tp, w));
      return new PayloadTimestampPolicy(
          timeField.isEmpty() ? null : new EventTimeExtractor(timeField),
          maxOutOfOrderness,
          idleAfter,
          previousWatermark,
          OBSERVATIONS.computeIfAbsent(readId + "/" + tp, k -> new Observation("partition " + tp)));
    }
  }
}
