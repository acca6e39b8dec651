package io.streamrecon.transforms.pairing;

import static io.streamrecon.transforms.pairing.PairFixtures.T0;
import static io.streamrecon.transforms.pairing.PairFixtures.TIMEOUT;
import static io.streamrecon.transforms.pairing.PairFixtures.hash;
import static io.streamrecon.transforms.pairing.PairFixtures.min;
import static io.streamrecon.transforms.pairing.PairFixtures.sec;
import static io.streamrecon.transforms.pairing.PairFixtures.src;
import static io.streamrecon.transforms.pairing.PairFixtures.tgt;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.streamrecon.model.EventRef;
import io.streamrecon.model.Status;
import io.streamrecon.model.Verdict;
import java.util.List;
import org.joda.time.Duration;
import org.junit.Test;

/** The pairing rules of docs/design.md#pairing, without Beam. */
public class PairingRulesTest {
  private static final String ID = "order-1";
  private static final String A = hash("a");
  private static final String B = hash("b");
  private static final String C = hash("c");

  private final PairingRules rules = new PairingRules(TIMEOUT);

  /** Feeds events in order from an empty key, returning the last step with all verdicts. */
  private PairingRules.Step feed(EventRef... events) {
    PairingRules.Step all = null;
    PairingEntry entry = null;
    for (EventRef e : events) {
      PairingRules.Step step = rules.onEvent(ID, entry, e);
      all = all == null ? step : all.then(step);
      entry = step.entry();
    }
    return all;
  }

  @Test
  public void firstEventOpensEntryAtItsTimeExpiringAfterTimeout() {
    EventRef s = src(ID, min(3), A);
    PairingRules.Step step = rules.onEvent(ID, null, s);
    assertTrue(step.opened());
    assertEquals(1, step.entriesOpened());
    assertEquals(List.of(), step.verdicts());
    assertEquals(s.eventTime(), step.entry().t0());
    assertEquals(s.eventTime().plus(TIMEOUT), step.entry().timerTarget());
    assertSame(s, step.entry().source());
    assertNull(step.entry().target());
  }

  @Test
  public void otherSideWithEqualHashMatches() {
    EventRef s = src(ID, min(0), A);
    EventRef t = tgt(ID, min(4), A);
    PairingRules.Step step = feed(s, t);
    assertEquals(List.of(Verdict.of(ID, Status.MATCH, s, t, null)), step.verdicts());
    assertEquals(2, step.eventsInVerdicts());
    assertTrue(step.entry().paired());
  }

  @Test
  public void otherSideWithOtherHashMismatches() {
    EventRef s = src(ID, min(0), A);
    EventRef t = tgt(ID, min(1), B);
    assertEquals(List.of(Verdict.of(ID, Status.MISMATCH, s, t, null)), feed(s, t).verdicts());
  }

  @Test
  public void targetFirstPairsTheSameWay() {
    EventRef s = src(ID, min(0), A);
    EventRef t = tgt(ID, min(1), B);
    PairingRules.Step step = feed(t, s);
    assertEquals(List.of(Verdict.of(ID, Status.MISMATCH, s, t, null)), step.verdicts());
    assertEquals(t.eventTime(), step.entry().t0());
  }

  @Test
  public void pairsAtExactlyTheTimeoutInBothDirections() {
    EventRef s = src(ID, min(10), A);
    EventRef later = tgt(ID, min(20), A);
    EventRef earlier = tgt(ID, min(0), A);
    assertEquals(Status.MATCH, feed(s, later).verdicts().get(0).status());
    assertEquals(Status.MATCH, feed(s, earlier).verdicts().get(0).status());
  }

  @Test
  public void otherSideBeyondTimeoutFinishesEntryAndOpensNew() {
    EventRef s = src(ID, min(10), A);
    EventRef t = tgt(ID, min(10).plus(TIMEOUT).plus(1), A);
    PairingRules.Step step = feed(s, t);
    assertEquals(List.of(Verdict.of(ID, Status.MISSING_IN_TARGET, s, null, null)), step.verdicts());
    assertEquals(2, step.entriesOpened());
    assertEquals(1, step.entriesClosed());
    assertEquals(t.eventTime(), step.entry().t0());
    assertSame(t, step.entry().target());
    assertNull(step.entry().source());
    assertEquals(
        List.of(Verdict.of(ID, Status.MISSING_IN_SOURCE, null, t, null)),
        rules.expire(ID, step.entry()).verdicts());
  }

  @Test
  public void earlierEventBeyondTimeoutAlsoStartsNewEntry() {
    EventRef s = src(ID, min(30), A);
    EventRef t = tgt(ID, min(30).minus(TIMEOUT).minus(1), A);
    PairingRules.Step step = feed(s, t);
    assertEquals(List.of(Verdict.of(ID, Status.MISSING_IN_TARGET, s, null, null)), step.verdicts());
    assertEquals(t.eventTime(), step.entry().t0());
    assertTrue(step.opened());
  }

  @Test
  public void beyondTimeoutAfterPairingClosesSilently() {
    EventRef s = src(ID, min(0), A);
    EventRef t = tgt(ID, min(1), A);
    EventRef s2 = src(ID, min(30), A);
    PairingRules.Step step = feed(s, t, s2);
    assertEquals(List.of(Verdict.of(ID, Status.MATCH, s, t, null)), step.verdicts());
    assertEquals(1, step.entriesClosed());
    assertSame(s2, step.entry().source());
    assertNull(step.entry().target());
  }

  @Test
  public void expiryOfUnpairedEntryEmitsMissing() {
    EventRef s = src(ID, min(0), A);
    PairingRules.Step step = rules.expire(ID, feed(s).entry());
    assertEquals(List.of(Verdict.of(ID, Status.MISSING_IN_TARGET, s, null, null)), step.verdicts());
    assertEquals(1, step.eventsInVerdicts());
    assertEquals(1, step.entriesClosed());
    assertNull(step.entry());
  }

  @Test
  public void expiryOfPairedEntryEmitsNothing() {
    PairingRules.Step step = rules.expire(ID, feed(src(ID, min(0), A), tgt(ID, min(0), B)).entry());
    assertEquals(List.of(), step.verdicts());
    assertEquals(0, step.eventsInVerdicts());
    assertEquals(1, step.entriesClosed());
  }

  @Test
  public void sameHashBeforePairingIsDuplicate() {
    EventRef s = src(ID, min(0), A);
    PairingRules.Step first = rules.onEvent(ID, null, s);
    PairingRules.Step dup = rules.onEvent(ID, first.entry(), src(ID, min(2), A));
    assertEquals(1, dup.duplicates());
    assertEquals(List.of(), dup.verdicts());
    assertSame(first.entry(), dup.entry());
    assertFalse(dup.opened());
  }

  @Test
  public void sameHashAfterPairingIsDuplicateOnEitherSide() {
    EventRef s = src(ID, min(0), A);
    EventRef t = tgt(ID, min(1), B);
    PairingRules.Step step = feed(s, t, src(ID, min(0), A), tgt(ID, min(5), B));
    assertEquals(List.of(Verdict.of(ID, Status.MISMATCH, s, t, null)), step.verdicts());
    assertEquals(2, step.duplicates());
    assertSame(s, step.entry().source());
    assertSame(t, step.entry().target());
  }

  @Test
  public void unpairedKeepsLaterVersionWhicheverArrivesFirst() {
    EventRef older = src(ID, min(1), A);
    EventRef newer = src(ID, min(2), B);
    for (PairingRules.Step step : List.of(feed(older, newer), feed(newer, older))) {
      assertSame(newer, step.entry().source());
      assertEquals(1, step.superseded());
      assertEquals(List.of(), step.verdicts());
    }
  }

  @Test
  public void unpairedTieOnEventTimeKeepsLargerHash() {
    String small = A.compareTo(B) < 0 ? A : B;
    String large = A.compareTo(B) < 0 ? B : A;
    EventRef lo = src(ID, min(1), small);
    EventRef hi = src(ID, min(1), large);
    assertSame(hi, feed(lo, hi).entry().source());
    assertSame(hi, feed(hi, lo).entry().source());
  }

  @Test
  public void newVersionAfterPairingIsComparedAgainAndSupersedes() {
    EventRef s1 = src(ID, min(0), A);
    EventRef t = tgt(ID, min(1), B);
    EventRef s2 = src(ID, min(2), B);
    EventRef s3 = src(ID, min(3), C);
    Verdict mismatch = Verdict.of(ID, Status.MISMATCH, s1, t, null);
    Verdict resolved = Verdict.of(ID, Status.MATCH, s2, t, mismatch.verdictId());
    Verdict broken = Verdict.of(ID, Status.MISMATCH, s3, t, resolved.verdictId());
    PairingRules.Step step = feed(s1, t, s2, s3);
    assertEquals(List.of(mismatch, resolved, broken), step.verdicts());
    assertEquals(4, step.eventsInVerdicts());
    assertEquals(0, step.superseded());
    assertSame(s3, step.entry().source());
  }

  @Test
  public void newTargetVersionAfterPairingSupersedesToo() {
    EventRef s = src(ID, min(0), A);
    EventRef t1 = tgt(ID, min(1), B);
    EventRef t2 = tgt(ID, min(2), A);
    Verdict mismatch = Verdict.of(ID, Status.MISMATCH, s, t1, null);
    assertEquals(
        List.of(mismatch, Verdict.of(ID, Status.MATCH, s, t2, mismatch.verdictId())),
        feed(s, t1, t2).verdicts());
  }

  @Test
  public void olderVersionAfterPairingIsSupersededAndDropped() {
    EventRef s2 = src(ID, min(2), A);
    EventRef t = tgt(ID, min(1), A);
    EventRef s1 = src(ID, min(1), B);
    PairingRules.Step step = feed(s2, t, s1);
    assertEquals(List.of(Verdict.of(ID, Status.MATCH, s2, t, null)), step.verdicts());
    assertEquals(1, step.superseded());
    assertSame(s2, step.entry().source());
  }

  @Test
  public void olderVersionOnTieLosesByHash() {
    String small = A.compareTo(B) < 0 ? A : B;
    String large = A.compareTo(B) < 0 ? B : A;
    EventRef hi = src(ID, min(1), large);
    EventRef t = tgt(ID, min(1), large);
    EventRef lo = src(ID, min(1), small);
    PairingRules.Step step = feed(hi, t, lo);
    assertEquals(1, step.verdicts().size());
    assertEquals(1, step.superseded());
  }

  @Test
  public void missingCarriesTheKeptLatestVersion() {
    EventRef older = src(ID, min(1), A);
    EventRef newer = src(ID, min(2), B);
    PairingRules.Step step = feed(newer, older);
    assertEquals(
        List.of(Verdict.of(ID, Status.MISSING_IN_TARGET, newer, null, null)),
        rules.expire(ID, step.entry()).verdicts());
  }

  @Test
  public void everyEventIsCountedExactlyOnce() {
    // 7 events: dup, superseded (older), 2 in the first pair, 1 new version, 1 kept after rule 5,
    // and 1 more superseded while unpaired in the new entry.
    PairingRules.Step step =
        feed(
            src(ID, min(0), A),
            src(ID, min(0), A),
            tgt(ID, min(1), B),
            tgt(ID, min(0), C),
            src(ID, min(2), B),
            src(ID, min(40), A),
            src(ID, min(39), C));
    int kept = step.entry().keptCount();
    assertEquals(7, step.duplicates() + step.superseded() + step.eventsInVerdicts() + kept);
    assertEquals(1, step.duplicates());
    assertEquals(2, step.superseded());
    assertEquals(3, step.eventsInVerdicts());
    assertEquals(1, kept);
  }

  @Test
  public void rejectsEventOfAnotherKeyAndNonPositiveTimeout() {
    assertThrows(
        IllegalArgumentException.class, () -> rules.onEvent(ID, null, src("other", min(0), A)));
    assertThrows(IllegalArgumentException.class, () -> new PairingRules(Duration.ZERO));
  }

  @Test
  public void isNewerOrdersByTimeThenHash() {
    assertTrue(PairingRules.isNewer(src(ID, sec(2), A), src(ID, sec(1), B)));
    assertFalse(PairingRules.isNewer(src(ID, sec(1), B), src(ID, sec(2), A)));
    String small = A.compareTo(B) < 0 ? A : B;
    String large = A.compareTo(B) < 0 ? B : A;
    assertTrue(PairingRules.isNewer(src(ID, sec(1), large), src(ID, sec(1), small)));
    assertFalse(PairingRules.isNewer(src(ID, sec(1), small), src(ID, sec(1), large)));
    assertEquals(T0.plus(TIMEOUT), rules.expiryOf(T0));
  }
}
