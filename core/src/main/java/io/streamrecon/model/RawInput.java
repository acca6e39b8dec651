package io.streamrecon.model;

import java.util.Arrays;
import java.util.Objects;
import org.joda.time.Instant;

/**
 * One input record before parsing: the raw bytes of a Kafka record value or of a JSON Lines line,
 * with its side, origin and the record's own timestamp (Kafka record time, or file read time).
 */
public record RawInput(Side side, byte[] bytes, Origin origin, Instant recordTime) {
  public RawInput {
    Objects.requireNonNull(side, "side");
    Objects.requireNonNull(bytes, "bytes");
    Objects.requireNonNull(origin, "origin");
    Objects.requireNonNull(recordTime, "recordTime");
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RawInput r
        && side == r.side
        && Arrays.equals(bytes, r.bytes)
        && origin.equals(r.origin)
        && recordTime.equals(r.recordTime);
  }

  @Override
  public int hashCode() {
    return Objects.hash(side, Arrays.hashCode(bytes), origin, recordTime);
  }

  @Override
  public String toString() {
    return "RawInput[" + side + " " + origin.describe() + " " + bytes.length + " bytes]";
  }
}
