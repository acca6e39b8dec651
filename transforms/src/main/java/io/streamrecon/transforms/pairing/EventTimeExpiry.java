package io.streamrecon.transforms.pairing;

import io.streamrecon.model.EventRef;
import java.util.Objects;
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
 * Expiry by event time (the default): an entry expires when the input watermark passes {@code t0 +
 * timeout}, and events later than the watermark by more than the allowed lateness go to {@link
 * PairEvents#LATE}.
 *
 * <p><b>Reading the watermark</b>: Beam has no public accessor for the input watermark in
 * {@code @ProcessElement}. {@link Timer#getCurrentRelativeTime()} on an {@code EVENT_TIME} timer
 * returns it: in Beam 2.70 {@code SimpleDoFnRunner.TimerInternalsTimer} answers with {@code
 * timerInternals.currentInputWatermarkTime()} (checked with javap on
 * beam-runners-core-java-2.70.0), and the Direct, Spark and Flink runners all run DoFns through
 * {@code SimpleDoFnRunner}.
 */
final class EventTimeExpiry extends PairEventsFn<EventRef> {
  private static final long serialVersionUID = 1L;

  // Beam lets a method use state only from the class that declares it, hence once per subclass.
  @StateId(ENTRIES_STATE)
  private final StateSpec<MapState<String, PairingEntry>> entriesSpec = entriesSpec();

  @StateId(SLOTS_STATE)
  private final StateSpec<MapState<Long, ExpirySlot>> slotsSpec = slotsSpec();

  @StateId(CLOCK_STATE)
  private final StateSpec<ValueState<BucketClock>> clockSpec = clockSpec();

  @TimerId(EXPIRY_TIMER)
  private final TimerSpec expirySpec = TimerSpecs.timer(TimeDomain.EVENT_TIME);

  private final Duration allowedLateness;

  EventTimeExpiry(PairingRules rules, Duration allowedLateness, boolean emitMatches) {
    super(rules, rules.timeout(), emitMatches);
    this.allowedLateness = Objects.requireNonNull(allowedLateness, "allowedLateness");
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
    Instant watermark = expiry.getCurrentRelativeTime();
    EventRef event = element.getValue();
    if (event.eventTime().plus(allowedLateness).isBefore(watermark)) {
      late(event, watermark, out);
      return;
    }
    pair(event, timestamp, watermark, new Bucket(entries, slots, clock, expiry), out);
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
    return rules.expiryOf(entry.t0());
  }
}
