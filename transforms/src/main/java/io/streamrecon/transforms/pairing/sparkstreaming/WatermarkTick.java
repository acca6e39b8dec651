package io.streamrecon.transforms.pairing.sparkstreaming;

import io.streamrecon.transforms.WatermarkSource;
import io.streamrecon.transforms.ZigZag;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Objects;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.joda.time.Instant;

/**
 * A non-empty bucket's poll, with expiry by a {@link WatermarkSource}: the processing time its one
 * live timer is set for ({@code target}, so that any other firing is recognised as stale) and the
 * latest watermark the bucket has seen ({@code watermark}, so that an older reading, e.g. from a
 * worker whose copy of the runner's watermark is behind, never moves it back).
 */
public record WatermarkTick(Instant target, Instant watermark) {

  public WatermarkTick {
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(watermark, "watermark");
  }

  /** State coder: both instants as zig-zag varint millis. */
  public static final class Coder extends AtomicCoder<WatermarkTick> {
    private static final Coder INSTANCE = new Coder();

    /** The one instance. */
    public static Coder of() {
      return INSTANCE;
    }

    private Coder() {}

    @Override
    public void encode(WatermarkTick value, OutputStream out) throws IOException {
      ZigZag.write(value.target().getMillis(), out);
      ZigZag.write(value.watermark().getMillis(), out);
    }

    @Override
    public WatermarkTick decode(InputStream in) throws IOException {
      long target = ZigZag.read(in);
      long watermark = ZigZag.read(in);
      return new WatermarkTick(Instant.ofEpochMilli(target), Instant.ofEpochMilli(watermark));
    }

    @Override
    public void verifyDeterministic() {}
  }
}
