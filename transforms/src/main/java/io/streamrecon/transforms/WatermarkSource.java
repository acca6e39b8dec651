package io.streamrecon.transforms;

import java.io.Serializable;
import java.util.Optional;
import java.util.ServiceLoader;
import org.apache.beam.sdk.options.PipelineOptions;
import org.joda.time.Instant;

/**
 * The input watermark of a runner that tracks it but gives stateful DoFns no event-time timers
 * (Beam's classic SparkRunner in streaming mode). {@link
 * io.streamrecon.transforms.pairing.PairEvents#withWatermarkSource} then expires entries by the
 * watermark this returns, read on every call of the pairing.
 *
 * <p>An implementation is serialized with the pipeline and called on the workers. It must never
 * return a watermark ahead of records not yet handed to the pairing; returning an older one only
 * delays expiry (the pairing never lets a bucket's watermark go back).
 */
public interface WatermarkSource extends Serializable {

  /** The current input watermark, or {@code null} while the runner has none yet. */
  Instant inputWatermark();

  /**
   * Makes a {@link WatermarkSource} for a runner. Runner modules register one in {@code
   * META-INF/services/io.streamrecon.transforms.WatermarkSource$Provider}.
   */
  interface Provider {
    /** The runner's watermark source for these options, or empty if the options are not its. */
    Optional<WatermarkSource> forOptions(PipelineOptions options);
  }

  /** The watermark source of the first registered provider that handles {@code options}. */
  static Optional<WatermarkSource> forRunner(PipelineOptions options) {
    for (Provider p : ServiceLoader.load(Provider.class, WatermarkSource.class.getClassLoader())) {
      Optional<WatermarkSource> source = p.forOptions(options);
      if (source.isPresent()) {
        return source;
      }
    }
    return Optional.empty();
  }
}
