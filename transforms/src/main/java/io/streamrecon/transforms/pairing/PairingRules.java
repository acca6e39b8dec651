package io.streamrecon.transforms.pairing;

import io.streamrecon.model.EventRef;
import io.streamrecon.model.Side;
import io.streamrecon.model.Status;
import io.streamrecon.model.Verdict;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * The pairing rules of docs/design.md#pairing as a pure function: given the open entry of a natural
 * id (or none) and an event, which verdicts are emitted, what the entry becomes, and what is
 * counted. No Beam state, timers or clocks: {@link PairEventsFn} decides when an entry expires and
 * calls {@link #expire}.
 *
 * <p>Events of one side are ordered by (event time, hash): the greater is the newer version. That
 * one order serves both the unpaired case (rule 4: keep the newer) and the paired case (rule 3: a
 * newer version is compared again, an older one dropped), so the kept event never depends on which
 * of two versions arrived first.
 */
final class PairingRules implements Serializable {
  private static final long serialVersionUID = 1L;

  private final Duration timeout;

  PairingRules(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    if (!timeout.isLongerThan(Duration.ZERO)) {
      throw new IllegalArgumentException("timeout must be > 0, got " + timeout);
    }
    this.timeout = timeout;
  }

  Duration timeout() {
    return timeout;
  }

  /** When an entry opened at {@code t0} expires in event time (rule 1). */
  Instant expiryOf(Instant t0) {
    return t0.plus(timeout);
  }

  /**
   * Applies rules 1–5 to one event that is not late. {@code entry} is the key's open entry, or
   * {@code null}; the returned step always leaves an entry open.
   */
  Step onEvent(String naturalId, PairingEntry entry, EventRef event) {
    Objects.requireNonNull(naturalId, "naturalId");
    Objects.requireNonNull(event, "event");
    if (!event.naturalId().equals(naturalId)) {
      throw new IllegalArgumentException(
          "event of natural id " + event.naturalId() + " given for key " + naturalId);
    }
    if (entry == null) {
      return open(event);
    }
    if (Math.abs(event.eventTime().getMillis() - entry.t0().getMillis()) > timeout.getMillis()) {
      // Rule 5: too far from t0 to belong to this entry, in either direction.
      return expire(naturalId, entry).then(open(event));
    }
    Side side = event.side();
    EventRef same = entry.kept(side);
    EventRef other = entry.kept(side.other());
    Step.Builder step = Step.builder();
    if (same == null) {
      // Rule 2: the other side is kept (an entry is never empty), so this forms the pair.
      PairingEntry paired = entry.with(event);
      step.verdict(verdictFor(naturalId, paired, null)).eventsInVerdicts(2);
      return step.entry(paired).build();
    }
    if (same.sha256().equals(event.sha256())) {
      return step.duplicates(1).entry(entry).build();
    }
    if (!isNewer(event, same)) {
      // An older version, before or after pairing: the kept one already wins.
      return step.superseded(1).entry(entry).build();
    }
    PairingEntry replaced = entry.with(event);
    if (other == null) {
      // Rule 4: unpaired, the replaced version never reached a verdict.
      return step.superseded(1).entry(replaced).build();
    }
    // Rule 3: a new version after pairing is compared again and replaces the earlier verdict.
    String previous = verdictFor(naturalId, entry, null).verdictId();
    return step.verdict(verdictFor(naturalId, replaced, previous))
        .eventsInVerdicts(1)
        .entry(replaced)
        .build();
  }

  /**
   * Finishes an entry (rule 6, and rule 5 before a new entry opens): an unpaired entry emits
   * MISSING_IN_TARGET or MISSING_IN_SOURCE, a paired one has already emitted its verdicts.
   */
  Step expire(String naturalId, PairingEntry entry) {
    Objects.requireNonNull(entry, "entry");
    Step.Builder step = Step.builder().entriesClosed(1);
    if (!entry.paired()) {
      Status status = entry.source() != null ? Status.MISSING_IN_TARGET : Status.MISSING_IN_SOURCE;
      step.verdict(Verdict.of(naturalId, status, entry.source(), entry.target(), null))
          .eventsInVerdicts(1);
    }
    return step.build();
  }

  /**
   * Whether {@code a} is a newer version than {@code b}: later event time, on a tie the greater
   * hash.
   */
  static boolean isNewer(EventRef a, EventRef b) {
    int byTime = a.eventTime().compareTo(b.eventTime());
    return byTime != 0 ? byTime > 0 : a.sha256().compareTo(b.sha256()) > 0;
  }

  private Step open(EventRef event) {
    return Step.builder()
        .entry(PairingEntry.openedBy(event, expiryOf(event.eventTime())))
        .opened()
        .build();
  }

  private static Verdict verdictFor(String naturalId, PairingEntry paired, String supersedes) {
    Status status =
        paired.source().sha256().equals(paired.target().sha256()) ? Status.MATCH : Status.MISMATCH;
    return Verdict.of(naturalId, status, paired.source(), paired.target(), supersedes);
  }

  /**
   * The outcome of one rule application: verdicts to emit in order, the entry to keep ({@code
   * null}: clear the state), whether a new entry was opened (its expiry timer must be set), and the
   * counts. {@code eventsInVerdicts} counts each event once, the first time it is part of an
   * emitted verdict, so that events in = late + duplicates + superseded + eventsInVerdicts + events
   * still kept.
   */
  record Step(
      List<Verdict> verdicts,
      PairingEntry entry,
      boolean opened,
      int duplicates,
      int superseded,
      int eventsInVerdicts,
      int entriesOpened,
      int entriesClosed) {
    Step {
      verdicts = List.copyOf(verdicts);
    }

    /**
     * This step followed by {@code next}: verdicts in order, {@code next}'s entry, counts summed.
     */
    Step then(Step next) {
      List<Verdict> all = new ArrayList<>(verdicts);
      all.addAll(next.verdicts);
      return new Step(
          all,
          next.entry,
          next.opened,
          duplicates + next.duplicates,
          superseded + next.superseded,
          eventsInVerdicts + next.eventsInVerdicts,
          entriesOpened + next.entriesOpened,
          entriesClosed + next.entriesClosed);
    }

    static Builder builder() {
      return new Builder();
    }

    static final class Builder {
      private final List<Verdict> verdicts = new ArrayList<>();
      private PairingEntry entry;
      private boolean opened;
      private int duplicates;
      private int superseded;
      private int eventsInVerdicts;
      private int entriesClosed;

      Builder verdict(Verdict v) {
        verdicts.add(v);
        return this;
      }

      Builder entry(PairingEntry e) {
        entry = e;
        return this;
      }

      Builder opened() {
        opened = true;
        return this;
      }

      Builder duplicates(int n) {
        duplicates += n;
        return this;
      }

      Builder superseded(int n) {
        superseded += n;
        return this;
      }

      Builder eventsInVerdicts(int n) {
        eventsInVerdicts += n;
        return this;
      }

      Builder entriesClosed(int n) {
        entriesClosed += n;
        return this;
      }

      Step build() {
        return new Step(
            verdicts,
            entry,
            opened,
            duplicates,
            superseded,
            eventsInVerdicts,
            opened ? 1 : 0,
            entriesClosed);
      }
    }
  }
}
