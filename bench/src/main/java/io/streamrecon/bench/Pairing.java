package io.streamrecon.bench;

import io.streamrecon.model.Side;
import io.streamrecon.model.Status;
import io.streamrecon.model.Verdict;
import java.io.Serializable;

/**
 * The pairing of one natural id (docs/design.md#pairing), written independently of streamrecon's
 * PairEvents so that the bare loop and the Spark peer check it rather than copy it. {@code R} is
 * what an entry keeps per side besides time and hash: the payload itself (bare: inline) or nothing
 * (peer: the pointer is the side, id and hash).
 *
 * <p>The caller keeps one {@link Entry} per id, passes it to {@link #onEvent} and stores what comes
 * back, and calls {@link #finish} when the watermark passes {@link Entry#expiresAt}.
 */
final class Pairing<R> implements Serializable {
  private static final long serialVersionUID = 1L;
  private final long timeoutMillis;

  Pairing(long timeoutMillis) {
    this.timeoutMillis = timeoutMillis;
  }

  /** The event kept for one side. */
  record Kept<R>(long eventTime, String hash, R ref) implements Serializable {}

  /** The open entry of an id: when it opened, what each side keeps and its latest verdict. */
  static final class Entry<R> implements Serializable {
    long t0;
    Kept<R> source;
    Kept<R> target;
    String lastVerdictId;
    Status lastStatus;

    Kept<R> kept(Side side) {
      return side == Side.SOURCE ? source : target;
    }

    void keep(Side side, Kept<R> k) {
      if (side == Side.SOURCE) {
        source = k;
      } else {
        target = k;
      }
    }

    long expiresAt(long timeoutMillis) {
      return t0 + timeoutMillis;
    }
  }

  /** Receives what pairing decides. */
  interface Sink<R> {
    /** A verdict was emitted (MATCH or MISMATCH; a MISMATCH needs both payloads and a diff). */
    void verdict(String naturalId, Verdict verdict, Kept<R> source, Kept<R> target);

    /** An entry finished; {@code status} is its final verdict (MISSING_* if it never paired). */
    void finished(String naturalId, Status status, Kept<R> source, Kept<R> target);

    void duplicate();

    void superseded();
  }

  long timeoutMillis() {
    return timeoutMillis;
  }

  /** Applies one event; returns the entry to keep for the id afterwards. */
  Entry<R> onEvent(String id, Entry<R> entry, Side side, long t, String hash, R ref, Sink<R> sink) {
    Kept<R> event = new Kept<>(t, hash, ref);
    if (entry != null && Math.abs(t - entry.t0) > timeoutMillis) {
      finish(id, entry, sink); // rule 5
      entry = null;
    }
    if (entry == null) {
      Entry<R> e = new Entry<>();
      e.t0 = t;
      e.keep(side, event);
      return e;
    }
    Kept<R> kept = entry.kept(side);
    if (kept == null) {
      entry.keep(side, event);
      if (entry.kept(side.other()) != null) {
        emit(id, entry, null, sink); // rule 2
      }
      return entry;
    }
    if (kept.hash().equals(hash)) {
      sink.duplicate(); // rule 3: same side, same hash
      return entry;
    }
    sink.superseded(); // rules 3 and 4: one of the two versions goes
    if (isNewer(t, hash, kept)) {
      entry.keep(side, event);
      if (entry.kept(side.other()) != null) {
        emit(id, entry, entry.lastVerdictId, sink);
      }
    }
    return entry;
  }

  /** Expiry (rule 6) or replacement by a distant event (rule 5). */
  void finish(String id, Entry<R> entry, Sink<R> sink) {
    Status status;
    if (entry.lastStatus != null) {
      status = entry.lastStatus;
    } else {
      status = entry.source != null ? Status.MISSING_IN_TARGET : Status.MISSING_IN_SOURCE;
    }
    sink.finished(id, status, entry.source, entry.target);
  }

  private static <R> boolean isNewer(long t, String hash, Kept<R> kept) {
    return t > kept.eventTime() || (t == kept.eventTime() && hash.compareTo(kept.hash()) > 0);
  }

  private void emit(String id, Entry<R> entry, String supersedes, Sink<R> sink) {
    Status status =
        entry.source.hash().equals(entry.target.hash()) ? Status.MATCH : Status.MISMATCH;
    Verdict v =
        new Verdict(
            Verdict.idOf(id, status, entry.source.hash(), entry.target.hash()),
            supersedes,
            id,
            status,
            null,
            null);
    entry.lastVerdictId = v.verdictId();
    entry.lastStatus = status;
    sink.verdict(id, v, entry.source, entry.target);
  }
}
