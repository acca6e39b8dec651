package io.streamrecon.transforms;

import io.streamrecon.model.EventRef;
import io.streamrecon.model.LateEvent;
import io.streamrecon.model.Verdict;
import java.util.Objects;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.state.StateSpec;
import org.apache.beam.sdk.state.StateSpecs;
import org.apache.beam.sdk.state.TimeDomain;
import org.apache.beam.sdk.state.Timer;
import org.apache.beam.sdk.state.TimerSpec;
import org.apache.beam.sdk.state.TimerSpecs;
import org.apache.beam.sdk.state.ValueState;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.values.KV;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * The stateful shell around {@link PairingRules}, keyed by natural id.
 *
 * <p><b>Kept per key</b>: one {@link ValueState} {@value #ENTRY_STATE} holding the open {@link
 * PairingEntry} (t0, the expected expiry timer target, at most one kept event per side as
 * metadata, about 75 bytes with one event; the natural id is the key and is not stored again), and
 * one timer {@value #EXPIRY_TIMER}. <b>Cleared</b> when the entry expires: state cleared in the
 * {@code @OnTimer} callback, whose timer has then fired. When rule 5 replaces an entry, the state is
 * overwritten and the timer re-set. No key keeps state after its entry expired.
 *
 * <p><b>Stale timers</b>: some runners (Flink 1.19 with Beam 2.70) still fire a timer that was
 * cleared or re-set. The state stores the target the live timer was set for, and {@code @OnTimer}
 * ignores a firing whose timestamp differs, or that finds no entry (counted as {@code
 * stale_timer_firings}).
 *
 * <p>Two concrete subclasses, because a runner may reject a DoFn merely for <em>declaring</em> an
 * event-time timer (the classic Spark runner in streaming mode: "EVENT_TIME not yet supported in
 * streaming mode"): {@link EventTimeExpiry} declares only an event-time timer, {@link
 * ProcessingTimeExpiry} only a processing-time timer.
 *
 * <p><b>Output timestamps</b>: verdicts from {@code @ProcessElement} carry the element timestamp.
 * The expiry timer is set with output timestamp {@code max(t0 + timeout, element timestamp)}, so
 * the timer holds this transform's output watermark there until it fires, and verdicts from
 * {@code @OnTimer} carry that timestamp: a MISSING verdict is never behind the output watermark.
 */
abstract class PairEventsFn extends DoFn<KV<String, EventRef>, Verdict> {
  private static final long serialVersionUID = 1L;

  static final String ENTRY_STATE = "entry";
  static final String EXPIRY_TIMER = "expiry";

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

  final PairingRules rules;

  PairEventsFn(PairingRules rules) {
    this.rules = Objects.requireNonNull(rules, "rules");
  }

  private static Counter counter(String name) {
    return Metrics.counter(PairEvents.METRIC_NAMESPACE, name);
  }

  /**
   * Sets the expiry timer for {@code entry} if this clock needs it after this event, and returns
   * the entry with the target the timer was set for.
   */
  abstract PairingEntry scheduleExpiry(
      PairingEntry entry, boolean opened, Instant elementTimestamp, Timer expiry);

  /**
   * Applies the rules to one event that is not late and stores the result. {@code watermark} is
   * the input watermark, or {@code null} where it cannot be read (processing-time mode): an entry
   * whose expiry the watermark has already passed is finished before the event is applied, even
   * if its timer has not fired yet, so the outcome does not depend on that race.
   */
  final void pair(
      String naturalId,
      EventRef event,
      Instant elementTimestamp,
      Instant watermark,
      ValueState<PairingEntry> state,
      Timer expiry,
      MultiOutputReceiver out) {
    PairingEntry entry = read(state, naturalId);
    PairingRules.Step step;
    if (entry != null && watermark != null && watermark.isAfter(entry.timerTarget())) {
      step = rules.expire(naturalId, entry).then(rules.onEvent(naturalId, null, event));
    } else {
      step = rules.onEvent(naturalId, entry, event);
    }
    emit(step, out);
    PairingEntry next = scheduleExpiry(step.entry(), step.opened(), elementTimestamp, expiry);
    if (next != entry) {
      state.write(next);
    }
  }

  /** Event-time expiry: one timer at t0 + timeout, set when an entry opens. */
  final PairingEntry scheduleAtEntryTarget(
      PairingEntry entry, boolean opened, Instant elementTimestamp, Timer expiry) {
    if (opened) {
      // Re-setting the one timer id replaces the previous entry's timer (rule 5).
      expiry.withOutputTimestamp(holdFor(entry, elementTimestamp)).set(entry.timerTarget());
    }
    return entry;
  }

  /** The expiry timer fired at {@code fireTimestamp}: finish the entry unless the firing is stale. */
  final void expire(
      String naturalId,
      Instant fireTimestamp,
      ValueState<PairingEntry> state,
      MultiOutputReceiver out) {
    PairingEntry entry = read(state, naturalId);
    if (entry == null || !entry.timerTarget().equals(fireTimestamp)) {
      STALE_TIMER_FIRINGS.inc();
      return;
    }
    emit(rules.expire(naturalId, entry), out);
    state.clear();
  }

  /** Routes {@code event} to {@link PairEvents#LATE}. */
  static void late(EventRef event, Instant watermark, MultiOutputReceiver out) {
    LATE.inc();
    out.get(PairEvents.LATE).output(new LateEvent(event, watermark));
  }

  /** Where the expiry timer holds the output watermark: see the class Javadoc. */
  final Instant holdFor(PairingEntry entry, Instant elementTimestamp) {
    Instant expiry = rules.expiryOf(entry.t0());
    return expiry.isBefore(elementTimestamp) ? elementTimestamp : expiry;
  }

  private static PairingEntry read(ValueState<PairingEntry> state, String naturalId) {
    PairingEntry stored = state.read();
    return stored == null ? null : stored.forKey(naturalId);
  }

  private static void emit(PairingRules.Step step, MultiOutputReceiver out) {
    for (Verdict verdict : step.verdicts()) {
      switch (verdict.status()) {
        case MISMATCH -> {
          MISMATCH.inc();
          out.get(PairEvents.MISMATCHES).output(verdict);
        }
        case MATCH -> {
          MATCH.inc();
          out.get(PairEvents.VERDICTS).output(verdict);
        }
        case MISSING_IN_TARGET -> {
          MISSING_IN_TARGET.inc();
          out.get(PairEvents.VERDICTS).output(verdict);
        }
        case MISSING_IN_SOURCE -> {
          MISSING_IN_SOURCE.inc();
          out.get(PairEvents.VERDICTS).output(verdict);
        }
      }
    }
    incIfPositive(DUPLICATE, step.duplicates());
    incIfPositive(SUPERSEDED, step.superseded());
    incIfPositive(EVENTS_IN_VERDICTS, step.eventsInVerdicts());
    incIfPositive(ENTRIES_OPENED, step.entriesOpened());
    incIfPositive(ENTRIES_CLOSED, step.entriesClosed());
  }

  private static void incIfPositive(Counter counter, int n) {
    if (n > 0) {
      counter.inc(n);
    }
  }

  /**
   * Expiry by event time (the default): the entry expires when the input watermark passes {@code
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
  static final class EventTimeExpiry extends PairEventsFn {
    private static final long serialVersionUID = 1L;

    // Beam lets a method use state only from the class that declares it, hence once per subclass.
    @StateId(ENTRY_STATE)
    private final StateSpec<ValueState<PairingEntry>> entrySpec =
        StateSpecs.value(PairingEntryCoder.of());

    @TimerId(EXPIRY_TIMER)
    private final TimerSpec expirySpec = TimerSpecs.timer(TimeDomain.EVENT_TIME);

    private final Duration allowedLateness;

    EventTimeExpiry(PairingRules rules, Duration allowedLateness) {
      super(rules);
      this.allowedLateness = Objects.requireNonNull(allowedLateness, "allowedLateness");
    }

    @ProcessElement
    public void processElement(
        @Element KV<String, EventRef> element,
        @Timestamp Instant timestamp,
        @StateId(ENTRY_STATE) ValueState<PairingEntry> state,
        @TimerId(EXPIRY_TIMER) Timer expiry,
        MultiOutputReceiver out) {
      Instant watermark = expiry.getCurrentRelativeTime();
      EventRef event = element.getValue();
      if (event.eventTime().plus(allowedLateness).isBefore(watermark)) {
        late(event, watermark, out);
        return;
      }
      pair(element.getKey(), event, timestamp, watermark, state, expiry, out);
    }

    @OnTimer(EXPIRY_TIMER)
    public void onExpiry(
        OnTimerContext context,
        @Key String naturalId,
        @StateId(ENTRY_STATE) ValueState<PairingEntry> state,
        MultiOutputReceiver out) {
      expire(naturalId, context.fireTimestamp(), state, out);
    }

    @Override
    PairingEntry scheduleExpiry(
        PairingEntry entry, boolean opened, Instant elementTimestamp, Timer expiry) {
      return scheduleAtEntryTarget(entry, opened, elementTimestamp, expiry);
    }
  }

  /**
   * Event-time expiry for a bounded input, which the runner hands over sorted by event time per
   * key ({@link RequiresTimeSortedInput}). Rule 5 finishes an entry when an event lies more than
   * the timeout from t0, which is only right when a key's events come in event-time order; a batch
   * runner otherwise delivers them in any order (the SparkRunner split keys with many episodes
   * into wrong entries). A bounded input has no late data, and runners flush the sorted buffer
   * when the watermark has already jumped to its end, so this variant neither reads the watermark
   * nor checks lateness.
   */
  static final class SortedBoundedExpiry extends PairEventsFn {
    private static final long serialVersionUID = 1L;

    // Beam lets a method use state only from the class that declares it, hence once per subclass.
    @StateId(ENTRY_STATE)
    private final StateSpec<ValueState<PairingEntry>> entrySpec =
        StateSpecs.value(PairingEntryCoder.of());

    @TimerId(EXPIRY_TIMER)
    private final TimerSpec expirySpec = TimerSpecs.timer(TimeDomain.EVENT_TIME);

    SortedBoundedExpiry(PairingRules rules) {
      super(rules);
    }

    @RequiresTimeSortedInput
    @ProcessElement
    public void processElement(
        @Element KV<String, EventRef> element,
        @Timestamp Instant timestamp,
        @StateId(ENTRY_STATE) ValueState<PairingEntry> state,
        @TimerId(EXPIRY_TIMER) Timer expiry,
        MultiOutputReceiver out) {
      pair(element.getKey(), element.getValue(), timestamp, null, state, expiry, out);
    }

    @OnTimer(EXPIRY_TIMER)
    public void onExpiry(
        OnTimerContext context,
        @Key String naturalId,
        @StateId(ENTRY_STATE) ValueState<PairingEntry> state,
        MultiOutputReceiver out) {
      expire(naturalId, context.fireTimestamp(), state, out);
    }

    @Override
    PairingEntry scheduleExpiry(
        PairingEntry entry, boolean opened, Instant elementTimestamp, Timer expiry) {
      return scheduleAtEntryTarget(entry, opened, elementTimestamp, expiry);
    }
  }

  /**
   * Expiry by wall clock: the entry expires {@code grace} of processing time after the key's last
   * event (the timer is re-set on every event). Declares no event-time timer, so it runs where
   * event-time timers are rejected (Spark streaming). The watermark cannot be read without an
   * event-time timer, so lateness detection is off here: no event goes to {@link
   * PairEvents#LATE}. Rules 2–5 still compare event times.
   */
  static final class ProcessingTimeExpiry extends PairEventsFn {
    private static final long serialVersionUID = 1L;

    // Beam lets a method use state only from the class that declares it, hence once per subclass.
    @StateId(ENTRY_STATE)
    private final StateSpec<ValueState<PairingEntry>> entrySpec =
        StateSpecs.value(PairingEntryCoder.of());

    @TimerId(EXPIRY_TIMER)
    private final TimerSpec expirySpec = TimerSpecs.timer(TimeDomain.PROCESSING_TIME);

    private final Duration grace;

    ProcessingTimeExpiry(PairingRules rules, Duration grace) {
      super(rules);
      this.grace = Objects.requireNonNull(grace, "grace");
    }

    @ProcessElement
    public void processElement(
        @Element KV<String, EventRef> element,
        @Timestamp Instant timestamp,
        @StateId(ENTRY_STATE) ValueState<PairingEntry> state,
        @TimerId(EXPIRY_TIMER) Timer expiry,
        MultiOutputReceiver out) {
      pair(element.getKey(), element.getValue(), timestamp, null, state, expiry, out);
    }

    @OnTimer(EXPIRY_TIMER)
    public void onExpiry(
        OnTimerContext context,
        @Key String naturalId,
        @StateId(ENTRY_STATE) ValueState<PairingEntry> state,
        MultiOutputReceiver out) {
      expire(naturalId, context.fireTimestamp(), state, out);
    }

    @Override
    PairingEntry scheduleExpiry(
        PairingEntry entry, boolean opened, Instant elementTimestamp, Timer expiry) {
      Instant target = expiry.getCurrentRelativeTime().plus(grace);
      expiry.withOutputTimestamp(holdFor(entry, elementTimestamp)).set(target);
      return entry.withTimerTarget(target);
    }
  }
}
