package io.streamrecon.transforms.pairing;

import io.streamrecon.model.EventRef;
import io.streamrecon.transforms.ModelCoders.EventRefCoder;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.state.BagState;
import org.apache.beam.sdk.state.MapState;
import org.apache.beam.sdk.state.StateSpec;
import org.apache.beam.sdk.state.StateSpecs;
import org.apache.beam.sdk.state.TimeDomain;
import org.apache.beam.sdk.state.Timer;
import org.apache.beam.sdk.state.TimerSpec;
import org.apache.beam.sdk.state.TimerSpecs;
import org.apache.beam.sdk.state.ValueState;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Instant;

/**
 * Event-time expiry for a bounded input, which the runner hands over sorted by event time per key
 * (here per bucket, which sorts each natural id's events too) with {@link RequiresTimeSortedInput}.
 * Rule 5 finishes an entry when an event lies more than the timeout from t0, which is only right
 * when a key's events come in event-time order; a batch runner otherwise delivers them in any order
 * (the SparkRunner split keys with many episodes into wrong entries). A bounded input has no late
 * data, and runners flush the sorted buffer when the watermark has already jumped to its end, so
 * this variant neither reads the watermark nor checks lateness in {@code @ProcessElement}.
 */
final class SortedBoundedExpiry extends PairEventsFn<EventRef> {
  private static final long serialVersionUID = 1L;

  @StateId(ENTRIES_STATE)
  private final StateSpec<MapState<String, PairingEntry>> entriesSpec = entriesSpec();

  @StateId(SLOTS_STATE)
  private final StateSpec<MapState<Long, ExpirySlot>> slotsSpec = slotsSpec();

  @StateId(CLOCK_STATE)
  private final StateSpec<ValueState<BucketClock>> clockSpec = clockSpec();

  @StateId(TIES_STATE)
  private final StateSpec<BagState<TimestampedValue<EventRef>>> tiesSpec =
      StateSpecs.bag(TimestampedValue.TimestampedValueCoder.of(EventRefCoder.of()));

  @TimerId(EXPIRY_TIMER)
  private final TimerSpec expirySpec = TimerSpecs.timer(TimeDomain.EVENT_TIME);

  @TimerId(TIES_TIMER)
  private final TimerSpec tiesTimerSpec = TimerSpecs.timer(TimeDomain.EVENT_TIME);

  SortedBoundedExpiry(PairingRules rules, boolean emitMatches) {
    super(rules, rules.timeout(), emitMatches);
  }

  /**
   * Holds the event until the bucket's events of its event time are all in (an event of a later
   * time came, or the watermark passed it), then applies them in {@link SameTimeOrder}: the sort
   * asked of the runner leaves equal times in arrival order.
   */
  @RequiresTimeSortedInput
  @ProcessElement
  public void processElement(
      @Element KV<Integer, EventRef> element,
      @Timestamp Instant timestamp,
      @StateId(ENTRIES_STATE) MapState<String, PairingEntry> entries,
      @StateId(SLOTS_STATE) MapState<Long, ExpirySlot> slots,
      @StateId(CLOCK_STATE) ValueState<BucketClock> clock,
      @StateId(TIES_STATE) BagState<TimestampedValue<EventRef>> ties,
      @TimerId(EXPIRY_TIMER) Timer expiry,
      @TimerId(TIES_TIMER) Timer tiesDue,
      MultiOutputReceiver out) {
    List<TimestampedValue<EventRef>> waiting = held(ties);
    if (!waiting.isEmpty() && !waiting.get(0).getTimestamp().equals(timestamp)) {
      applyTies(waiting, timestamp, new Bucket(entries, slots, clock, expiry), out);
      ties.clear();
    }
    ties.add(TimestampedValue.of(element.getValue(), timestamp));
    tiesDue.set(timestamp);
  }

  @OnTimer(TIES_TIMER)
  public void onTies(
      OnTimerContext context,
      @StateId(ENTRIES_STATE) MapState<String, PairingEntry> entries,
      @StateId(SLOTS_STATE) MapState<Long, ExpirySlot> slots,
      @StateId(CLOCK_STATE) ValueState<BucketClock> clock,
      @StateId(TIES_STATE) BagState<TimestampedValue<EventRef>> ties,
      @TimerId(EXPIRY_TIMER) Timer expiry,
      MultiOutputReceiver out) {
    List<TimestampedValue<EventRef>> waiting = held(ties);
    if (!waiting.isEmpty()) {
      applyTies(waiting, context.timestamp(), new Bucket(entries, slots, clock, expiry), out);
      ties.clear();
    }
  }

  @OnTimer(EXPIRY_TIMER)
  public void onExpiry(
      OnTimerContext context,
      @StateId(ENTRIES_STATE) MapState<String, PairingEntry> entries,
      @StateId(SLOTS_STATE) MapState<Long, ExpirySlot> slots,
      @StateId(CLOCK_STATE) ValueState<BucketClock> clock,
      @StateId(TIES_STATE) BagState<TimestampedValue<EventRef>> ties,
      @TimerId(EXPIRY_TIMER) Timer expiry,
      MultiOutputReceiver out) {
    Bucket bucket = new Bucket(entries, slots, clock, expiry);
    Instant watermark = expiry.getCurrentRelativeTime();
    // Held events belong before this expiry when they are at or before its due time (an event
    // at exactly t0 + timeout still pairs), and when the watermark has passed them: the sweep
    // then expires every entry due before the watermark, which on a batch runner that has
    // delivered the whole input is every entry.
    List<TimestampedValue<EventRef>> waiting = held(ties);
    if (!waiting.isEmpty()) {
      Instant heldAt = waiting.get(0).getTimestamp();
      if (!heldAt.isAfter(context.fireTimestamp()) || heldAt.isBefore(watermark)) {
        applyTies(waiting, context.timestamp(), bucket, out);
        ties.clear();
      }
    }
    expire(context.fireTimestamp(), watermark, bucket, out);
  }

  private static List<TimestampedValue<EventRef>> held(BagState<TimestampedValue<EventRef>> ties) {
    List<TimestampedValue<EventRef>> waiting = new ArrayList<>();
    ties.read().forEach(waiting::add);
    return waiting;
  }

  /**
   * Applies the held events of one event time; {@code now} is the timestamp of the call's input
   * (element or firing), the lower bound of any timer hold set meanwhile.
   */
  private void applyTies(
      List<TimestampedValue<EventRef>> waiting,
      Instant now,
      Bucket bucket,
      MultiOutputReceiver out) {
    List<EventRef> events = new ArrayList<>(waiting.size());
    for (TimestampedValue<EventRef> held : waiting) {
      events.add(held.getValue());
    }
    for (EventRef event : SameTimeOrder.sort(events, id -> read(bucket.entries(), id))) {
      pair(event, now, null, bucket, out);
    }
  }

  @Override
  Instant dueAfterEvent(PairingEntry entry, Timer expiry) {
    return rules.expiryOf(entry.t0());
  }
}
