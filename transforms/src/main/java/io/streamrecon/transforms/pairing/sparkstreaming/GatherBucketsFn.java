package io.streamrecon.transforms.pairing.sparkstreaming;

import io.streamrecon.model.EventRef;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.windowing.GlobalWindow;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * Gathers a bundle's events per bucket into one element, for a runner that calls a stateful DoFn
 * once per element and loads and stores the key's whole state on every call (Beam's classic
 * SparkRunner in streaming mode, where a bundle is a micro-batch partition). The pairing then loads
 * a bucket once per batch instead of once per event.
 *
 * <p>Emits each bucket's events, with their own timestamps, at the earliest of them, in the global
 * window: when the bundle finishes, or for all buckets at once when {@code maxGathered} events are
 * held, so that a large bundle (a backlog after a restart) does not hold the whole bundle in
 * memory.
 */
public final class GatherBucketsFn
    extends DoFn<KV<Integer, EventRef>, KV<Integer, List<TimestampedValue<EventRef>>>> {
  private static final long serialVersionUID = 1L;

  private final int maxGathered;
  private transient Map<Integer, List<TimestampedValue<EventRef>>> gathered;
  private transient int held;

  /** Emits early once {@code maxGathered} events are held. */
  public GatherBucketsFn(int maxGathered) {
    if (maxGathered < 1) {
      throw new IllegalArgumentException("maxGathered must be at least 1, got " + maxGathered);
    }
    this.maxGathered = maxGathered;
  }

  @StartBundle
  public void startBundle() {
    clear();
  }

  private void clear() {
    gathered = new HashMap<>();
    held = 0;
  }

  @ProcessElement
  public void processElement(
      @Element KV<Integer, EventRef> element,
      @Timestamp Instant timestamp,
      OutputReceiver<KV<Integer, List<TimestampedValue<EventRef>>>> out) {
    gathered
        .computeIfAbsent(element.getKey(), k -> new ArrayList<>())
        .add(TimestampedValue.of(element.getValue(), timestamp));
    if (++held >= maxGathered) {
      for (Map.Entry<Integer, List<TimestampedValue<EventRef>>> bucket : gathered.entrySet()) {
        out.outputWithTimestamp(
            KV.of(bucket.getKey(), bucket.getValue()), earliest(bucket.getValue()));
      }
      clear();
    }
  }

  @FinishBundle
  public void finishBundle(FinishBundleContext context) {
    for (Map.Entry<Integer, List<TimestampedValue<EventRef>>> bucket : gathered.entrySet()) {
      context.output(
          KV.of(bucket.getKey(), bucket.getValue()),
          earliest(bucket.getValue()),
          GlobalWindow.INSTANCE);
    }
    gathered = null;
  }

  /**
   * An early flush emits a bucket at its earliest event, which may be before the element being
   * processed.
   */
  @SuppressWarnings("deprecation") // the only way to let a DoFn move timestamps backwards
  @Override
  public Duration getAllowedTimestampSkew() {
    return Duration.millis(Long.MAX_VALUE);
  }

  private static Instant earliest(List<TimestampedValue<EventRef>> events) {
    Instant earliest = events.get(0).getTimestamp();
    for (TimestampedValue<EventRef> event : events) {
      if (event.getTimestamp().isBefore(earliest)) {
        earliest = event.getTimestamp();
      }
    }
    return earliest;
  }
}
