package io.streamrecon.transforms.pairing;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import org.joda.time.Instant;

/**
 * One slot of a bucket's expiry index: the natural ids whose entries fall due within one {@link
 * BucketClock#slotOf grain} of time, each with its exact due time. A firing reads only the slots it
 * passes, so it touches the entries that are due (and the few others sharing their slot), never the
 * whole bucket. Immutable: state backends that keep objects (DirectRunner, Flink heap) must not see
 * a stored value change under them.
 */
record ExpirySlot(SortedMap<String, Long> dues) {

  ExpirySlot {
    Objects.requireNonNull(dues, "dues");
    dues = Collections.unmodifiableSortedMap(new TreeMap<>(dues));
  }

  static final ExpirySlot EMPTY = new ExpirySlot(new TreeMap<>());

  /** This slot with {@code naturalId} due at {@code due}. */
  ExpirySlot with(String naturalId, Instant due) {
    TreeMap<String, Long> next = new TreeMap<>(dues);
    next.put(naturalId, due.getMillis());
    return new ExpirySlot(next);
  }

  /** This slot without {@code naturalId}. */
  ExpirySlot without(String naturalId) {
    if (!dues.containsKey(naturalId)) {
      return this;
    }
    TreeMap<String, Long> next = new TreeMap<>(dues);
    next.remove(naturalId);
    return new ExpirySlot(next);
  }

  boolean isEmpty() {
    return dues.isEmpty();
  }

  /** The earliest due id of this slot, or {@code null} if empty. */
  Map.Entry<String, Long> earliest() {
    Map.Entry<String, Long> min = null;
    for (Map.Entry<String, Long> e : dues.entrySet()) {
      if (min == null || e.getValue() < min.getValue()) {
        min = e;
      }
    }
    return min;
  }
}
