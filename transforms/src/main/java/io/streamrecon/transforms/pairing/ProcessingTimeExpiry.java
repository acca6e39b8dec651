package io.streamrecon.transforms.pairing;

import io.streamrecon.model.EventRef;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.beam.sdk.state.MapState;
import org.apache.beam.sdk.state.StateSpec;
import org.apache.beam.sdk.state.TimeDomain;
import org.apache.beam.sdk.state.Timer;
import org.apache.beam.sdk.state.TimerSpec;
import org.apache.beam.sdk.state.TimerSpecs;
import org.apache.beam.sdk.state.ValueState;
import org.apache.beam.sdk.values.KV;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * Expiry by wall clock: an entry expires {@code grace} of processing time after its natural id's
 * last event (its due time moves on every event, and with it its index entry; the bucket's timer
 * stays at the earliest due time, which only ever comes earlier). Declares no event-time timer, so
 * it runs where event-time timers are rejected (Spark streaming). The watermark cannot be read
 * without an event-time timer, so lateness detection is off here: no event goes to {@link
 * PairEvents#LATE}. Rules 2–5 still compare event times.
 *
 * <p><b>Downtime does not count.</b> A job restored from its checkpoint after a crash finds entries
 * whose grace ran out while it was down, and their partners may still wait in Kafka behind the
 * restored position. So in each JVM, no entry expires before {@code grace} has passed since this
 * DoFn's first call there: entries due earlier move to that time (counted as {@value
 * PairEvents#METRIC_EXPIRIES_POSTPONED}). A fresh job is not affected, as its entries are all due a
 * grace after their events. The first call is kept per DoFn (a UUID that serialized copies share)
 * for the life of the JVM, so new DoFn instances per micro-batch do not start it again.
 */
final class ProcessingTimeExpiry extends PairEventsFn<EventRef> {
  private static final long serialVersionUID = 1L;
  private static final Map<String, Instant> FIRST_CALL = new ConcurrentHashMap<>();
  private final String instanceId = UUID.randomUUID().toString();

  @StateId(ENTRIES_STATE)
  private final StateSpec<MapState<String, PairingEntry>> entriesSpec = entriesSpec();

  @StateId(SLOTS_STATE)
  private final StateSpec<MapState<Long, ExpirySlot>> slotsSpec = slotsSpec();

  @StateId(CLOCK_STATE)
  private final StateSpec<ValueState<BucketClock>> clockSpec = clockSpec();

  @TimerId(EXPIRY_TIMER)
  private final TimerSpec expirySpec = TimerSpecs.timer(TimeDomain.PROCESSING_TIME);

  private final Duration grace;

  ProcessingTimeExpiry(PairingRules rules, Duration grace, boolean emitMatches) {
    super(rules, grace, emitMatches);
    this.grace = Objects.requireNonNull(grace, "grace");
  }

  @ProcessElement
  public void processElement(
      @Element KV<Integer, EventRef> element,
      @Timestamp Instant timestamp,
      @StateId(ENTRIES_STATE) MapState<String, PairingEntry> entries,
      @StateId(SLOTS_STATE) MapState<Long, ExpirySlot> slots,
      @StateId(CLOCK_STATE) ValueState<BucketClock> clock,
      @TimerId(EXPIRY_TIMER) Timer expiry,
      MultiOutputReceiver out) {
    // The first call in this JVM marks the (re)start, from which downtime is not counted.
    expiresNotBefore(expiry.getCurrentRelativeTime());
    pair(element.getValue(), timestamp, null, new Bucket(entries, slots, clock, expiry), out);
  }

  @OnTimer(EXPIRY_TIMER)
  public void onExpiry(
      OnTimerContext context,
      @StateId(ENTRIES_STATE) MapState<String, PairingEntry> entries,
      @StateId(SLOTS_STATE) MapState<Long, ExpirySlot> slots,
      @StateId(CLOCK_STATE) ValueState<BucketClock> clock,
      @TimerId(EXPIRY_TIMER) Timer expiry,
      MultiOutputReceiver out) {
    expire(
        context.fireTimestamp(),
        expiry.getCurrentRelativeTime(),
        new Bucket(entries, slots, clock, expiry),
        out);
  }

  @Override
  Instant dueAfterEvent(PairingEntry entry, Timer expiry) {
    return expiry.getCurrentRelativeTime().plus(grace);
  }

  @Override
  Instant expiresNotBefore(Instant now) {
    return FIRST_CALL.computeIfAbsent(instanceId, k -> now).plus(grace);
  }
}
