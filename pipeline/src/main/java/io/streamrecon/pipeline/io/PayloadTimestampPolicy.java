package io.streamrecon.pipeline.io;

import io.streamrecon.json.EventTimeExtractor;
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
 *       option is empty. A record whose time cannot be read (it will become a dead letter) gets the
 *       partition's largest event time so far, so it neither moves the watermark nor is late.
 *   <li>Watermark: the largest event time seen in the partition minus {@code
 *       --kafkaMaxOutOfOrderness}, never beyond wall clock minus that bound.
 *   <li>Idle partition: the watermark advances with the wall clock, kept behind it by the
 *       partition's lag, so a quiet partition does not hold back expiry of the others for longer
 *       than its records are known to come late: watermark = check time minus the kept lag minus
 *       the bound, never beyond wall clock minus the bound. The kept lag is the side's declared lag
 *       ({@code --sourceLag} / {@code --targetLag}) when one is given. Otherwise it is the largest
 *       append lag (Kafka record time minus event time) of the records read since the partition was
 *       last idle, stragglers behind its watermark left out (they are late anyway): a producer or a
 *       replica that runs behind, or loads in bursts, appends its next records about that far
 *       behind the wall clock, and the first records of a burst are the oldest, so the largest lag
 *       of a spell is what keeps the next spell's records on time. An observed lag beyond {@link
 *       #MAX_OBSERVED_LAG} is a replayed or backfilled topic, whose lag is months: it keeps no lag,
 *       so expiry is not frozen for months. A partition without a record since the JVM started
 *       keeps the declared lag, or none. A partition is idle once the reader's backlog checks have
 *       found it empty, with no record read, for {@code --kafkaIdleAfter} (default {@link
 *       #DEFAULT_IDLE_AFTER}) of wall clock, counted from the first fresh check that found it so. A
 *       check is fresh when it began less than {@link #MAX_CHECK_GAP} ago and less than that after
 *       the check before it. A stale check or a gap means the broker was unreachable: producers
 *       were buffering then, and records they append once it is back carry event times from the
 *       outage, so the observation starts again with the first fresh check after it. (KafkaIO
 *       stamps a check with the moment it began, and a check waits in the client for the broker: a
 *       check that began before an outage can end after it.) The observation, the observed lag
 *       included, outlives a reader (runners recreate readers from checkpoints) but not the JVM: a
 *       job restored after a crash starts unobserved. The same holds for an empty partition.
 *       Requiring 30 s of quiet, rather than a momentarily empty backlog, is what keeps a producer
 *       that runs seconds behind from having its next records turned late before its lag has been
 *       seen.
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

  /**
   * The largest observed append lag an idle partition keeps. A producer or replica that runs behind
   * is minutes or hours late; a lag of more than a day is a replayed or backfilled topic, and
   * keeping it would freeze the partition's watermark, and with it every expiry, for as long as the
   * replay is old. Such a partition keeps no lag. A side known to run later than this declares its
   * lag instead.
   */
  static final Duration MAX_OBSERVED_LAG = Duration.standardHours(24);

  private final EventTimeExtractor extractor;
  private final Duration maxOutOfOrderness;
  private final Duration idleAfter;
  private final Duration declaredLag;
  private Instant maxEventTime;
  private Instant lastWatermark;
  private final Observation seen;

  PayloadTimestampPolicy(
      EventTimeExtractor extractor, Duration maxOutOfOrderness, Optional<Instant> previous) {
    this(
        extractor,
        maxOutOfOrderness,
        DEFAULT_IDLE_AFTER,
        null,
        previous,
        new Observation("partition"));
  }

  /**
   * @param declaredLag the lag an idle partition keeps behind the wall clock, or {@code null} to
   *     keep the one its records show
   */
  PayloadTimestampPolicy(
      EventTimeExtractor extractor,
      Duration maxOutOfOrderness,
      Duration idleAfter,
      Duration declaredLag,
      Optional<Instant> previous,
      Observation seen) {
    this.seen = seen;
    this.idleAfter = idleAfter;
    this.declaredLag = declaredLag;
    this.extractor = extractor;
    this.maxOutOfOrderness = maxOutOfOrderness;
    // Resuming from a checkpoint: the watermark then was max - bound, so max is at least that.
    this.maxEventTime =
        previous.map(w -> w.plus(maxOutOfOrderness)).orElse(BoundedWindow.TIMESTAMP_MIN_VALUE);
    this.lastWatermark = previous.orElse(BoundedWindow.TIMESTAMP_MIN_VALUE);
  }

  @Override
  public Instant getTimestampForRecord(PartitionContext ctx, KafkaRecord<byte[], byte[]> record) {
    Instant t =
        extractor == null
            ? new Instant(record.getTimestamp())
            : extractor.extract(record.getKV().getValue());
    synchronized (seen) {
      seen.emptySince = null;
      boolean newSpell = seen.idle;
      if (seen.idle) {
        seen.idle = false;
        // Once per idle spell: an operator sees when a partition's watermark stopped following
        // the wall clock (records appended later than its idle watermark are late).
        LOG.info("Kafka {}: records again after it was idle", seen.label);
      }
      // A record without a Kafka time (old message format) or a readable event time says
      // nothing about the lag, nor does a straggler behind the partition's watermark: it is late
      // whatever the lag, and an hour-old record must not hold the partition an hour back.
      if (t != null && record.getTimestamp() >= 0 && !t.isBefore(lastWatermark)) {
        long lag = Math.max(0, record.getTimestamp() - t.getMillis());
        if (newSpell || seen.spellLag == null || lag > seen.spellLag.getMillis()) {
          seen.spellLag = Duration.millis(lag);
        }
      }
    }
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
      Instant idle = min(checkTime, now).minus(keptLag()).minus(maxOutOfOrderness);
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
      LOG.info(
          "Kafka {}: backlog checks answer again after an interruption (broker"
              + " unreachable); idleness is observed afresh from {}",
          seen.label,
          now);
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
      LOG.info(
          "Kafka {}: no record and an empty backlog since {}; its watermark follows the wall"
              + " clock minus {}",
          seen.label,
          seen.emptySince,
          keptLagText());
    }
    return idle;
  }

  /** How far behind the wall clock an idle partition's watermark stays, before the bound. */
  private Duration keptLag() {
    if (declaredLag != null) {
      return declaredLag;
    }
    if (seen.spellLag == null || seen.spellLag.isLongerThan(MAX_OBSERVED_LAG)) {
      return Duration.ZERO;
    }
    return seen.spellLag;
  }

  private String keptLagText() {
    String bound = seconds(maxOutOfOrderness) + " (the bound)";
    if (declaredLag != null) {
      return seconds(declaredLag) + " (the declared lag) and " + bound;
    }
    if (seen.spellLag == null) {
      return bound + ": no record read by this process yet";
    }
    if (seen.spellLag.isLongerThan(MAX_OBSERVED_LAG)) {
      return bound
          + ": its records' append lag of "
          + seconds(seen.spellLag)
          + " is beyond "
          + seconds(MAX_OBSERVED_LAG)
          + ", a replay";
    }
    return seconds(seen.spellLag) + " (its records' largest append lag) and " + bound;
  }

  private static String seconds(Duration d) {
    return d.getStandardSeconds() + " s";
  }

  private static Instant min(Instant a, Instant b) {
    return a.isBefore(b) ? a : b;
  }

  /**
   * What a partition's policies learned from its backlog checks and records: the idle observation.
   * A policy lives as long as one reader, and runners make new readers from a checkpoint often (the
   * DirectRunner on purpose, every few bundles), so this is kept per read and partition for the
   * life of the JVM. A job restored in a new JVM starts unobserved, which is the cautious side.
   */
  static final class Observation {
    private final String label;
    private Instant emptySince;
    private Instant lastCheck;
    private boolean interrupted;
    private boolean idle;

    /** The largest append lag of the records read since the partition was last idle. */
    private Duration spellLag;

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
    private final Duration declaredLag;

    /**
     * @param timeField JSON Pointer of the event time; empty for the Kafka record time
     * @param declaredLag the read's declared lag, {@code null} to observe it per partition
     */
    Factory(
        String timeField, Duration maxOutOfOrderness, Duration idleAfter, Duration declaredLag) {
      this.timeField = timeField;
      this.maxOutOfOrderness = maxOutOfOrderness;
      this.idleAfter = idleAfter;
      this.declaredLag = declaredLag;
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
          declaredLag,
          previousWatermark,
          OBSERVATIONS.computeIfAbsent(readId + "/" + tp, k -> new Observation("partition " + tp)));
    }
  }
}
