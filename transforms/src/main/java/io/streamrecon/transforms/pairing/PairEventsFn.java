package io.streamrecon.transforms.pairing;

import io.streamrecon.model.EventRef;
import io.streamrecon.model.LateEvent;
import io.streamrecon.model.Verdict;
import io.streamrecon.transforms.pairing.sparkstreaming.WatermarkTick;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.state.MapState;
import org.apache.beam.sdk.state.StateSpec;
import org.apache.beam.sdk.state.StateSpecs;
import org.apache.beam.sdk.state.Timer;
import org.apache.beam.sdk.state.ValueState;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.values.KV;
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
 *   <li>{@value #ENTRIES_STATE}: a {@link MapState} natural id → open {@link PairingEntry} (t0, due
 *       time, at most one kept event per side as metadata; the id is the map key and is not stored
 *       again).
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
 * due (due at or before the firing time, or before the current input watermark or processing time),
 * and re-sets the timer at the earliest remaining due time, found in the first slot still holding
 * an id (empty slots between are skipped by the walk, up to {@link BucketClock#lastSlot}). It never
 * reads the whole bucket.
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
 * bounded input ({@link SortedBoundedExpiry}) keeps the bucket's events of the latest event time in
 * {@value #TIES_STATE} with a timer {@value #TIES_TIMER} at that time, and applies them in {@link
 * SameTimeOrder} once the next event time or the watermark passes it; they are cleared then.
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
  static final Counter STALE_TIMER_FIRINGS = counter(PairEvents.METRIC_STALE_TIMER_FIRINGS);
  private static final Counter EXPIRIES_POSTPONED = counter(PairEvents.METRIC_EXPIRIES_POSTPONED);
  static final Counter STALE_WATERMARKS = counter(PairEvents.METRIC_STALE_WATERMARKS);

  final PairingRules rules;
  private final long grainMillis;

  /**
   * Whether MATCH verdicts that supersede nothing are emitted (else only counted): {@code
   * emitMatches}. The field keeps its name because it is part of this DoFn's serialized form, which
   * a Spark Streaming checkpoint holds.
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
   * Applies the rules to one event that is not late and stores the result. {@code watermark} is the
   * input watermark, or {@code null} where it cannot be read or does not apply: an entry whose due
   * time the watermark has already passed is finished before the event is applied, even if the
   * bucket's timer has not fired yet, so the outcome does not depend on that race.
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
  private void index(
      Bucket bucket, String naturalId, PairingEntry entry, Instant elementTimestamp) {
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
   * moves the clock (and, through {@link #armTimer}, the timer) to the next due time. Returns true
   * when the bucket is empty afterwards (its state then cleared).
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
            bucket
                .slots()
                .put(to, (target == null ? ExpirySlot.EMPTY : target).with(naturalId, notBefore));
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
   * Sets the bucket's timer for its earliest due time {@code due}, holding output at {@code hold}.
   * A variant whose timer does not fire at the due time overrides this.
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

  static PairingEntry read(BucketMap<String, PairingEntry> entries, String naturalId) {
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
}
