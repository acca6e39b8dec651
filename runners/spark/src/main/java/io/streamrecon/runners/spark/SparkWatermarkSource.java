package io.streamrecon.runners.spark;

import io.streamrecon.transforms.WatermarkSource;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.beam.runners.spark.SparkPipelineOptions;
import org.apache.beam.runners.spark.SparkRunner;
import org.apache.beam.runners.spark.util.GlobalWatermarkHolder;
import org.apache.beam.runners.spark.util.GlobalWatermarkHolder.SparkWatermarks;
import org.apache.beam.sdk.options.PipelineOptions;
import org.joda.time.Instant;

/**
 * The input watermark of Beam's classic SparkRunner in streaming mode, as its windowed GroupByKey
 * sees it: {@link GlobalWatermarkHolder} holds, per unbounded source, the watermarks of the last
 * completed micro-batch (the driver advances it when a batch completes and publishes it to the
 * executors as a block that they fetch and cache for half a batch interval). This returns the
 * earliest of the sources' high watermarks: the watermark at the end of the last completed batch's
 * read, so never ahead of a record not yet processed (records read later come in later batches).
 * Before the first batch completed it returns {@code null}.
 */
final class SparkWatermarkSource implements WatermarkSource {
  private static final long serialVersionUID = 1L;

  private final long batchIntervalMillis;
  private final String job = UUID.randomUUID().toString();

  SparkWatermarkSource(long batchIntervalMillis) {
    if (batchIntervalMillis < 1) {
      throw new IllegalArgumentException(
          "batchIntervalMillis must be >= 1, got " + batchIntervalMillis);
    }
    this.batchIntervalMillis = batchIntervalMillis;
  }

  @Override
  public Instant inputWatermark() {
    return earliestHigh(
        GlobalWatermarkHolder.get(batchIntervalMillis),
        SEEN.computeIfAbsent(job, k -> new ConcurrentHashMap<>()));
  }

  /**
   * The latest high watermark this JVM saw per source id. The holder's map lists only the sources
   * that reported for the batch it advanced on; a source missing from one reading keeps its last
   * watermark here instead of dropping out of the minimum (which could only move it ahead). Kept
   * per job (a random id serialized with the pipeline, so a restored job keeps it): source ids are
   * only unique within one streaming context, and a JVM may run several one after another.
   */
  private static final Map<String, Map<Integer, Instant>> SEEN = new ConcurrentHashMap<>();

  /**
   * The earliest high watermark among the sources in {@code watermarks} and in {@code seen}
   * (updated with them), or {@code null} if there is none.
   */
  static Instant earliestHigh(
      Map<Integer, SparkWatermarks> watermarks, Map<Integer, Instant> seen) {
    if (watermarks != null) {
      for (Map.Entry<Integer, SparkWatermarks> e : watermarks.entrySet()) {
        seen.merge(e.getKey(), e.getValue().getHighWatermark(), (a, b) -> a.isAfter(b) ? a : b);
      }
    }
    Instant earliest = null;
    for (Instant w : seen.values()) {
      if (earliest == null || w.isBefore(earliest)) {
        earliest = w;
      }
    }
    return earliest;
  }

  /** Registered in {@code META-INF/services}: the watermark source of a SparkRunner run. */
  public static final class Provider implements WatermarkSource.Provider {
    @Override
    public Optional<WatermarkSource> forOptions(PipelineOptions options) {
      if (options.getRunner() == null || !SparkRunner.class.isAssignableFrom(options.getRunner())) {
        return Optional.empty();
      }
      long interval = options.as(SparkPipelineOptions.class).getBatchIntervalMillis();
      return Optional.of(new SparkWatermarkSource(interval));
    }
  }
}
