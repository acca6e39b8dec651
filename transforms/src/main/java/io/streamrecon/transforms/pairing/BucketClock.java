package io.streamrecon.transforms.pairing;

import io.streamrecon.transforms.ZigZag;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Objects;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.joda.time.Instant;

/**
 * A bucket's expiry clock: where its one expiry timer is set ({@code target}, the earliest due of
 * its entries or earlier), the output timestamp the timer holds ({@code hold}), and the last slot
 * of the index that may hold an id ({@code lastSlot}), so that a firing can walk from the timer's
 * slot to the next live one without a sorted list of slots. Absent while the bucket is empty.
 */
record BucketClock(Instant target, Instant hold, long lastSlot) {

  BucketClock {
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(hold, "hold");
  }

  /** The index slot of {@code due} for a grain of {@code grainMillis}. */
  static long slotOf(Instant due, long grainMillis) {
    return Math.floorDiv(due.getMillis(), grainMillis);
  }

  /** State coder: target as zig-zag varint millis, hold and last slot as offsets from it. */
  static final class Coder extends AtomicCoder<BucketClock> {
    private static final Coder INSTANCE = new Coder();

    static Coder of() {
      return INSTANCE;
    }

    private Coder() {}

    @Override
    public void encode(BucketClock value, OutputStream out) throws IOException {
      long target = value.target().getMillis();
      ZigZag.write(target, out);
      ZigZag.write(value.hold().getMillis() - target, out);
      ZigZag.write(value.lastSlot(), out);
    }

    @Override
    public BucketClock decode(InputStream in) throws IOException {
      long target = ZigZag.read(in);
      long hold = target + ZigZag.read(in);
      long lastSlot = ZigZag.read(in);
      return new BucketClock(Instant.ofEpochMilli(target), Instant.ofEpochMilli(hold), lastSlot);
    }

    @Override
    public void verifyDeterministic() {}
  }
}
