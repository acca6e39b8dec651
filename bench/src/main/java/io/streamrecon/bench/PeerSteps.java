package io.streamrecon.bench;

import io.streamrecon.json.EventParser;
import io.streamrecon.json.InvalidEventException;
import io.streamrecon.model.Event;
import io.streamrecon.model.Origin;
import io.streamrecon.model.RawInput;
import io.streamrecon.model.Side;
import io.streamrecon.model.Status;
import io.streamrecon.model.Verdict;
import java.nio.charset.StandardCharsets;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.function.FlatMapGroupsWithStateFunction;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.GroupState;
import org.apache.spark.sql.streaming.GroupStateTimeout;
import org.apache.spark.sql.streaming.OutputMode;
import org.apache.spark.util.LongAccumulator;
import org.joda.time.Instant;

/**
 * The Spark peer's parse and pairing steps, shared by the file peer ({@link PeerContender}) and the
 * Kafka peer ({@link PeerStream}): the same {@link EventParser} in a typed map, and {@code
 * flatMapGroupsWithState} with an event-time timeout per natural id keeping metadata only ({@link
 * PeerRows.State}), deciding with {@link Pairing}.
 *
 * <p>A row whose side is neither {@code SOURCE} nor {@code TARGET} is a <em>marker</em>: it only
 * moves its stream's watermark (the file peer's end-of-input sentinel, the Kafka peer's idle
 * heartbeat); pairing skips it and it opens no state.
 */
final class PeerSteps {
  private PeerSteps() {}

  static boolean isMarker(String side) {
    return !Side.SOURCE.name().equals(side) && !Side.TARGET.name().equals(side);
  }

  /** One input line or Kafka record value of {@code side} (or a marker) as a typed row. */
  static PeerRows.InEvent parse(EventParser parser, String side, String value)
      throws InvalidEventException {
    boolean marker = isMarker(side);
    PeerRows.InEvent e = new PeerRows.InEvent();
    e.setSide(side);
    Event parsed =
        parser.parse(
            new RawInput(
                marker ? Side.SOURCE : Side.valueOf(side),
                value.getBytes(StandardCharsets.UTF_8),
                Origin.fileLine("spark", 0),
                Instant.EPOCH));
    e.setId(parsed.naturalId());
    e.setEventTime(new Timestamp(parsed.eventTime().getMillis()));
    e.setHash(parsed.sha256());
    e.setPayload(marker ? null : value);
    return e;
  }

  /**
   * Lines or record values (columns {@code value}, {@code side}) parsed into events, with a
   * watermark {@code delay} behind their largest event time.
   */
  static Dataset<PeerRows.InEvent> parseWithWatermark(
      Dataset<Row> lines, EventParser parser, String delay) {
    return lines
        .map(
            (MapFunction<Row, PeerRows.InEvent>)
                row -> parse(parser, row.getString(1), row.getString(0)),
            Encoders.bean(PeerRows.InEvent.class))
        .withWatermark("eventTime", delay)
        .as(Encoders.bean(PeerRows.InEvent.class));
  }

  /**
   * Pairs the watermarked events per natural id: emits RAW rows (every event, to store), VERDICT
   * rows (MATCH, MISMATCH) and FINAL rows (an entry's last status when it expires).
   */
  static Dataset<PeerRows.Out> pair(
      Dataset<PeerRows.InEvent> events,
      long timeoutMillis,
      LongAccumulator dupAcc,
      LongAccumulator supAcc) {
    Pairing<Void> pairing = new Pairing<>(timeoutMillis);
    FlatMapGroupsWithStateFunction<String, PeerRows.InEvent, PeerRows.State, PeerRows.Out> fn =
        (id, values, state) -> pairStep(pairing, id, values, state, dupAcc, supAcc);
    return events
        .groupByKey(
            (MapFunction<PeerRows.InEvent, String>) PeerRows.InEvent::getId, Encoders.STRING())
        .flatMapGroupsWithState(
            fn,
            OutputMode.Append(),
            Encoders.bean(PeerRows.State.class),
            Encoders.bean(PeerRows.Out.class),
            GroupStateTimeout.EventTimeTimeout());
  }

  /** One call per id per micro-batch: the rows to emit, state updated or removed. */
  private static Iterator<PeerRows.Out> pairStep(
      Pairing<Void> pairing,
      String id,
      Iterator<PeerRows.InEvent> values,
      GroupState<PeerRows.State> state,
      LongAccumulator dupAcc,
      LongAccumulator supAcc) {
    List<PeerRows.Out> out = new ArrayList<>();
    Pairing.Sink<Void> sink = new RowSink(out, dupAcc, supAcc);
    if (state.hasTimedOut()) {
      pairing.finish(id, fromState(state.get()), sink);
      state.remove();
      return out.iterator();
    }
    Pairing.Entry<Void> entry = state.exists() ? fromState(state.get()) : null;
    List<PeerRows.InEvent> batch = new ArrayList<>();
    values.forEachRemaining(batch::add);
    // Within a micro-batch Spark gives no order; event-time order is what a stream would show.
    batch.sort(
        Comparator.comparing(PeerRows.InEvent::getEventTime)
            .thenComparing(PeerRows.InEvent::getSide)
            .thenComparing(PeerRows.InEvent::getHash));
    for (PeerRows.InEvent e : batch) {
      if (isMarker(e.getSide())) {
        continue;
      }
      PeerRows.Out raw = new PeerRows.Out();
      raw.setKind("RAW");
      raw.setSide(e.getSide());
      raw.setId(id);
      raw.setEventTime(e.getEventTime());
      raw.setHash(e.getHash());
      raw.setPayload(e.getPayload());
      out.add(raw);
      entry =
          pairing.onEvent(
              id,
              entry,
              Side.valueOf(e.getSide()),
              e.getEventTime().getTime(),
              e.getHash(),
              null,
              sink);
    }
    if (entry != null) {
      state.update(toState(entry));
      long expiry = entry.expiresAt(pairing.timeoutMillis());
      state.setTimeoutTimestamp(Math.max(expiry, state.getCurrentWatermarkMs() + 1));
    }
    return out.iterator();
  }

  private static Pairing.Entry<Void> fromState(PeerRows.State s) {
    Pairing.Entry<Void> e = new Pairing.Entry<>();
    e.t0 = s.getT0();
    if (s.getSourceHash() != null) {
      e.source = new Pairing.Kept<>(s.getSourceTime(), s.getSourceHash(), null);
    }
    if (s.getTargetHash() != null) {
      e.target = new Pairing.Kept<>(s.getTargetTime(), s.getTargetHash(), null);
    }
    e.lastVerdictId = s.getLastVerdictId();
    e.lastStatus = s.getLastStatus() == null ? null : Status.valueOf(s.getLastStatus());
    return e;
  }

  private static PeerRows.State toState(Pairing.Entry<Void> e) {
    PeerRows.State s = new PeerRows.State();
    s.setT0(e.t0);
    if (e.source != null) {
      s.setSourceTime(e.source.eventTime());
      s.setSourceHash(e.source.hash());
    }
    if (e.target != null) {
      s.setTargetTime(e.target.eventTime());
      s.setTargetHash(e.target.hash());
    }
    s.setLastVerdictId(e.lastVerdictId);
    s.setLastStatus(e.lastStatus == null ? null : e.lastStatus.name());
    return s;
  }

  /** Turns pairing decisions into output rows. */
  private record RowSink(List<PeerRows.Out> out, LongAccumulator dupAcc, LongAccumulator supAcc)
      implements Pairing.Sink<Void> {
    @Override
    public void verdict(String id, Verdict v, Pairing.Kept<Void> s, Pairing.Kept<Void> t) {
      PeerRows.Out o = new PeerRows.Out();
      o.setKind("VERDICT");
      o.setId(id);
      o.setStatus(v.status().name());
      o.setVerdictId(v.verdictId());
      o.setSupersedes(v.supersedes());
      o.setSourceHash(s.hash());
      o.setTargetHash(t.hash());
      o.setSourceTime(new Timestamp(s.eventTime()));
      o.setTargetTime(new Timestamp(t.eventTime()));
      out.add(o);
    }

    @Override
    public void finished(String id, Status status, Pairing.Kept<Void> s, Pairing.Kept<Void> t) {
      PeerRows.Out o = new PeerRows.Out();
      o.setKind("FINAL");
      o.setId(id);
      o.setStatus(status.name());
      if (status == Status.MISSING_IN_TARGET || status == Status.MISSING_IN_SOURCE) {
        // a missing verdict is a DeltaRecord too: written with the verdicts
        Pairing.Kept<Void> k = s != null ? s : t;
        o.setVerdictId(
            Verdict.idOf(id, status, s == null ? null : s.hash(), t == null ? null : t.hash()));
        o.setSourceHash(s == null ? null : s.hash());
        o.setTargetHash(t == null ? null : t.hash());
        o.setSourceTime(s == null ? null : new Timestamp(s.eventTime()));
        o.setTargetTime(t == null ? null : new Timestamp(t.eventTime()));
        o.setEventTime(new Timestamp(k.eventTime()));
      }
      out.add(o);
    }

    @Override
    public void duplicate() {
      dupAcc.add(1);
    }

    @Override
    public void superseded() {
      supAcc.add(1);
    }
  }
}
