package io.streamrecon.transforms;

import static io.streamrecon.transforms.PairFixtures.T0;
import static io.streamrecon.transforms.PairFixtures.TIMEOUT;
import static io.streamrecon.transforms.PairFixtures.hash;
import static io.streamrecon.transforms.PairFixtures.min;
import static io.streamrecon.transforms.PairFixtures.src;
import static io.streamrecon.transforms.PairFixtures.tgt;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;

import io.streamrecon.model.EventRef;
import io.streamrecon.model.LateEvent;
import io.streamrecon.model.Status;
import io.streamrecon.model.Verdict;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.coders.CoderException;
import org.apache.beam.sdk.state.Timer;
import org.apache.beam.sdk.state.ValueState;
import org.apache.beam.sdk.testing.TestOutputReceiver;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.Row;
import org.apache.beam.sdk.values.TupleTag;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.Test;

/**
 * The DoFn shell with its state, timer and outputs faked, to replay what a runner may do but the
 * DirectRunner never does: fire a timer that was re-set (as Flink did), or deliver an event after
 * the watermark passed an entry's expiry but before its timer fired. The fake state stores bytes,
 * as a real runner does, so the key-less state coding is exercised too.
 */
public class PairEventsFnTest {
  private static final String ID = "k";
  private static final String A = hash("a");
  private static final String B = hash("b");

  private final PairingRules rules = new PairingRules(TIMEOUT);
  private final PairEventsFn.EventTimeExpiry eventTimeFn =
      new PairEventsFn.EventTimeExpiry(rules, TIMEOUT);
  private final EncodedState state = new EncodedState();
  private final FakeTimer timer = new FakeTimer();
  private final Outputs out = new Outputs();

  private void process(EventRef event, Instant watermark) {
    timer.now = watermark;
    eventTimeFn.processElement(KV.of(ID, event), event.eventTime(), state, timer, out);
  }

  @Test
  public void staleFiringIsIgnoredAndTheLiveOneFinishesTheEntry() {
    EventRef s0 = src(ID, min(0), A);
    EventRef s20 = src(ID, min(20), A);
    process(s0, T0);
    assertEquals(T0.plus(TIMEOUT), timer.target);
    process(s20, T0); // rule 5: the first entry is finished now, the timer re-set.
    assertEquals(List.of(Verdict.of(ID, Status.MISSING_IN_TARGET, s0, null, null)), out.verdicts());
    assertEquals(T0.plus(min(20)).plus(TIMEOUT), timer.target);

    // The runner still delivers the first timer: nothing happens, the entry stays.
    eventTimeFn.expire(ID, T0.plus(TIMEOUT), state, out);
    assertEquals(1, out.verdicts().size());
    assertNotNull(state.read());

    eventTimeFn.expire(ID, timer.target, state, out);
    assertEquals(
        List.of(
            Verdict.of(ID, Status.MISSING_IN_TARGET, s0, null, null),
            Verdict.of(ID, Status.MISSING_IN_TARGET, s20, null, null)),
        out.verdicts());
    assertNull(state.read());

    // A duplicate firing after the entry is gone finds nothing to do.
    eventTimeFn.expire(ID, timer.target, state, out);
    assertEquals(2, out.verdicts().size());
  }

  @Test
  public void entryWhoseExpiryTheWatermarkPassedIsFinishedBeforeTheEvent() {
    EventRef s = src(ID, min(0), A);
    EventRef t = tgt(ID, min(5), A); // within the timeout of t0, but the entry is already over
    process(s, T0);
    process(t, T0.plus(TIMEOUT).plus(1));
    assertEquals(List.of(Verdict.of(ID, Status.MISSING_IN_TARGET, s, null, null)), out.verdicts());
    assertEquals(t.eventTime(), state.read().t0());
    assertEquals(t.eventTime().plus(TIMEOUT), timer.target);
  }

  @Test
  public void entryStillPairsWhileTheWatermarkIsAtItsExpiry() {
    EventRef s = src(ID, min(0), A);
    EventRef t = tgt(ID, min(5), B);
    process(s, T0);
    process(t, T0.plus(TIMEOUT));
    assertEquals(List.of(), out.verdicts());
    assertEquals(List.of(Verdict.of(ID, Status.MISMATCH, s, t, null)), out.mismatches());
  }

  @Test
  public void timerHoldsOutputAtExpiryOrTheElementTimestampIfLater() {
    EventRef s = src(ID, min(0), A);
    process(s, T0);
    assertEquals(T0.plus(TIMEOUT), timer.outputTimestamp);

    EncodedState other = new EncodedState();
    Instant committedLater = T0.plus(Duration.standardHours(1));
    timer.now = T0;
    eventTimeFn.processElement(KV.of("x", src("x", min(0), A)), committedLater, other, timer, out);
    assertEquals(committedLater, timer.outputTimestamp);
  }

  @Test
  public void lateEventTouchesNoState() {
    EventRef s = src(ID, min(0), A);
    Instant watermark = T0.plus(TIMEOUT).plus(TIMEOUT).plus(1);
    process(s, watermark);
    assertEquals(List.of(new LateEvent(s, watermark)), out.of(PairEvents.LATE));
    assertNull(state.read());
    assertNull(timer.target);
  }

  @Test
  public void processingTimeResetsTheTimerOnEveryEventAndIgnoresOlderFirings() {
    PairEventsFn.ProcessingTimeExpiry fn = new PairEventsFn.ProcessingTimeExpiry(rules, min(2));
    Instant wallClock = Instant.parse("2030-01-01T00:00:00Z");
    EventRef s = src(ID, min(0), A);
    timer.now = wallClock;
    fn.processElement(KV.of(ID, s), s.eventTime(), state, timer, out);
    Instant first = timer.target;
    assertEquals(wallClock.plus(min(2)), first);
    assertEquals(first, state.read().timerTarget());
    // Hold at t0 + timeout, as in event-time mode, so MISSING carries the same timestamp.
    assertEquals(T0.plus(TIMEOUT), timer.outputTimestamp);

    timer.now = wallClock.plus(min(1));
    fn.processElement(KV.of(ID, s), s.eventTime(), state, timer, out); // a duplicate
    assertEquals(wallClock.plus(min(3)), timer.target);

    fn.expire(ID, first, state, out);
    assertEquals(List.of(), out.verdicts());
    fn.expire(ID, timer.target, state, out);
    assertEquals(List.of(Verdict.of(ID, Status.MISSING_IN_TARGET, s, null, null)), out.verdicts());
    assertNull(state.read());
  }

  /** A value state that keeps only the encoded bytes, like a runner's state backend. */
  private static final class EncodedState implements ValueState<PairingEntry> {
    private byte[] bytes;

    @Override
    public void write(PairingEntry value) {
      try {
        bytes = CoderUtils.encodeToByteArray(PairingEntryCoder.of(), value);
      } catch (CoderException e) {
        throw new AssertionError(e);
      }
    }

    @Override
    public PairingEntry read() {
      try {
        return bytes == null
            ? null
            : CoderUtils.decodeFromByteArray(PairingEntryCoder.of(), bytes);
      } catch (CoderException e) {
        throw new AssertionError(e);
      }
    }

    @Override
    public ValueState<PairingEntry> readLater() {
      return this;
    }

    @Override
    public void clear() {
      bytes = null;
    }
  }

  /** A timer that records where it was set; its current time is whatever the test says. */
  private static final class FakeTimer implements Timer {
    Instant now;
    Instant target;
    Instant outputTimestamp;

    @Override
    public void set(Instant absoluteTime) {
      target = absoluteTime;
    }

    @Override
    public Timer withOutputTimestamp(Instant timestamp) {
      outputTimestamp = timestamp;
      return this;
    }

    @Override
    public Instant getCurrentRelativeTime() {
      return now;
    }

    @Override
    public void setRelative() {
      throw new UnsupportedOperationException();
    }

    @Override
    public void clear() {
      throw new UnsupportedOperationException();
    }

    @Override
    public Timer offset(Duration offset) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Timer align(Duration period) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Timer withNoOutputTimestamp() {
      throw new UnsupportedOperationException();
    }
  }

  /** Collects every tagged output. */
  private static final class Outputs implements DoFn.MultiOutputReceiver {
    private final Map<TupleTag<?>, TestOutputReceiver<?>> receivers = new HashMap<>();

    @Override
    @SuppressWarnings("unchecked")
    public <T> DoFn.OutputReceiver<T> get(TupleTag<T> tag) {
      return (DoFn.OutputReceiver<T>)
          receivers.computeIfAbsent(tag, t -> new TestOutputReceiver<T>());
    }

    @Override
    public <T> DoFn.OutputReceiver<Row> getRowReceiver(TupleTag<T> tag) {
      throw new UnsupportedOperationException();
    }

    @SuppressWarnings("unchecked")
    <T> List<T> of(TupleTag<T> tag) {
      return List.copyOf(((TestOutputReceiver<T>) get(tag)).getOutputs());
    }

    List<Verdict> verdicts() {
      return of(PairEvents.VERDICTS);
    }

    List<Verdict> mismatches() {
      return of(PairEvents.MISMATCHES);
    }
  }
}
