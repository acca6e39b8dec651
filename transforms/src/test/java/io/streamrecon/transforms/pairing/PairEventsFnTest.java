package io.streamrecon.transforms.pairing;

import static io.streamrecon.transforms.pairing.PairFixtures.T0;
import static io.streamrecon.transforms.pairing.PairFixtures.TIMEOUT;
import static io.streamrecon.transforms.pairing.PairFixtures.hash;
import static io.streamrecon.transforms.pairing.PairFixtures.min;
import static io.streamrecon.transforms.pairing.PairFixtures.sec;
import static io.streamrecon.transforms.pairing.PairFixtures.src;
import static io.streamrecon.transforms.pairing.PairFixtures.tgt;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import io.streamrecon.model.EventRef;
import io.streamrecon.model.LateEvent;
import io.streamrecon.model.Status;
import io.streamrecon.model.Verdict;
import io.streamrecon.transforms.WatermarkSource;
import io.streamrecon.transforms.pairing.sparkstreaming.GatherBucketsFn;
import io.streamrecon.transforms.pairing.sparkstreaming.WatermarkTick;
import io.streamrecon.transforms.pairing.sparkstreaming.WholeMapCoder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.CoderException;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.state.MapState;
import org.apache.beam.sdk.state.ReadableState;
import org.apache.beam.sdk.state.ReadableStates;
import org.apache.beam.sdk.state.Timer;
import org.apache.beam.sdk.state.ValueState;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.Row;
import org.apache.beam.sdk.values.TimestampedValue;
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
  private final EventTimeExpiry eventTimeFn = new EventTimeExpiry(rules, TIMEOUT, true);
  private final FakeBucket bucket = new FakeBucket();
  private final FakeTimer timer = bucket.timer;
  private final Outputs out = new Outputs();

  private void process(EventRef event, Instant watermark) {
    timer.now = watermark;
    eventTimeFn.processElement(
        KV.of(0, event), event.eventTime(), bucket.entries, bucket.slots, bucket.clock, timer, out);
  }

  /** Fires the bucket's timer at {@code at} with the watermark at {@code watermark}. */
  private void fire(PairEventsFn fn, Instant at, Instant watermark) {
    timer.now = watermark;
    fn.expire(at, watermark, bucket.bucket(), out);
  }

  private PairingEntry entry(String id) {
    PairingEntry stored = bucket.entry(id);
    return stored == null ? null : stored.forKey(id);
  }

  @Test
  public void staleFiringIsIgnoredAndTheLiveOneFinishesTheEntry() {
    EventRef s0 = src(ID, min(0), A);
    EventRef s20 = src(ID, min(20), A);
    process(s0, T0);
    assertEquals(T0.plus(TIMEOUT), timer.target);
    process(s20, T0); // rule 5: the first entry is finished now, its index entry moved.
    assertEquals(List.of(Verdict.of(ID, Status.MISSING_IN_TARGET, s0, null, null)), out.verdicts());
    // The bucket's timer stays at the earliest due time it was set for: nothing is due then.
    assertEquals(T0.plus(TIMEOUT), timer.target);
    fire(eventTimeFn, T0.plus(TIMEOUT), T0.plus(TIMEOUT).plus(1));
    assertEquals(1, out.verdicts().size());
    assertNotNull(entry(ID));
    assertEquals(T0.plus(min(20)).plus(TIMEOUT), timer.target);

    // The runner still delivers the first timer again (as Flink did): nothing happens.
    fire(eventTimeFn, T0.plus(TIMEOUT), T0.plus(TIMEOUT).plus(2));
    assertEquals(1, out.verdicts().size());
    assertEquals(1, bucket.entryCount());

    fire(eventTimeFn, timer.target, timer.target.plus(1));
    assertEquals(
        List.of(
            Verdict.of(ID, Status.MISSING_IN_TARGET, s0, null, null),
            Verdict.of(ID, Status.MISSING_IN_TARGET, s20, null, null)),
        out.verdicts());
    bucket.assertEmpty();

    // A duplicate firing after the bucket is empty finds nothing to do.
    fire(eventTimeFn, T0.plus(min(20)).plus(TIMEOUT), T0.plus(Duration.standardHours(1)));
    assertEquals(2, out.verdicts().size());
  }

  @Test
  public void entryWhoseExpiryTheWatermarkPassedIsFinishedBeforeTheEvent() {
    EventRef s = src(ID, min(0), A);
    EventRef t = tgt(ID, min(5), A); // within the timeout of t0, but the entry is already over
    process(s, T0);
    process(t, T0.plus(TIMEOUT).plus(1));
    assertEquals(List.of(Verdict.of(ID, Status.MISSING_IN_TARGET, s, null, null)), out.verdicts());
    assertEquals(t.eventTime(), entry(ID).t0());
    // The timer is still at the first entry's due time; firing it re-sets it for the new entry.
    fire(eventTimeFn, T0.plus(TIMEOUT), T0.plus(TIMEOUT).plus(1));
    assertEquals(1, out.verdicts().size());
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

    FakeBucket other = new FakeBucket();
    Instant committedLater = T0.plus(Duration.standardHours(1));
    other.timer.now = T0;
    eventTimeFn.processElement(
        KV.of(1, src("x", min(0), A)),
        committedLater,
        other.entries,
        other.slots,
        other.clock,
        other.timer,
        out);
    assertEquals(committedLater, other.timer.outputTimestamp);
    // The MISSING verdict of that entry carries the hold, not its earlier t0 + timeout.
    other.timer.now = committedLater.plus(1);
    eventTimeFn.expire(other.timer.target, committedLater.plus(1), other.bucket(), out);
    assertEquals(List.of(committedLater), out.verdictTimestamps());
  }

  @Test
  public void lateEventTouchesNoState() {
    EventRef s = src(ID, min(0), A);
    Instant watermark = T0.plus(TIMEOUT).plus(TIMEOUT).plus(1);
    process(s, watermark);
    assertEquals(List.of(new LateEvent(s, watermark)), out.of(PairEvents.LATE));
    bucket.assertEmpty();
    assertNull(timer.target);
  }

  @Test
  public void afterARestartEntriesWhoseGraceRanOutWhileDownWaitOneGraceForTheirPartner() {
    Instant wallClock = Instant.parse("2030-01-01T00:00:00Z");
    EventRef s = src(ID, min(0), A);
    EventRef other = src("other", min(0), A);
    ProcessingTimeExpiry before = new ProcessingTimeExpiry(rules, min(2), true);
    timer.now = wallClock;
    before.processElement(
        KV.of(0, s), s.eventTime(), bucket.entries, bucket.slots, bucket.clock, timer, out);
    timer.now = wallClock.plus(min(1));
    before.processElement(
        KV.of(0, other), other.eventTime(), bucket.entries, bucket.slots, bucket.clock, timer, out);
    Instant due = timer.target;
    assertEquals(wallClock.plus(min(2)), due);

    // The job is down for an hour; restored in a new JVM (here: a DoFn it has not seen), its first
    // call is the timer firing long after both entries were due.
    ProcessingTimeExpiry after = new ProcessingTimeExpiry(rules, min(2), true);
    Instant restart = wallClock.plus(Duration.standardHours(1));
    timer.now = restart;
    after.expire(due, restart, bucket.bucket(), out);
    assertEquals("nothing expires in the first grace after the restart", List.of(), out.verdicts());
    assertEquals(restart.plus(min(2)), timer.target);
    assertEquals(restart.plus(min(2)), entry(ID).timerTarget());
    assertEquals(restart.plus(min(2)), entry("other").timerTarget());

    // The partner still waiting in Kafka arrives within that grace: it pairs.
    EventRef t = tgt(ID, min(1), A);
    timer.now = restart.plus(sec(30));
    after.processElement(
        KV.of(0, t), t.eventTime(), bucket.entries, bucket.slots, bucket.clock, timer, out);
    assertEquals(List.of(Verdict.of(ID, Status.MATCH, s, t, null)), out.verdicts());

    // The entry without a partner expires once that grace is over.
    timer.now = restart.plus(min(2));
    after.expire(timer.target, timer.now, bucket.bucket(), out);
    assertEquals(
        List.of(
            Verdict.of(ID, Status.MATCH, s, t, null),
            Verdict.of("other", Status.MISSING_IN_TARGET, other, null, null)),
        out.verdicts());
    // The paired entry stays a grace after its last event (for duplicates), then goes silently.
    assertEquals(restart.plus(sec(30)).plus(min(2)), timer.target);
    timer.now = timer.target;
    after.expire(timer.target, timer.now, bucket.bucket(), out);
    assertEquals(2, out.verdicts().size());
    bucket.assertEmpty();
  }

  @Test
  public void processingTimeMovesTheDueTimeOnEveryEventAndFiresOnlyWhenDue() {
    ProcessingTimeExpiry fn = new ProcessingTimeExpiry(rules, min(2), true);
    Instant wallClock = Instant.parse("2030-01-01T00:00:00Z");
    EventRef s = src(ID, min(0), A);
    timer.now = wallClock;
    fn.processElement(
        KV.of(0, s), s.eventTime(), bucket.entries, bucket.slots, bucket.clock, timer, out);
    Instant first = timer.target;
    assertEquals(wallClock.plus(min(2)), first);
    assertEquals(first, entry(ID).timerTarget());
    // Hold at t0 + timeout, as in event-time mode, so MISSING carries the same timestamp.
    assertEquals(T0.plus(TIMEOUT), timer.outputTimestamp);

    timer.now = wallClock.plus(min(1));
    fn.processElement(
        KV.of(0, s), s.eventTime(), bucket.entries, bucket.slots, bucket.clock, timer, out);
    assertEquals(wallClock.plus(min(3)), entry(ID).timerTarget());

    // The timer set for the first due time fires: the entry is not due any more; re-set.
    fn.expire(first, first, bucket.bucket(), out);
    assertEquals(List.of(), out.verdicts());
    assertEquals(wallClock.plus(min(3)), timer.target);
    fn.expire(timer.target, timer.target, bucket.bucket(), out);
    assertEquals(List.of(Verdict.of(ID, Status.MISSING_IN_TARGET, s, null, null)), out.verdicts());
    bucket.assertEmpty();
  }

  @Test
  public void noStateIsLeftInTheBucketAfterItsEntriesExpired() {
    // Many ids in one bucket, opened at different times, some paired, some not.
    for (int i = 0; i < 40; i++) {
      process(src("id" + i, sec(17L * i), A), T0);
      if (i % 3 == 0) {
        process(tgt("id" + i, sec(17L * i + 5), i % 2 == 0 ? A : B), T0);
      }
    }
    assertEquals(40, bucket.entryCount());
    assertTrue(bucket.slotCount() > 1);
    // One due time after the other, the watermark a millisecond past each timer.
    int firings = 0;
    while (timer.target != null && bucket.clock.read() != null) {
      Instant at = timer.target;
      fire(eventTimeFn, at, at.plus(1));
      firings++;
      assertTrue("firings", firings <= 40);
    }
    assertEquals(40 - 14, out.verdicts().stream().filter(v -> v.status() != Status.MATCH).count());
    bucket.assertEmpty();
  }

  // ---- Expiry by a runner's watermark (PolledWatermarkExpiry), as on Spark streaming. ----

  /** The runner's watermark as the test sets it. */
  private static final class SetWatermark implements WatermarkSource {
    Instant value;

    @Override
    public Instant inputWatermark() {
      return value;
    }
  }

  private final SetWatermark runnerWatermark = new SetWatermark();
  private final PolledWatermarkExpiry polledFn =
      new PolledWatermarkExpiry(rules, TIMEOUT, runnerWatermark, true);

  /** Delivers {@code event} with the runner's watermark and the wall clock as given. */
  private void polledProcess(EventRef event, Instant watermark, Instant wallClock) {
    runnerWatermark.value = watermark;
    timer.now = wallClock;
    polledFn.processElement(
        KV.of(0, List.of(TimestampedValue.of(event, event.eventTime()))),
        bucket.wholeEntries,
        bucket.wholeSlots,
        bucket.clock,
        bucket.tick,
        timer,
        out);
  }

  /** The runner's next call of the bucket: its timer fires, as Spark does once per batch. */
  private void polledTick(Instant watermark, Instant wallClock) {
    runnerWatermark.value = watermark;
    timer.now = wallClock;
    polledFn.poll(timer.target, timer.outputTimestamp, bucket.polledBucket(), out);
  }

  @Test
  public void polledEntriesExpireWhenTheRunnersWatermarkPassesTheirDueTimeNotWithTheWallClock() {
    Instant wall = Instant.parse("2026-12-02T00:00:00Z");
    for (int i = 0; i < 40; i++) {
      polledProcess(src("id" + i, sec(17L * i), A), T0, wall);
      if (i % 3 == 0) {
        polledProcess(tgt("id" + i, sec(17L * i + 5), i % 2 == 0 ? A : B), T0, wall);
      }
    }
    assertEquals(40, bucket.entryCount());
    assertEquals("called back in the next batch", wall.plus(1), timer.target);
    // Hours of wall clock (a lagging or stopped job) with the watermark standing still: nothing.
    for (int batch = 1; batch <= 5; batch++) {
      polledTick(T0.plus(TIMEOUT), wall.plus(Duration.standardHours(batch)));
      assertEquals(0, missing());
      assertEquals(40, bucket.entryCount());
    }
    // The watermark passes the first ids' due times: those, and only those, expire.
    Instant w = T0.plus(TIMEOUT).plus(sec(17L * 9 + 1));
    polledTick(w, wall.plus(Duration.standardHours(6)));
    long expected =
        java.util.stream.IntStream.range(0, 40)
            .filter(i -> T0.plus(sec(17L * i)).plus(TIMEOUT).isBefore(w))
            .count();
    assertTrue(expected > 1 && expected < 40);
    assertEquals(40 - expected, bucket.entryCount());
    assertEquals(
        java.util.stream.IntStream.range(0, (int) expected).filter(i -> i % 3 != 0).count(),
        missing());
    // The rest expire when the watermark passes them; then the bucket keeps nothing.
    polledTick(T0.plus(Duration.standardDays(1)), wall.plus(Duration.standardHours(7)));
    assertEquals(40 - 14, out.verdicts().stream().filter(v -> v.status() != Status.MATCH).count());
    bucket.assertEmpty();
    // Its last timer firing (the runner still calls it) finds nothing and sets nothing.
    Instant last = timer.target;
    polledFn.poll(last, timer.outputTimestamp, bucket.polledBucket(), out);
    bucket.assertEmpty();
  }

  /**
   * A bucket's events gathered from a micro-batch ({@link GatherBucketsFn}) are applied in
   * event-time order, whatever order they came in, with the same verdicts as one call per event in
   * that order; the bucket is stored once, and each verdict carries its event's timestamp.
   */
  @Test
  public void polledGatheredEventsAreAppliedInEventTimeOrderAndTheBucketIsStoredOnce() {
    Instant wall = Instant.parse("2026-12-02T00:00:00Z");
    Instant watermark = T0.minus(min(1));
    EventRef s = src(ID, min(0), A);
    EventRef t = tgt(ID, min(3), B);
    // Beyond the timeout from the entry's t0: in event-time order it starts a new entry (rule 5);
    // applied first, it would be the entry the others join.
    EventRef again = src(ID, TIMEOUT.plus(min(1)), A);
    EventRef other = src("k2", min(1), A);
    EventRef late = tgt("k3", min(0).minus(TIMEOUT).minus(min(2)), A);
    List<EventRef> inEventTimeOrder = List.of(late, s, other, t, again);

    for (EventRef event : inEventTimeOrder) {
      polledProcess(event, watermark, wall);
    }
    List<Verdict> oneByOne = out.verdicts();
    List<Verdict> oneByOneMismatches = out.mismatches();
    List<LateEvent> oneByOneLate = out.of(PairEvents.LATE);
    assertEquals(List.of(Verdict.of(ID, Status.MISMATCH, s, t, null)), oneByOneMismatches);
    assertEquals(1, oneByOneLate.size());

    FakeBucket gathered = new FakeBucket();
    Outputs gatheredOut = new Outputs();
    gathered.timer.now = wall;
    List<TimestampedValue<EventRef>> reversed = new ArrayList<>();
    for (int i = inEventTimeOrder.size() - 1; i >= 0; i--) {
      EventRef event = inEventTimeOrder.get(i);
      reversed.add(TimestampedValue.of(event, event.eventTime()));
    }
    polledFn.processElement(
        KV.of(0, reversed),
        gathered.wholeEntries,
        gathered.wholeSlots,
        gathered.clock,
        gathered.tick,
        gathered.timer,
        gatheredOut);

    assertEquals(oneByOne, gatheredOut.verdicts());
    assertEquals(oneByOneMismatches, gatheredOut.mismatches());
    assertEquals(oneByOneLate, gatheredOut.of(PairEvents.LATE));
    assertEquals(
        "the mismatch at its target's timestamp",
        List.of(t.eventTime()),
        gatheredOut.verdictTimestamps());
    assertEquals("entries stored once", 1, gathered.wholeEntries.writes);
    assertEquals("index stored once", 1, gathered.wholeSlots.writes);
    assertEquals(bucket.entryCount(), gathered.entryCount());
    assertEquals(bucket.entry(ID), gathered.entry(ID));
  }

  /** MISSING_* verdicts so far: what expiry emits. */
  private long missing() {
    return out.verdicts().stream().filter(v -> v.status() != Status.MATCH).count();
  }

  @Test
  public void polledPartnerReadLongAfterInWallClockStillPairs() {
    Instant wall = Instant.parse("2026-12-02T00:00:00Z");
    EventRef s = src(ID, min(0), A);
    EventRef t = tgt(ID, min(3), A);
    polledProcess(s, T0.minus(min(1)), wall);
    for (int batch = 1; batch <= 3; batch++) {
      polledTick(T0.plus(min(2)), wall.plus(Duration.standardHours(batch)));
    }
    polledProcess(t, T0.plus(min(2)), wall.plus(Duration.standardHours(4)));
    assertEquals(List.of(Verdict.of(ID, Status.MATCH, s, t, null)), out.verdicts());
    polledTick(T0.plus(TIMEOUT).plus(1), wall.plus(Duration.standardHours(5)));
    assertEquals(1, out.verdicts().size());
    bucket.assertEmpty();
  }

  @Test
  public void polledLateEventGoesToLateAndTouchesNoState() {
    Instant wall = Instant.parse("2026-12-02T00:00:00Z");
    EventRef old = src(ID, min(0), A);
    Instant watermark = T0.plus(TIMEOUT).plus(TIMEOUT).plus(1);
    polledProcess(old, watermark, wall);
    assertEquals(List.of(new LateEvent(old, watermark)), out.of(PairEvents.LATE));
    bucket.assertEmpty();
    assertNull("no timer set", timer.target);
  }

  @Test
  public void polledOlderWatermarkReadingAndStaleFiringsAreIgnored() {
    Instant wall = Instant.parse("2026-12-02T00:00:00Z");
    EventRef s = src(ID, min(0), A);
    polledProcess(s, T0, wall);
    Instant w2 = T0.plus(TIMEOUT).plus(min(5));
    polledTick(T0.plus(min(1)), wall.plus(1000));
    Instant staleTarget = timer.target;
    Instant staleHold = timer.outputTimestamp;
    polledTick(w2, wall.plus(2000));
    assertEquals(List.of(Verdict.of(ID, Status.MISSING_IN_TARGET, s, null, null)), out.verdicts());
    bucket.assertEmpty();

    // A new entry; then a worker whose copy of the watermark is behind calls with an older one:
    // an event the bucket already knows to be late stays late.
    EventRef s2 = src("k2", min(20), A);
    polledProcess(s2, w2, wall.plus(3000));
    EventRef lateByW2 = tgt("k3", min(0).minus(min(1)), A);
    polledProcess(lateByW2, T0, wall.plus(4000));
    assertEquals(List.of(new LateEvent(lateByW2, w2)), out.of(PairEvents.LATE));
    assertNotNull(entry("k2"));

    // The timer set for the old bucket fires again: ignored, and the live one still works.
    polledFn.poll(staleTarget, staleHold, bucket.polledBucket(), out);
    assertEquals(1, out.verdicts().size());
    polledTick(T0.plus(Duration.standardDays(1)), wall.plus(5000));
    assertEquals(2, out.verdicts().size());
    bucket.assertEmpty();
  }

  /**
   * A bucket's state faked with maps of encoded bytes, like a runner's state backend, so that the
   * state coders are exercised too; and its timer.
   */
  private static final class FakeBucket {
    final EncodedMap<String, PairingEntry> entries =
        new EncodedMap<>(StringUtf8Coder.of(), PairingEntryCoder.of());
    final EncodedMap<Long, ExpirySlot> slots =
        new EncodedMap<>(VarLongCoder.of(), ExpirySlotCoder.of());
    // The polled variant holds each map whole, with the coder it has on Spark streaming.
    final EncodedValue<Map<String, PairingEntry>> wholeEntries =
        new EncodedValue<>(WholeMapCoder.of(StringUtf8Coder.of(), PairingEntryCoder.of()));
    final EncodedValue<Map<Long, ExpirySlot>> wholeSlots =
        new EncodedValue<>(WholeMapCoder.of(VarLongCoder.of(), ExpirySlotCoder.of()));
    final EncodedValue<BucketClock> clock = new EncodedValue<>(BucketClock.Coder.of());
    final EncodedValue<WatermarkTick> tick = new EncodedValue<>(WatermarkTick.Coder.of());
    final FakeTimer timer = new FakeTimer();

    PairEventsFn.Bucket bucket() {
      return new PairEventsFn.Bucket(
          BucketMap.of(entries), BucketMap.of(slots), clock, timer, tick);
    }

    PairEventsFn.Bucket polledBucket() {
      return new PairEventsFn.Bucket(
          BucketMap.loaded(wholeEntries), BucketMap.loaded(wholeSlots), clock, timer, tick);
    }

    PairingEntry entry(String id) {
      PairingEntry stored = entries.get(id).read();
      Map<String, PairingEntry> whole = wholeEntries.read();
      return stored == null && whole != null ? whole.get(id) : stored;
    }

    int entryCount() {
      Map<String, PairingEntry> whole = wholeEntries.read();
      return entries.size() + (whole == null ? 0 : whole.size());
    }

    int slotCount() {
      Map<Long, ExpirySlot> whole = wholeSlots.read();
      return slots.size() + (whole == null ? 0 : whole.size());
    }

    /**
     * No map entry, no index slot, no clock, no tick (so no live timer): nothing left. A map held
     * whole is cleared, not stored empty.
     */
    void assertEmpty() {
      assertEquals("entries", 0, entries.size());
      assertEquals("index slots", 0, slots.size());
      assertNull("entries held whole", wholeEntries.read());
      assertNull("index held whole", wholeSlots.read());
      assertNull("clock", clock.read());
      assertNull("tick", tick.read());
    }
  }

  /** A value state that keeps only the encoded bytes. */
  private static final class EncodedValue<T> implements ValueState<T> {
    private final Coder<T> coder;
    private byte[] bytes;
    int writes;

    EncodedValue(Coder<T> coder) {
      this.coder = coder;
    }

    @Override
    public void write(T value) {
      writes++;
      bytes = encode(coder, value);
    }

    @Override
    public T read() {
      return bytes == null ? null : decode(coder, bytes);
    }

    @Override
    public ValueState<T> readLater() {
      return this;
    }

    @Override
    public void clear() {
      bytes = null;
    }
  }

  /**
   * A map state that keeps only encoded keys and values, and fails a put into a map emptied by
   * remove, as Spark streaming's does in Beam 2.70 (its MapCoder decodes an empty map as {@code
   * Collections.emptyMap()}).
   */
  private static final class EncodedMap<K, V> implements MapState<K, V> {
    private final Coder<K> keyCoder;
    private final Coder<V> valueCoder;
    private final Map<String, byte[]> map = new TreeMap<>();
    private boolean emptiedByRemove;

    EncodedMap(Coder<K> keyCoder, Coder<V> valueCoder) {
      this.keyCoder = keyCoder;
      this.valueCoder = valueCoder;
    }

    int size() {
      return map.size();
    }

    private String k(K key) {
      return java.util.Base64.getEncoder().encodeToString(encode(keyCoder, key));
    }

    @Override
    public void put(K key, V value) {
      if (emptiedByRemove) {
        throw new UnsupportedOperationException("put into an emptied map (as on Spark)");
      }
      map.put(k(key), encode(valueCoder, value));
    }

    @Override
    public ReadableState<V> computeIfAbsent(K key, Function<? super K, ? extends V> f) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void remove(K key) {
      map.remove(k(key));
      emptiedByRemove = map.isEmpty();
    }

    @Override
    public ReadableState<V> get(K key) {
      byte[] bytes = map.get(k(key));
      return ReadableStates.immediate(bytes == null ? null : decode(valueCoder, bytes));
    }

    @Override
    public ReadableState<V> getOrDefault(K key, V defaultValue) {
      throw new UnsupportedOperationException();
    }

    @Override
    public ReadableState<Iterable<K>> keys() {
      throw new UnsupportedOperationException("a firing must not scan the bucket");
    }

    @Override
    public ReadableState<Iterable<V>> values() {
      throw new UnsupportedOperationException("a firing must not scan the bucket");
    }

    @Override
    public ReadableState<Iterable<Map.Entry<K, V>>> entries() {
      throw new UnsupportedOperationException("a firing must not scan the bucket");
    }

    @Override
    public ReadableState<Boolean> isEmpty() {
      return ReadableStates.immediate(map.isEmpty());
    }

    @Override
    public void clear() {
      map.clear();
      emptiedByRemove = false;
    }
  }

  private static <T> byte[] encode(Coder<T> coder, T value) {
    try {
      return CoderUtils.encodeToByteArray(coder, value);
    } catch (CoderException e) {
      throw new AssertionError(e);
    }
  }

  private static <T> T decode(Coder<T> coder, byte[] bytes) {
    try {
      return CoderUtils.decodeFromByteArray(coder, bytes);
    } catch (CoderException e) {
      throw new AssertionError(e);
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
    private final Map<TupleTag<?>, DoFn.OutputReceiver<?>> receivers = new HashMap<>();
    private final List<Instant> timestamps = new ArrayList<>();

    @Override
    @SuppressWarnings("unchecked")
    public <T> DoFn.OutputReceiver<T> get(TupleTag<T> tag) {
      return (DoFn.OutputReceiver<T>)
          receivers.computeIfAbsent(tag, t -> new Receiver<T>(timestamps));
    }

    @Override
    public <T> DoFn.OutputReceiver<Row> getRowReceiver(TupleTag<T> tag) {
      throw new UnsupportedOperationException();
    }

    @SuppressWarnings("unchecked")
    <T> List<T> of(TupleTag<T> tag) {
      return List.copyOf(((Receiver<T>) get(tag)).outputs);
    }

    List<Verdict> verdicts() {
      return of(PairEvents.VERDICTS);
    }

    List<Instant> verdictTimestamps() {
      return List.copyOf(timestamps);
    }

    List<Verdict> mismatches() {
      return of(PairEvents.MISMATCHES);
    }
  }

  /** Keeps outputs, and the timestamps given explicitly (as {@code @OnTimer} gives them). */
  private static final class Receiver<T> implements DoFn.OutputReceiver<T> {
    final List<T> outputs = new ArrayList<>();
    private final List<Instant> timestamps;

    Receiver(List<Instant> timestamps) {
      this.timestamps = timestamps;
    }

    @Override
    public void output(T output) {
      outputs.add(output);
    }

    @Override
    public void outputWithTimestamp(T output, Instant timestamp) {
      outputs.add(output);
      timestamps.add(timestamp);
    }

    @Override
    public org.apache.beam.sdk.values.OutputBuilder<T> builder(T value) {
      throw new UnsupportedOperationException("the DoFn outputs with output(..) only");
    }
  }
}
