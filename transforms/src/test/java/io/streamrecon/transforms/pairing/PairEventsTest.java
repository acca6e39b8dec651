package io.streamrecon.transforms.pairing;

import static io.streamrecon.transforms.pairing.PairFixtures.T0;
import static io.streamrecon.transforms.pairing.PairFixtures.TIMEOUT;
import static io.streamrecon.transforms.pairing.PairFixtures.at;
import static io.streamrecon.transforms.pairing.PairFixtures.counter;
import static io.streamrecon.transforms.pairing.PairFixtures.hash;
import static io.streamrecon.transforms.pairing.PairFixtures.min;
import static io.streamrecon.transforms.pairing.PairFixtures.src;
import static io.streamrecon.transforms.pairing.PairFixtures.tgt;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.streamrecon.model.EventRef;
import io.streamrecon.model.LateEvent;
import io.streamrecon.model.Status;
import io.streamrecon.model.Verdict;
import io.streamrecon.transforms.ModelCoders.EventRefCoder;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.Rule;
import org.junit.Test;

/**
 * PairEvents on the DirectRunner: one test per rule of docs/design.md#pairing, timers and
 * watermarks included.
 */
public class PairEventsTest {
  private static final String A = hash("a");
  private static final String B = hash("b");

  @Rule public final transient TestPipeline p = TestPipeline.create();

  private static TestStream.Builder<EventRef> stream() {
    return TestStream.create(EventRefCoder.of());
  }

  private PCollectionTuple pair(TestStream<EventRef> events, PairEvents pairEvents) {
    return p.apply(events).apply("PairEvents", pairEvents);
  }

  private PCollectionTuple pair(TestStream<EventRef> events) {
    return pair(events, PairEvents.create());
  }

  private static Verdict verdict(Status status, EventRef source, EventRef target) {
    String id = source != null ? source.naturalId() : target.naturalId();
    return Verdict.of(id, status, source, target, null);
  }

  @Test
  public void equalHashesMatch() {
    EventRef s = src("k", min(0), A);
    EventRef t = tgt("k", min(3), A);
    PCollectionTuple out = pair(stream().addElements(at(s), at(t)).advanceWatermarkToInfinity());
    PAssert.that(out.get(PairEvents.VERDICTS)).containsInAnyOrder(verdict(Status.MATCH, s, t));
    PAssert.that(out.get(PairEvents.MISMATCHES)).empty();
    PAssert.that(out.get(PairEvents.LATE)).empty();
    p.run();
  }

  @Test
  public void differentHashesMismatch() {
    EventRef s = src("k", min(0), A);
    EventRef t = tgt("k", min(3), B);
    PCollectionTuple out = pair(stream().addElements(at(s), at(t)).advanceWatermarkToInfinity());
    PAssert.that(out.get(PairEvents.MISMATCHES)).containsInAnyOrder(verdict(Status.MISMATCH, s, t));
    PAssert.that(out.get(PairEvents.VERDICTS)).empty();
    p.run();
  }

  @Test
  public void unpairedEntriesExpireAsMissing() {
    EventRef s = src("only-source", min(0), A);
    EventRef t = tgt("only-target", min(1), B);
    PCollectionTuple out =
        pair(stream().addElements(at(s)).addElements(at(t)).advanceWatermarkToInfinity());
    PAssert.that(out.get(PairEvents.VERDICTS))
        .containsInAnyOrder(
            verdict(Status.MISSING_IN_TARGET, s, null), verdict(Status.MISSING_IN_SOURCE, null, t));
    PAssert.that(out.get(PairEvents.MISMATCHES)).empty();
    p.run();
  }

  @Test
  public void entryLivesUntilWatermarkPassesT0PlusTimeout() {
    // "alive": the watermark is exactly at t0 + timeout, the entry still pairs.
    // "expired": the watermark is 1 ms past it, so the target finds no entry and opens its own.
    EventRef aliveS = src("alive", min(0), A);
    EventRef aliveT = tgt("alive", min(5), A);
    EventRef expiredS = src("expired", min(20), A);
    EventRef expiredT = tgt("expired", min(25), A);
    PCollectionTuple out =
        pair(
            stream()
                .addElements(at(aliveS), at(expiredS))
                .advanceWatermarkTo(T0.plus(TIMEOUT))
                .addElements(at(aliveT))
                .advanceWatermarkTo(T0.plus(min(20)).plus(TIMEOUT).plus(1))
                .addElements(at(expiredT))
                .advanceWatermarkToInfinity());
    PAssert.that(out.get(PairEvents.VERDICTS))
        .containsInAnyOrder(
            verdict(Status.MATCH, aliveS, aliveT),
            verdict(Status.MISSING_IN_TARGET, expiredS, null),
            verdict(Status.MISSING_IN_SOURCE, null, expiredT));
    PAssert.that(out.get(PairEvents.LATE)).empty();
    p.run();
  }

  @Test
  public void targetFirstPairsAsWell() {
    EventRef s = src("k", min(0), A);
    EventRef t = tgt("k", min(4), B);
    PCollectionTuple out =
        pair(stream().addElements(at(t)).addElements(at(s)).advanceWatermarkToInfinity());
    PAssert.that(out.get(PairEvents.MISMATCHES)).containsInAnyOrder(verdict(Status.MISMATCH, s, t));
    PAssert.that(out.get(PairEvents.VERDICTS)).empty();
    p.run();
  }

  @Test
  public void otherSideBeyondTimeoutGivesTwoMissingInEitherOrder() {
    EventRef s1 = src("forward", min(0), A);
    EventRef t1 = tgt("forward", min(11), A);
    EventRef s2 = src("backward", min(0), A);
    EventRef t2 = tgt("backward", min(11), A);
    PCollectionTuple out =
        pair(
            stream()
                .addElements(at(s1), at(t2))
                .addElements(at(t1), at(s2))
                .advanceWatermarkToInfinity());
    PAssert.that(out.get(PairEvents.VERDICTS))
        .containsInAnyOrder(
            verdict(Status.MISSING_IN_TARGET, s1, null),
            verdict(Status.MISSING_IN_SOURCE, null, t1),
            verdict(Status.MISSING_IN_TARGET, s2, null),
            verdict(Status.MISSING_IN_SOURCE, null, t2));
    PAssert.that(out.get(PairEvents.MISMATCHES)).empty();
    p.run();
  }

  @Test
  public void duplicatesBeforeAndAfterPairingAddNoVerdict() {
    EventRef s = src("k", min(0), A);
    EventRef t = tgt("k", min(1), A);
    PCollectionTuple out =
        pair(
            stream()
                .addElements(at(s))
                .addElements(at(src("k", min(0), A)), at(src("k", min(2), A)))
                .addElements(at(t))
                .addElements(at(tgt("k", min(1), A)), at(src("k", min(0), A)))
                .advanceWatermarkToInfinity());
    PAssert.that(out.get(PairEvents.VERDICTS)).containsInAnyOrder(verdict(Status.MATCH, s, t));
    PAssert.that(out.get(PairEvents.MISMATCHES)).empty();
    PipelineResult result = p.run();
    result.waitUntilFinish();
    assertEquals(4, counter(result, PairEvents.METRIC_DUPLICATE));
    assertEquals(1, counter(result, PairEvents.METRIC_MATCH));
    assertEquals(2, counter(result, PairEvents.METRIC_EVENTS_IN_VERDICTS));
  }

  @Test
  public void newVersionAfterPairingSupersedesAndMatchIsEmitted() {
    EventRef s1 = src("k", min(0), A);
    EventRef t = tgt("k", min(1), B);
    EventRef s2 = src("k", min(2), B);
    Verdict mismatch = verdict(Status.MISMATCH, s1, t);
    Verdict resolved = Verdict.of("k", Status.MATCH, s2, t, mismatch.verdictId());
    PCollectionTuple out =
        pair(
            stream()
                .addElements(at(s1))
                .addElements(at(t))
                .addElements(at(s2))
                .advanceWatermarkToInfinity());
    PAssert.that(out.get(PairEvents.MISMATCHES)).containsInAnyOrder(mismatch);
    PAssert.that(out.get(PairEvents.VERDICTS)).containsInAnyOrder(resolved);
    PipelineResult result = p.run();
    result.waitUntilFinish();
    assertEquals(3, counter(result, PairEvents.METRIC_EVENTS_IN_VERDICTS));
    assertEquals(0, counter(result, PairEvents.METRIC_SUPERSEDED));
  }

  /**
   * Without plain matches, a MATCH that supersedes nothing is counted and not emitted; the MATCH
   * that resolves a mismatch, the mismatch and MISSING verdicts still are.
   */
  @Test
  public void withoutEmitMatchesOnlyCorrectingMatchesAreEmitted() {
    EventRef plainS = src("plain", min(0), A);
    EventRef plainT = tgt("plain", min(1), A);
    EventRef s1 = src("k", min(0), A);
    EventRef t = tgt("k", min(1), B);
    EventRef s2 = src("k", min(2), B);
    EventRef alone = src("alone", min(0), A);
    Verdict mismatch = verdict(Status.MISMATCH, s1, t);
    Verdict resolved = Verdict.of("k", Status.MATCH, s2, t, mismatch.verdictId());
    PCollectionTuple out =
        pair(
            stream()
                .addElements(at(plainS), at(s1), at(alone))
                .addElements(at(plainT), at(t))
                .addElements(at(s2))
                .advanceWatermarkToInfinity(),
            PairEvents.create().withEmitMatches(false));
    PAssert.that(out.get(PairEvents.MISMATCHES)).containsInAnyOrder(mismatch);
    PAssert.that(out.get(PairEvents.VERDICTS))
        .containsInAnyOrder(resolved, verdict(Status.MISSING_IN_TARGET, alone, null));
    PipelineResult result = p.run();
    result.waitUntilFinish();
    assertEquals("both MATCHes counted", 2, counter(result, PairEvents.METRIC_MATCH));
    assertEquals(6, counter(result, PairEvents.METRIC_EVENTS_IN_VERDICTS));
  }

  @Test
  public void olderVersionsAreCountedSupersededAndDropped() {
    // Paired: the older source version arrives after the pair formed.
    EventRef newer = src("paired", min(2), A);
    EventRef t = tgt("paired", min(1), A);
    EventRef older = src("paired", min(1), B);
    // Unpaired: the later version is kept whichever arrives first, and expires as MISSING.
    EventRef late = src("unpaired", min(2), A);
    EventRef early = src("unpaired", min(1), B);
    PCollectionTuple out =
        pair(
            stream()
                .addElements(at(newer), at(late))
                .addElements(at(t), at(early))
                .addElements(at(older))
                .advanceWatermarkToInfinity());
    PAssert.that(out.get(PairEvents.VERDICTS))
        .containsInAnyOrder(
            verdict(Status.MATCH, newer, t), verdict(Status.MISSING_IN_TARGET, late, null));
    PAssert.that(out.get(PairEvents.MISMATCHES)).empty();
    PipelineResult result = p.run();
    result.waitUntilFinish();
    assertEquals(2, counter(result, PairEvents.METRIC_SUPERSEDED));
  }

  @Test
  public void eventsPastAllowedLatenessGoToLateAndWithinItStillPair() {
    Duration lateness = PairEvents.create().getAllowedLateness();
    Instant watermark = T0.plus(min(60));
    EventRef tooLate = src("too-late", min(0), A);
    EventRef justTooLate = src("edge", Duration.standardMinutes(60).minus(lateness).minus(1), A);
    EventRef onTheEdge = src("edge-ok", Duration.standardMinutes(60).minus(lateness), A);
    EventRef lateS = src("late-ok", min(55), A);
    EventRef lateT = tgt("late-ok", min(56), A);
    PCollectionTuple out =
        pair(
            stream()
                .advanceWatermarkTo(watermark)
                .addElements(at(tooLate), at(justTooLate), at(onTheEdge))
                .addElements(at(lateS), at(lateT))
                .advanceWatermarkToInfinity());
    PAssert.that(out.get(PairEvents.LATE))
        .containsInAnyOrder(
            new LateEvent(tooLate, watermark), new LateEvent(justTooLate, watermark));
    PAssert.that(out.get(PairEvents.VERDICTS))
        .containsInAnyOrder(
            verdict(Status.MATCH, lateS, lateT),
            verdict(Status.MISSING_IN_TARGET, onTheEdge, null));
    PipelineResult result = p.run();
    result.waitUntilFinish();
    assertEquals(2, counter(result, PairEvents.METRIC_LATE));
  }

  @Test
  public void lateEntryCannotOutliveT0PlusTimeoutEvenWithLongerLateness() {
    // With an allowed lateness longer than the timeout, two events 30 minutes behind the
    // watermark are not LATE, but the entry the first opens is already over: both are MISSING,
    // which is why the default lateness equals the timeout.
    EventRef s = src("k", min(0), A);
    EventRef t = tgt("k", min(1), A);
    PCollectionTuple out =
        pair(
            stream()
                .advanceWatermarkTo(T0.plus(min(30)))
                .addElements(at(s), at(t))
                .advanceWatermarkToInfinity(),
            PairEvents.create().withAllowedLateness(Duration.standardHours(1)));
    PAssert.that(out.get(PairEvents.VERDICTS))
        .containsInAnyOrder(
            verdict(Status.MISSING_IN_TARGET, s, null), verdict(Status.MISSING_IN_SOURCE, null, t));
    PAssert.that(out.get(PairEvents.LATE)).empty();
    p.run();
  }

  @Test
  public void processingTimeExpiryIgnoresWatermarkAndExpiresByWallClock() {
    PairEvents pairEvents =
        PairEvents.create()
            .withExpiry(PairEvents.Expiry.PROCESSING_TIME)
            .withProcessingGrace(min(1));
    EventRef s1 = src("p1", min(0), A);
    EventRef t1 = tgt("p1", min(1), A);
    EventRef s2 = src("p2", min(0), A);
    EventRef t2 = tgt("p2", min(1), A);
    PCollectionTuple out =
        pair(
            stream()
                .addElements(at(s1), at(s2))
                // Far past t0 + timeout in event time: no expiry, no lateness in this mode.
                .advanceWatermarkTo(T0.plus(Duration.standardDays(1)))
                .addElements(at(t2))
                // The grace runs out for p1 only (p2's last event was just now).
                .advanceProcessingTime(min(2))
                .addElements(at(t1))
                .advanceProcessingTime(min(2))
                .advanceWatermarkToInfinity(),
            pairEvents);
    PAssert.that(out.get(PairEvents.VERDICTS))
        .containsInAnyOrder(
            verdict(Status.MATCH, s2, t2),
            verdict(Status.MISSING_IN_TARGET, s1, null),
            verdict(Status.MISSING_IN_SOURCE, null, t1));
    PAssert.that(out.get(PairEvents.LATE)).empty();
    PipelineResult result = p.run();
    result.waitUntilFinish();
    assertEquals(
        counter(result, PairEvents.METRIC_ENTRIES_OPENED),
        counter(result, PairEvents.METRIC_ENTRIES_CLOSED));
  }

  @Test
  public void entryFinishedByRule5DoesNotEmitTwiceWhenItsOldTimerComes() {
    // The first entry (t0 = 0, timer at 10 min) is finished by an event at 20 min, whose new
    // entry (timer at 30 min) then pairs. Moving the watermark past 10 min must not finish
    // anything again.
    EventRef s0 = src("k", min(0), A);
    EventRef s20 = src("k", min(20), A);
    EventRef t21 = tgt("k", min(21), A);
    PCollectionTuple out =
        pair(
            stream()
                .addElements(at(s0))
                .addElements(at(s20))
                .advanceWatermarkTo(T0.plus(min(15)))
                .addElements(at(t21))
                .advanceWatermarkToInfinity());
    PAssert.that(out.get(PairEvents.VERDICTS))
        .containsInAnyOrder(
            verdict(Status.MISSING_IN_TARGET, s0, null), verdict(Status.MATCH, s20, t21));
    PipelineResult result = p.run();
    result.waitUntilFinish();
    assertEquals(2, counter(result, PairEvents.METRIC_ENTRIES_OPENED));
    assertEquals(2, counter(result, PairEvents.METRIC_ENTRIES_CLOSED));
  }

  @Test
  public void settingsAreValidated() {
    PairEvents base = PairEvents.create();
    assertEquals(PairEvents.DEFAULT_TIMEOUT, base.getTimeout());
    assertEquals(base.getTimeout(), base.getAllowedLateness());
    assertEquals(base.getTimeout(), base.getProcessingGrace());
    assertEquals(PairEvents.Expiry.EVENT_TIME, base.getExpiry());
    PairEvents custom = base.withTimeout(min(3));
    assertEquals(min(3), custom.getAllowedLateness());
    assertEquals(Duration.ZERO, custom.withAllowedLateness(Duration.ZERO).getAllowedLateness());
    assertEquals(min(7), custom.withProcessingGrace(min(7)).getProcessingGrace());
    assertEquals(PairEvents.DEFAULT_TIMEOUT, base.getTimeout());

    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> base.withTimeout(Duration.ZERO));
    assertEquals("timeout must be > 0, got PT0S", e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> base.withTimeout(min(-1)));
    e =
        assertThrows(
            IllegalArgumentException.class, () -> base.withAllowedLateness(Duration.millis(-1)));
    assertEquals("allowedLateness must be >= 0, got PT-0.001S", e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> base.withProcessingGrace(Duration.ZERO));
    assertEquals("processingGrace must be > 0, got PT0S", e.getMessage());
    assertThrows(NullPointerException.class, () -> base.withExpiry(null));
    p.enableAbandonedNodeEnforcement(false);
  }

  @Test
  public void rejectsWindowedInput() {
    p.enableAbandonedNodeEnforcement(false);
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                p.apply(Create.of(src("k", min(0), A)).withCoder(EventRefCoder.of()))
                    .apply(Window.into(FixedWindows.of(min(1))))
                    .apply(PairEvents.create()));
    assertTrue(e.getMessage(), e.getMessage().contains("global window"));
  }

  @Test
  public void rejectsProcessingTimeExpiryOnBoundedInput() {
    p.enableAbandonedNodeEnforcement(false);
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                p.apply(Create.of(src("k", min(0), A)).withCoder(EventRefCoder.of()))
                    .apply(PairEvents.create().withExpiry(PairEvents.Expiry.PROCESSING_TIME)));
    assertTrue(e.getMessage(), e.getMessage().contains("unbounded"));
  }
}
