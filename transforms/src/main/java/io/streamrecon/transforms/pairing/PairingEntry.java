package io.streamrecon.transforms.pairing;

import io.streamrecon.model.EventRef;
import io.streamrecon.model.Pointer;
import io.streamrecon.model.Side;
import java.util.Objects;
import org.joda.time.Instant;

/**
 * The open entry of one natural id (docs/design.md#pairing): when it opened ({@code t0}), when its
 * expiry timer is due ({@code timerTarget}: {@code t0 + timeout} in event time, or a wall-clock
 * deadline in processing-time mode), and at most one kept event per side. Metadata only, never a
 * payload.
 *
 * <p>{@code source} and {@code target} are {@code null} for a side with no event yet; an entry
 * always keeps at least one event, since it is opened by one and removed as a whole.
 */
record PairingEntry(Instant t0, Instant timerTarget, EventRef source, EventRef target) {

  /**
   * The natural id kept events carry after {@link PairingEntryCoder} decoded them: the state is
   * keyed by the natural id, so it is not stored again, and {@link #forKey} puts it back.
   */
  static final String UNBOUND_ID = "";

  PairingEntry {
    Objects.requireNonNull(t0, "t0");
    Objects.requireNonNull(timerTarget, "timerTarget");
    if (source == null && target == null) {
      throw new IllegalArgumentException("an entry keeps at least one event");
    }
    if (source != null && source.side() != Side.SOURCE) {
      throw new IllegalArgumentException("source slot holds a " + source.side() + " event");
    }
    if (target != null && target.side() != Side.TARGET) {
      throw new IllegalArgumentException("target slot holds a " + target.side() + " event");
    }
  }

  /** A new entry opened by {@code event}, expiring at {@code timerTarget}. */
  static PairingEntry openedBy(EventRef event, Instant timerTarget) {
    return event.side() == Side.SOURCE
        ? new PairingEntry(event.eventTime(), timerTarget, event, null)
        : new PairingEntry(event.eventTime(), timerTarget, null, event);
  }

  /** The event kept for {@code side}, or {@code null}. */
  EventRef kept(Side side) {
    return side == Side.SOURCE ? source : target;
  }

  /** Both sides have an event: a verdict has been emitted for this entry. */
  boolean paired() {
    return source != null && target != null;
  }

  /** How many events this entry keeps (1 or 2). */
  int keptCount() {
    return (source == null ? 0 : 1) + (target == null ? 0 : 1);
  }

  /** This entry with {@code event} kept for its side, replacing what was kept there. */
  PairingEntry with(EventRef event) {
    return event.side() == Side.SOURCE
        ? new PairingEntry(t0, timerTarget, event, target)
        : new PairingEntry(t0, timerTarget, source, event);
  }

  PairingEntry withTimerTarget(Instant newTimerTarget) {
    return new PairingEntry(t0, newTimerTarget, source, target);
  }

  /**
   * This entry with every kept event (and its pointer's fallback key) carrying {@code naturalId}.
   */
  PairingEntry forKey(String naturalId) {
    return new PairingEntry(t0, timerTarget, rebind(source, naturalId), rebind(target, naturalId));
  }

  private static EventRef rebind(EventRef ref, String naturalId) {
    if (ref == null || ref.naturalId().equals(naturalId)) {
      return ref;
    }
    Pointer p = ref.pointer();
    return new EventRef(
        ref.side(),
        naturalId,
        ref.eventTime(),
        ref.sha256(),
        new Pointer(p.tableVersion(), p.dataFile(), p.rowIndex(), p.side(), naturalId, p.sha256()));
  }
}
