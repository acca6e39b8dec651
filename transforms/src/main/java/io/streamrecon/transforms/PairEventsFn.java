package io.streamrecon.transforms;

import io.streamrecon.model.EventRef;
import io.streamrecon.model.LateEvent;
import io.streamrecon.model.Verdict;
import io.streamrecon.transforms.ModelCoders.EventRefCoder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.state.BagState;
import org.apache.beam.sdk.state.MapState;
import org.apache.beam.sdk.state.StateSpec;
import org.apache.beam.sdk.state.StateSpecs;
import org.apache.beam.sdk.state.TimeDomain;
import org.apache.beam.sdk.state.Timer;
import org.apache.beam.sdk.state.TimerSpec;
import org.apache.beam.sdk.state.TimerSpecs;
import org.apache.beam.sdk.state.ValueState;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * The stateful shell around {@link PairingRules}, keyed by a <em>bucket</em> of natural ids ({@link
 * PairEvents#withBuckets}), so that the number of runner keys, runner timers and per-key runner
 * bookkeeping is bounded by the bucket count, not by every natural id ever seen.
 *
 * <p><b>Kept per bucket</b>:
 *
 * <ul>
 *   <li>{@value #ENTRIES_STATE}: a {@link MapState} natural id → open {@link PairingEntry} (t0,
 *       due time, at most one kept event per side as metadata; the id is the map key and is not
 *       stored again).
 *   <li>{@value #SLOTS_STATE}: the expiry index, a {@link MapState} slot → {@link ExpirySlot} (the
 *       ids falling due within that slot and their exact due times). A slot is a {@code grain} of
 *       time, 1/16 of the timeout (or processing grace), so a bucket has few live slots.
 *   <li>{@value #CLOCK_STATE}: the {@link BucketClock} (the one timer's target and output hold, and
 *       the last slot in use).
 *   <li>One timer {@value #EXPIRY_TIMER}, at the earliest due time of the bucket's entries.
 * </ul>
 *
 * <p><b>Size</b>: an open entry with one kept event costs 21 bytes of map key (a 20-character id),
 * 69 bytes of entry and 6 bytes of index (its id front-coded against its slot neighbour, and its
 * due offset): 96 bytes, measured with these coders by {@code
 * PairingEntryCoderTest.stateOfAnOpenEntryIsAtMost100Bytes}; an id sharing no prefix with its
 * neighbour costs up to its length more in the index. The clock is about 10 bytes per non-empty
 * bucket.
 *
 * <p><b>Cleared</b>: an entry (map entry and its index slot entry) when it expires, in the
 * {@code @OnTimer} callback; rule 5 replaces an entry and moves its index entry. When the last
 * entry of a bucket expires, its clock is cleared and no timer is re-set: an empty bucket keeps no
 * state and no timer.
 *
 * <p><b>Firing</b>: the timer fires at the earliest due time. The callback walks the index from
 * that slot, reads only the slots whose time has come, expires the entries of those slots that are
 * due (due at or before the firing time, or before the current input watermark or processing
 * time), and re-sets the timer at the earliest remaining due time, found in the first slot still
 * holding an id (empty slots between are skipped by the walk, up to {@link BucketClock#lastSlot}).
 * It never reads the whole bucket.
 *
 * <p><b>Stale timers</b>: some runners (Flink 1.19 with Beam 2.70) still fire a timer that was
 * re-set. The clock stores the target the live timer was set for, and {@code @OnTimer} ignores a
 * firing whose timestamp differs, or that finds no clock (counted as {@code stale_timer_firings}).
 *
 * <p>Four concrete subclasses, because a runner may reject a DoFn merely for <em>declaring</em> an
 * event-time timer (the classic Spark runner in streaming mode: "EVENT_TIME not yet supported in
 * streaming mode"), and because {@code @RequiresTimeSortedInput} is a property of the method. The
 * one for that Spark mode ({@link PolledWatermarkExpiry}) keeps one more state, {@value
 * #TICK_STATE}, and sets its timer to be called back rather than at the due time. The one for
 * bounded input ({@link SortedBoundedExpiry}) keeps the bucket's events of the latest event time
 * in {@value #TIES_STATE} with a timer {@value #TIES_TIMER} at that time, and applies them in
 * {@link SameTimeOrder} once the next event time or the watermark passes it; they are cleared
 * then.
 *
 * <p><b>Output timestamps</b>: verdicts from {@code @ProcessElement} carry the element timestamp.
 * The timer's output timestamp (its watermark hold) is, when set from an element, {@code max(t0 +
 * timeout of the entry due next, element timestamp)}; when re-set from a firing, the same with the
 * firing's hold as the lower bound. A verdict from {@code @OnTimer} carries {@code max(its t0 +
 * timeout, the firing's hold)}: never behind the output watermark, which the hold kept back.
 */
abstract class PairEventsFn<InputT> extends DoFn<KV<Integer, InputT>, Verdict> {
  private static final long serialVersionUID = 1L;

  static final String ENTRIES_STATE = "entries";
  static final String SLOTS_STATE = "slots";
  static final String CLOCK_STATE = "clock";
  static final String TICK_STATE = "tick";
  static final String EXPIRY_TIMER = "expiry";
  static final String TIES_STATE = "ties";
  static final String TIES_TIMER = "ties";

  /** Slots per timeout: a firing reads at most about 1/16 of a timeout's worth of entries early. */
  static final int SLOTS_PER_TIMEOUT = 16;

  private static final Counter MATCH = counter(PairEvents.METRIC_MATCH);
  private static final Counter MISMATCH = counter(PairEvents.METRIC_MISMATCH);
  private static final Counter MISSING_IN_TARGET = counter(PairEvents.METRIC_MISSING_IN_TARGET);
  private static final Counter MISSING_IN_SOURCE = counter(PairEvents.METRIC_MISSING_IN_SOURCE);
  private static final Counter DUPLICATE = counter(PairEvents.METRIC_DUPLICATE);
  private static final Counter SUPERSEDED = counter(PairEvents.METRIC_SUPERSEDED);
  private static final Counter LATE = counter(PairEvents.METRIC_LATE);
  private static final Counter EVENTS_IN_VERDICTS = counter(PairEvents.METRIC_EVENTS_IN_VERDICTS);
  private static final Counter ENTRIES_OPENED = counter(PairEvents.METRIC_ENTRIES_OPENED);
  private static final Counter ENTRIES_CLOSED = counter(PairEvents.METRIC_ENTRIES_CLOSED);
  private static final Counter STALE_TIMER_FIRINGS = counter(PairEvents.METRIC_STALE_TIMER_FIRINGS);
  private static final Counter EXPIRIES_POSTPONED = counter(PairEvents.METRIC_EXPIRIES_POSTPONED);
  private static final Counter STALE_WATERMARKS = counter(PairEvents.METRIC_STALE_WATERMARKS);

  final PairingRules rules;
  private final long grainMillis;
  /**
   * Whether MATCH verdicts that supersede nothing are emitted (else only counted): {@code
   * emitMatches}. The field keeps its name because it is part of this DoFn's serialized form,
   * which a Spark Streaming checkpoint holds.
   */
  private final boolean plainMatches;

  PairEventsFn(PairingRules rules, Duration dueSpan, boolean emitMatches) {
    this.rules = Objects.requireNonNull(rules, "rules");
    this.grainMillis = Math.max(1, dueSpan.getMillis() / SLOTS_PER_TIMEOUT);
    this.plainMatches = emitMatches;
  }

  private static Counter counter(String name) {
    return Metrics.counter(PairEvents.METRIC_NAMESPACE, name);
  }

  /** The bucket state of one key, as bound by the runner for one call. */
  record Bucket(
      BucketMap<String, PairingEntry> entries,
      BucketMap<Long, ExpirySlot> slots,
      ValueState<BucketClock> clock,
      Timer expiry,
      ValueState<WatermarkTick> tick) {
    Bucket(
        MapState<String, PairingEntry> entries,
        MapState<Long, ExpirySlot> slots,
        ValueState<BucketClock> clock,
        Timer expiry) {
      this(BucketMap.of(entries), BucketMap.of(slots), clock, expiry, null);
    }

    /** Writes what the call changed in maps held whole; the runner stores the rest itself. */
    void flush() {
      entries.flush();
      slots.flush();
    }
  }

  static StateSpec<MapState<String, PairingEntry>> entriesSpec() {
    return StateSpecs.map(StringUtf8Coder.of(), PairingEntryCoder.of());
  }

  static StateSpec<MapState<Long, ExpirySlot>> slotsSpec() {
    return StateSpecs.map(VarLongCoder.of(), ExpirySlotCoder.of());
  }

  static StateSpec<ValueState<BucketClock>> clockSpec() {
    return StateSpecs.value(BucketClock.Coder.of());
  }

  /**
   * The due time of {@code entry} after this event: {@code t0 + timeout} in event time; a
   * processing-time clock moves it on every event.
   */
  abstract Instant dueAfterEvent(PairingEntry entry, Timer expiry);

  /**
   * The earliest time any entry may expire when the timer fires with the clock at {@code now}, or
   * {@code null} for no such bound. Due entries before it are moved to it instead of expiring.
   */
  Instant expiresNotBefore(Instant now) {
    return null;
  }

  /**
   * Applies the rules to one event that is not late and stores the result. {@code watermark} is
   * the input watermark, or {@code null} where it cannot be read or does not apply: an entry whose
   * due time the watermark has already passed is finished before the event is applied, even if
   * the bucket's timer has not fired yet, so the outcome does not depend on that race.
   */
  final void pair(
      EventRef event,
      Instant elementTimestamp,
      Instant watermark,
      Bucket bucket,
      MultiOutputReceiver out) {
    pair(event, elementTimestamp, watermark, bucket, out, null);
  }

  /**
   * As {@link #pair(EventRef, Instant, Instant, Bucket, MultiOutputReceiver)}, its verdicts output
   * at {@code outputTimestamp} (the element's when null).
   */
  final void pair(
      EventRef event,
      Instant elementTimestamp,
      Instant watermark,
      Bucket bucket,
      MultiOutputReceiver out,
      Instant outputTimestamp) {
    String naturalId = event.naturalId();
    PairingEntry entry = read(bucket.entries(), naturalId);
    PairingRules.Step step;
    if (entry != null && watermark != null && watermark.isAfter(entry.timerTarget())) {
      step = rules.expire(naturalId, entry).then(rules.onEvent(naturalId, null, event));
    } else {
      step = rules.onEvent(naturalId, entry, event);
    }
    emit(step, out, outputTimestamp);
    PairingEntry next = step.entry();
    Instant due = dueAfterEvent(next, bucket.expiry());
    if (!due.equals(next.timerTarget())) {
      next = next.withTimerTarget(due);
    }
    if (next != entry) {
      bucket.entries().put(naturalId, next);
    }
    if (entry == null || !entry.timerTarget().equals(next.timerTarget())) {
      // Add before removing, so that no map state is ever left empty and then written to: on
      // Spark streaming an emptied MapState decodes as Collections.emptyMap() (Beam 2.70's
      // MapCoder), whose put throws UnsupportedOperationException.
      index(bucket, naturalId, next, elementTimestamp);
      if (entry != null
          && BucketClock.slotOf(entry.timerTarget(), grainMillis)
              != BucketClock.slotOf(next.timerTarget(), grainMillis)) {
        unindex(bucket, naturalId, entry.timerTarget());
      }
    }
  }

  /** Adds {@code naturalId} to the slot of its due time, moving the timer earlier if needed. */
  private void index(Bucket bucket, String naturalId, PairingEntry entry, Instant elementTimestamp) {
    Instant due = entry.timerTarget();
    long slot = BucketClock.slotOf(due, grainMillis);
    ExpirySlot current = bucket.slots().get(slot);
    bucket.slots().put(slot, (current == null ? ExpirySlot.EMPTY : current).with(naturalId, due));
    BucketClock clock = bucket.clock().read();
    if (clock == null || due.isBefore(clock.target())) {
      Instant hold = later(rules.expiryOf(entry.t0()), elementTimestamp);
      armTimer(bucket, due, hold);
      long lastSlot = clock == null ? slot : Math.max(slot, clock.lastSlot());
      bucket.clock().write(new BucketClock(due, hold, lastSlot));
    } else if (slot > clock.lastSlot()) {
      bucket.clock().write(new BucketClock(clock.target(), clock.hold(), slot));
    }
  }

  private void unindex(Bucket bucket, String naturalId, Instant due) {
    long slot = BucketClock.slotOf(due, grainMillis);
    ExpirySlot current = bucket.slots().get(slot);
    if (current == null) {
      return;
    }
    ExpirySlot rest = current.without(naturalId);
    if (rest.isEmpty()) {
      bucket.slots().remove(slot);
    } else if (rest != current) {
      bucket.slots().put(slot, rest);
    }
  }

  /**
   * The bucket's timer fired at {@code fireTimestamp}, with the input watermark (or processing
   * time) now at {@code now}: expire every due entry, re-set the timer at the next due time or
   * clear the bucket. Ignored when stale.
   */
  final void expire(Instant fireTimestamp, Instant now, Bucket bucket, MultiOutputReceiver out) {
    BucketClock clock = bucket.clock().read();
    if (clock == null || !clock.target().equals(fireTimestamp)) {
      STALE_TIMER_FIRINGS.inc();
      return;
    }
    sweep(clock, fireTimestamp, now, bucket, out);
  }

  /**
   * Expires every entry of the bucket due at or before {@code dueBy}, or before {@code now}, and
   * moves the clock (and, through {@link #armTimer}, the timer) to the next due time. Returns
   * true when the bucket is empty afterwards (its state then cleared).
   */
  final boolean sweep(
      BucketClock clock, Instant dueBy, Instant now, Bucket bucket, MultiOutputReceiver out) {
    Instant fireTimestamp = dueBy;
    Instant notBefore = expiresNotBefore(now);
    boolean postpone = notBefore != null && now.isBefore(notBefore);
    long lastSlot = clock.lastSlot();
    Map.Entry<String, Long> postponed = null;
    Map.Entry<String, Long> next = null;
    for (long slot = BucketClock.slotOf(clock.target(), grainMillis);
        slot <= clock.lastSlot();
        slot++) {
      ExpirySlot ids = bucket.slots().get(slot);
      if (ids == null) {
        continue;
      }
      TreeMap<String, Long> remaining = new TreeMap<>();
      List<String> due = new ArrayList<>();
      for (Map.Entry<String, Long> id : ids.dues().entrySet()) {
        long at = id.getValue();
        if (at <= fireTimestamp.getMillis() || at < now.getMillis()) {
          due.add(id.getKey());
        } else {
          remaining.put(id.getKey(), at);
        }
      }
      for (String naturalId : due) {
        PairingEntry entry = read(bucket.entries(), naturalId);
        if (entry == null) {
          continue;
        }
        if (postpone) {
          // Moved, not expired: into its new slot before this one may be removed, so that the
          // slots map is never emptied and written to again (see pair()).
          bucket.entries().put(naturalId, entry.withTimerTarget(notBefore));
          long to = BucketClock.slotOf(notBefore, grainMillis);
          if (to == slot) {
            remaining.put(naturalId, notBefore.getMillis());
          } else {
            ExpirySlot target = bucket.slots().get(to);
            bucket.slots().put(
                to, (target == null ? ExpirySlot.EMPTY : target).with(naturalId, notBefore));
            lastSlot = Math.max(lastSlot, to);
          }
          postponed = Map.entry(naturalId, notBefore.getMillis());
          EXPIRIES_POSTPONED.inc();
          continue;
        }
        emit(rules.expire(naturalId, entry), out, later(rules.expiryOf(entry.t0()), clock.hold()));
        bucket.entries().remove(naturalId);
      }
      if (remaining.isEmpty()) {
        bucket.slots().remove(slot);
        continue;
      }
      ExpirySlot rest = new ExpirySlot(remaining);
      if (!due.isEmpty()) {
        bucket.slots().put(slot, rest);
      }
      next = rest.earliest();
      break;
    }
    if (postponed != null && (next == null || postponed.getValue() < next.getValue())) {
      next = postponed;
    }
    if (next == null) {
      // Cleared rather than left as empty maps: see pair() on Spark's emptied MapState.
      bucket.entries().clear();
      bucket.slots().clear();
      bucket.clock().clear();
      return true;
    }
    Instant nextDue = Instant.ofEpochMilli(next.getValue());
    PairingEntry nextEntry = read(bucket.entries(), next.getKey());
    Instant hold =
        nextEntry == null ? clock.hold() : later(rules.expiryOf(nextEntry.t0()), clock.hold());
    armTimer(bucket, nextDue, hold);
    bucket.clock().write(new BucketClock(nextDue, hold, lastSlot));
    return false;
  }

  /**
   * Sets the bucket's timer for its earliest due time {@code due}, holding output at {@code
   * hold}. A variant whose timer does not fire at the due time overrides this.
   */
  void armTimer(Bucket bucket, Instant due, Instant hold) {
    bucket.expiry().withOutputTimestamp(hold).set(due);
  }

  /** Routes {@code event} to {@link PairEvents#LATE}. */
  static void late(EventRef event, Instant watermark, MultiOutputReceiver out) {
    LATE.inc();
    out.get(PairEvents.LATE).output(new LateEvent(event, watermark));
  }

  static Instant later(Instant a, Instant b) {
    return a.isBefore(b) ? b : a;
  }

  private static PairingEntry read(BucketMap<String, PairingEntry> entries, String naturalId) {
    PairingEntry stored = entries.get(naturalId);
    return stored == null ? null : stored.forKey(naturalId);
  }

  /** Emits the step's verdicts, with {@code timestamp} if given, else the current one. */
  private void emit(PairingRules.Step step, MultiOutputReceiver out, Instant timestamp) {
    for (Verdict verdict : step.verdicts()) {
      switch (verdict.status()) {
        case MISMATCH -> {
          MISMATCH.inc();
          output(out.get(PairEvents.MISMATCHES), verdict, timestamp);
        }
        case MATCH -> {
          MATCH.inc();
          if (plainMatches || verdict.supersedes() != null) {
            output(out.get(PairEvents.VERDICTS), verdict, timestamp);
          }
        }
        case MISSING_IN_TARGET -> {
          MISSING_IN_TARGET.inc();
          output(out.get(PairEvents.VERDICTS), verdict, timestamp);
        }
        case MISSING_IN_SOURCE -> {
          MISSING_IN_SOURCE.inc();
          output(out.get(PairEvents.VERDICTS), verdict, timestamp);
        }
      }
    }
    incIfPositive(DUPLICATE, step.duplicates());
    incIfPositive(SUPERSEDED, step.superseded());
    incIfPositive(EVENTS_IN_VERDICTS, step.eventsInVerdicts());
    incIfPositive(ENTRIES_OPENED, step.entriesOpened());
    incIfPositive(ENTRIES_CLOSED, step.entriesClosed());
  }

  private static void output(OutputReceiver<Verdict> receiver, Verdict verdict, Instant timestamp) {
    if (timestamp == null) {
      receiver.output(verdict);
    } else {
      receiver.outputWithTimestamp(verdict, timestamp);
    }
  }

  private static void incIfPositive(Counter counter, int n) {
    if (n > 0) {
      counter.inc(n);
    }
  }

  /**
   * Expiry by event time (the default): an entry expires when the input watermark passes {@code
   * t0 + timeout}, and events later than the watermark by more than the allowed lateness go to
   * {@link PairEvents#LATE}.
   *
   * <p><b>Reading the watermark</b>: Beam has no public accessor for the input watermark in
   * {@code @ProcessElement}. {@link Timer#getCurrentRelativeTime()} on an {@code EVENT_TIME} timer
   * returns it: in Beam 2.70 {@code SimpleDoFnRunner.TimerInternalsTimer} answers with {@code
   * timerInternals.currentInputWatermarkTime()} (checked with javap on
   * beam-runners-core-java-2.70.0), and the Direct, Spark and Flink runners all run DoFns through
   * {@code SimpleDoFnRunner}.
   */
  static final class EventTimeExpiry extends PairEventsFn<EventRef> {
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

  /**
   * Event-time expiry for a bounded input, which the runner hands over sorted by event time per
   * key (here per bucket, which sorts each natural id's events too) with {@link
   * RequiresTimeSortedInput}. Rule 5 finishes an entry when an event lies more than the timeout
   * from t0, which is only right when a key's events come in event-time order; a batch runner
   * otherwise delivers them in any order (the SparkRunner split keys with many episodes into wrong
   * entries). A bounded input has no late data, and runners flush the sorted buffer when the
   * watermark has already jumped to its end, so this variant neither reads the watermark nor
   * checks lateness in {@code @ProcessElement}.
   */
  static final class SortedBoundedExpiry extends PairEventsFn<EventRef> {
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
     * time came, or the watermark passed it), then applies them in {@link SameTimeOrder}: the
     * sort asked of the runner leaves equal times in arrival order.
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

    private static List<TimestampedValue<EventRef>> held(
        BagState<TimestampedValue<EventRef>> ties) {
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

  /**
   * Expiry by wall clock: an entry expires {@code grace} of processing time after its natural
   * id's last event (its due time moves on every event, and with it its index entry; the bucket's
   * timer stays at the earliest due time, which only ever comes earlier). Declares no event-time
   * timer, so it runs where event-time timers are rejected (Spark streaming). The watermark cannot
   * be read without an event-time timer, so lateness detection is off here: no event goes to
   * {@link PairEvents#LATE}. Rules 2–5 still compare event times.
   *
   * <p><b>Downtime does not count.</b> A job restored from its checkpoint after a crash finds
   * entries whose grace ran out while it was down, and their partners may still wait in Kafka
   * behind the restored position. So in each JVM, no entry expires before {@code grace} has passed
   * since this DoFn's first call there: entries due earlier move to that time (counted as {@value
   * PairEvents#METRIC_EXPIRIES_POSTPONED}). A fresh job is not affected, as its entries are all due
   * a grace after their events. The first call is kept per DoFn (a UUID that serialized copies
   * share) for the life of the JVM, so new DoFn instances per micro-batch do not start it again.
   */
  static final class ProcessingTimeExpiry extends PairEventsFn<EventRef> {
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

  /**
   * Expiry by event time where the runner gives stateful DoFns no event-time timers but tracks the
   * watermark itself (Beam's classic SparkRunner in streaming mode): the watermark is read from a
   * {@link WatermarkSource} on every call, and a processing-time timer ({@value #EXPIRY_TIMER})
   * only calls the bucket back, once per micro-batch on Spark, to compare it with the bucket's
   * earliest due time. An entry expires when that watermark passes {@code t0 + timeout}, and an
   * event later than it by more than the allowed lateness goes to {@link PairEvents#LATE}, as with
   * {@link EventTimeExpiry}; how long a batch took or how late a partner was read in wall-clock
   * time changes nothing.
   *
   * <p><b>Kept per bucket</b>, besides the entries, index and clock of every variant: {@value
   * #TICK_STATE}, a {@link WatermarkTick} (the processing time the live timer is set for, and the
   * latest watermark the bucket saw). It is written when the bucket's first entry opens and
   * cleared with the rest of the bucket's state when its last entry expires; an empty bucket keeps
   * no state and no timer. The entries and the index are each held as one value ({@link
   * BucketMap#loaded}) and written once per call, because that runner's map state codes the whole
   * map on every access; their coder ({@link WholeMapCoder}) keeps each entry's bytes and the
   * last map a bucket wrote, so that a call codes only the entries it changed.
   *
   * <p><b>Input</b>: a bucket's events of a bundle gathered into one element ({@link
   * GatherBucketsFn}), because that runner makes one call, with the bucket's state loaded and
   * stored, per element.
   *
   * <p><b>Firings</b>: the timer is re-set a {@link #TICK} of processing time ahead at every
   * firing while the bucket holds entries. A firing for another time than the tick's target is
   * stale and ignored (counted as {@code stale_timer_firings}); a watermark reading older than one
   * the bucket already saw is ignored (counted as {@code stale_watermarks}), so the watermark a
   * bucket acts on never goes back. A firing with no entry due only re-sets the timer.
   */
  static final class PolledWatermarkExpiry
      extends PairEventsFn<List<TimestampedValue<EventRef>>> {
    private static final long serialVersionUID = 1L;

    /**
     * How far ahead the callback timer is set: short, so that on Spark it is due at the bucket's
     * next micro-batch whatever the batch interval, and the bucket expires its entries in the
     * batch after the watermark passed them. Spark fires it again in the same call only if the
     * call outlasts it, and such a firing sees the same watermark and only re-sets the timer.
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
      return new Bucket(
          BucketMap.loaded(entries), BucketMap.loaded(slots), clock, expiry, tick);
    }

    /**
     * One callback: expires the entries the watermark has passed, then calls the bucket back
     * again, or clears it when it is empty.
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
}
