package io.streamrecon.transforms.pairing;

import io.streamrecon.model.EventRef;
import io.streamrecon.model.Pointer;
import io.streamrecon.model.Side;
import io.streamrecon.model.Status;
import io.streamrecon.model.Verdict;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.metrics.MetricNameFilter;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.MetricsFilter;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Duration;
import org.joda.time.Instant;

/** Shared test data for the pairing tests: events with fake pointers and real SHA-256 hashes. */
final class PairFixtures {
  private PairFixtures() {}

  static final Instant T0 = Instant.parse("2026-11-29T10:00:00Z");
  static final Duration TIMEOUT = PairEvents.DEFAULT_TIMEOUT;

  /** A real 64-hex SHA-256, so the coders' packed path is exercised. */
  static String hash(String seed) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(seed.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  static EventRef event(Side side, String id, Instant time, String hash) {
    // The row index only needs to be stable: derive it from the event, not from a counter.
    long row = Math.floorMod((side + id + time + hash).hashCode(), 100_000);
    return new EventRef(side, id, time, hash, new Pointer(1, "f.parquet", row, side, id, hash));
  }

  static EventRef src(String id, Duration after, String hash) {
    return event(Side.SOURCE, id, T0.plus(after), hash);
  }

  static EventRef tgt(String id, Duration after, String hash) {
    return event(Side.TARGET, id, T0.plus(after), hash);
  }

  static Duration min(long minutes) {
    return Duration.standardMinutes(minutes);
  }

  static Duration sec(long seconds) {
    return Duration.standardSeconds(seconds);
  }

  /** The element as ParseEvents emits it: timestamped with its event time. */
  static TimestampedValue<EventRef> at(EventRef event) {
    return TimestampedValue.of(event, event.eventTime());
  }

  /** {@code stream} with {@code events} added as one bundle, each at its event time. */
  @SuppressWarnings("unchecked")
  static TestStream.Builder<EventRef> addAll(
      TestStream.Builder<EventRef> stream, List<EventRef> events) {
    TimestampedValue<EventRef>[] rest = new TimestampedValue[events.size() - 1];
    for (int i = 1; i < events.size(); i++) {
      rest[i - 1] = at(events.get(i));
    }
    return stream.addElements(at(events.get(0)), rest);
  }

  /** What makes a verdict, without pointers: used to compare verdict sets. */
  record Key(String naturalId, Status status, String sourceHash, String targetHash)
      implements Serializable {
    static Key of(Verdict v) {
      return new Key(
          v.naturalId(),
          v.status(),
          v.source() == null ? null : v.source().sha256(),
          v.target() == null ? null : v.target().sha256());
    }
  }

  static Set<Key> keys(Iterable<Verdict> verdicts) {
    Set<Key> keys = new HashSet<>();
    verdicts.forEach(v -> keys.add(Key.of(v)));
    return keys;
  }

  /** A committed counter of namespace streamrecon, summed over steps; 0 if never incremented. */
  static long counter(PipelineResult result, String name) {
    long sum = 0;
    for (MetricResult<Long> c :
        result
            .metrics()
            .queryMetrics(
                MetricsFilter.builder()
                    .addNameFilter(MetricNameFilter.named(PairEvents.METRIC_NAMESPACE, name))
                    .build())
            .getCounters()) {
      sum += c.getCommitted();
    }
    return sum;
  }
}
