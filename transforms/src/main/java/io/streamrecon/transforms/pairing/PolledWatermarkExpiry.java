package io.streamrecon.transforms.pairing;

import io.streamrecon.model.EventRef;
import io.streamrecon.transforms.WatermarkSource;
import io.streamrecon.transforms.pairing.sparkstreaming.GatherBucketsFn;
import io.streamrecon.transforms.pairing.sparkstreaming.WatermarkTick;
import io.streamrecon.transforms.pairing.sparkstreaming.WholeMapCoder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.state.StateSpec;
import org.apache.beam.sdk.state.StateSpecs;
import org.apache.beam.sdk.state.TimeDomain;
import org.apache.beam.sdk.state.Timer;
import org.apache.beam.sdk.state.TimerSpec;
import org.apache.beam.sdk.state.TimerSpecs;
import org.apache.beam.sdk.state.ValueState;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * Expiry by event time where the runner gives stateful DoFns no event-time timers but tracks the
 * watermark itself (Beam's classic SparkRunner in streaming mode): the watermark is read from a
 * {@link WatermarkSource} on every call, and a processing-time timer ({@value #EXPIRY_TIMER}) only
 * calls the bucket back, once per micro-batch on Spark, to compare it with the bucket's earliest
 * due time. An entry expires when that watermark passes {@code t0 + timeout}, and an event later
 * than it by more than the allowed lateness goes to {@link PairEvents#LATE}, as with {@link
 * EventTimeExpiry}; how long a batch took or how late a partner was read in wall-clock time changes
 * nothing.
 *
 * <p><b>Kept per bucket</b>, besides the entries, index and clock of every variant: {@value
 * #TICK_STATE}, a {@link WatermarkTick} (the processing time the live timer is set for, and the
 * latest watermark the bucket saw). It is written when the bucket's first entry opens and cleared
 * with the rest of the bucket's state when its last entry expires; an empty bucket keeps no state
 * and no timer. The entries and the index are each held as one value ({@link BucketMap#loaded}) and
 * written once per call, because that runner's map state codes the whole map on every access; their
 * coder ({@link WholeMapCoder}) keeps each entry's bytes and the last map a bucket wrote, so that a
 * call codes only the entries it changed.
 *
 * <p><b>Input</b>: a bucket's events of a bundle gathered into one element ({@link
 * GatherBucketsFn}), because that runner makes one call, with the bucket's state loaded and stored,
 * per element.
 *
 * <p><b>Firings</b>: the timer is re-set a {@link #TICK} of processing time ahead at every firing
 * while the bucket holds entries. A firing for another time than the tick's target is stale and
 * ignored (counted as {@code stale_timer_firings}); a watermark reading older than one the bucket
 * already saw is ignored (counted as {@code stale_watermarks}), so the watermark a bucket acts on
 * never goes back. A firing with no entry due only re-sets the timer.
 */
final class PolledWatermarkExpiry extends PairEventsFn<List<TimestampedValue<EventRef>>> {
  private static final long serialVersionUID = 1L;

  /**
   * How far ahead the callback timer is set: short, so that on Spark it is due at the bucket's next
   * micro-batch whatever the batch interval, and the bucket expires its entries in the batch after
   * the watermark passed them. Spark fires it again in the same call only if the call outlasts it,
   * and such a firing sees the same watermark and only re-sets the timer.
   */
  static final Duration TICK = Duration.millis(1);

  /** A gathered bucket's events in event-time order; the sort is stable for equal times. */
  private static final Comparator<TimestampedValue<EventRef>> BY_EVENT_TIME =
      Comparator.comparing(e -> e.getValue().eventTime());

  // Held whole (BucketMap.loaded): the runner this variant is for codes a map state whole on
  // every access. Same ids and entry coders as the map states of the other variants.
  @StateId(ENTRIES_STATE)
  private final StateSpec<ValueState<Map<String, PairingEntry>>> entriesSpec =
      BucketMap.loadedSpec(StringUtf8Coder.of(), PairingEntryCoder.of());

  @StateId(SLOTS_STATE)
  private final StateSpec<ValueState<Map<Long, ExpirySlot>>> slotsSpec =
      BucketMap.loadedSpec(VarLongCoder.of(), ExpirySlotCoder.of());

  @StateId(CLOCK_STATE)
  private final StateSpec<ValueState<BucketClock>> clockSpec = clockSpec();

  @StateId(TICK_STATE)
  private final StateSpec<ValueState<WatermarkTick>> tickSpec =
      StateSpecs.value(WatermarkTick.Coder.of());

  @TimerId(EXPIRY_TIMER)
  private final TimerSpec expirySpec = TimerSpecs.timer(TimeDomain.PROCESSING_TIME);

  private final Duration allowedLateness;
  private final WatermarkSource watermarks;

  PolledWatermarkExpiry(
      PairingRules rules,
      Duration allowedLateness,
      WatermarkSource watermarks,
      boolean emitMatches) {
    super(rules, rules.timeout(), emitMatches);
    this.allowedLateness = Objects.requireNonNull(allowedLateness, "allowedLateness");
    this.watermarks = Objects.requireNonNull(watermarks, "watermarks");
  }

  /**
   * One call per bucket and bundle ({@link GatherBucketsFn}): applies the gathered events in
   * event-time order against one reading of the watermark, then stores the bucket once. Each
   * verdict is output at its event's timestamp.
   */
  @ProcessElement
  public void processElement(
      @Element KV<Integer, List<TimestampedValue<EventRef>>> element,
      @StateId(ENTRIES_STATE) ValueState<Map<String, PairingEntry>> entries,
      @StateId(SLOTS_STATE) ValueState<Map<Long, ExpirySlot>> slots,
      @StateId(CLOCK_STATE) ValueState<BucketClock> clock,
      @StateId(TICK_STATE) ValueState<WatermarkTick> tick,
      @TimerId(EXPIRY_TIMER) Timer expiry,
      MultiOutputReceiver out) {
    WatermarkTick current = tick.read();
    Instant watermark = seen(current);
    List<TimestampedValue<EventRef>> events = new ArrayList<>(element.getValue());
    events.sort(BY_EVENT_TIME);
    Bucket bucket = null;
    for (TimestampedValue<EventRef> timestamped : events) {
      EventRef event = timestamped.getValue();
      if (event.eventTime().plus(allowedLateness).isBefore(watermark)) {
        late(event, watermark, out);
        continue;
      }
      if (bucket == null) {
        bucket = loaded(entries, slots, clock, expiry, tick);
      }
      Instant at = timestamped.getTimestamp();
      pair(event, at, watermark, bucket, out, at);
    }
    if (bucket == null) {
      return;
    }
    bucket.flush();
    BucketClock now = clock.read();
    if (current == null && now != null) {
      // The bucket's first entry: start calling it back.
      arm(expiry, now.hold(), watermark, tick);
    }
  }

  @OnTimer(EXPIRY_TIMER)
  public void onExpiry(
      OnTimerContext context,
      @StateId(ENTRIES_STATE) ValueState<Map<String, PairingEntry>> entries,
      @StateId(SLOTS_STATE) ValueState<Map<Long, ExpirySlot>> slots,
      @StateId(CLOCK_STATE) ValueState<BucketClock> clock,
      @StateId(TICK_STATE) ValueState<WatermarkTick> tick,
      @TimerId(EXPIRY_TIMER) Timer expiry,
      MultiOutputReceiver out) {
    poll(
        context.fireTimestamp(),
        context.timestamp(),
        loaded(entries, slots, clock, expiry, tick),
        out);
  }

  private static Bucket loaded(
      ValueState<Map<String, PairingEntry>> entries,
      ValueState<Map<Long, ExpirySlot>> slots,
      ValueState<BucketClock> clock,
      Timer expiry,
      ValueState<WatermarkTick> tick) {
    return new Bucket(BucketMap.loaded(entries), BucketMap.loaded(slots), clock, expiry, tick);
  }

  /**
   * One callback: expires the entries the watermark has passed, then calls the bucket back again,
   * or clears it when it is empty.
   */
  void poll(Instant fireTimestamp, Instant heldAt, Bucket bucket, MultiOutputReceiver out) {
    WatermarkTick current = bucket.tick().read();
    if (current == null || !current.target().equals(fireTimestamp)) {
      STALE_TIMER_FIRINGS.inc();
      return;
    }
    Instant watermark = seen(current);
    BucketClock clock = bucket.clock().read();
    if (clock != null && clock.hold().isBefore(heldAt)) {
      // An earlier entry lowered the clock's hold after this timer was set; outputs of this
      // firing may not be earlier than its own hold.
      clock = new BucketClock(clock.target(), heldAt, clock.lastSlot());
      bucket.clock().write(clock);
    }
    if (clock != null
        && watermark.isAfter(clock.target())
        // Entries due strictly before the watermark, as an event-time timer would fire.
        && sweep(clock, watermark.minus(Duration.millis(1)), watermark, bucket, out)) {
      clock = null;
    }
    bucket.flush();
    if (clock == null) {
      bucket.tick().clear();
      return;
    }
    arm(bucket.expiry(), later(bucket.clock().read().hold(), heldAt), watermark, bucket.tick());
  }

  /** The runner's watermark, never behind what the bucket already saw. */
  private Instant seen(WatermarkTick current) {
    Instant read = watermarks.inputWatermark();
    if (read == null) {
      read = BoundedWindow.TIMESTAMP_MIN_VALUE;
    }
    if (current == null) {
      return read;
    }
    if (read.isBefore(current.watermark())) {
      STALE_WATERMARKS.inc();
      return current.watermark();
    }
    return read;
  }

  private static void arm(
      Timer expiry, Instant hold, Instant watermark, ValueState<WatermarkTick> tick) {
    Instant target = expiry.getCurrentRelativeTime().plus(TICK);
    expiry.withOutputTimestamp(hold).set(target);
    tick.write(new WatermarkTick(target, watermark));
  }

  @Override
  void armTimer(Bucket bucket, Instant due, Instant hold) {
    // The timer calls the bucket back every batch whatever the due time; the clock records it.
  }

  @Override
  Instant dueAfterEvent(PairingEntry entry, Timer expiry) {
    return rules.expiryOf(entry.t0());
  }
}
