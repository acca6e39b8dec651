package io.streamrecon.model;

import java.util.Arrays;
import java.util.Objects;
import org.joda.time.Instant;

/**
 * An input that failed: the raw bytes as received, a readable error, the stage that failed (for
 * example {@code ParseEvents}), where it came from and when it failed.
 */
public record DeadLetter(
    Side side, byte[] raw, String error, String stage, Origin origin, Instant failedAt) {
  public DeadLetter {
    Objects.requireNonNull(side, "side");
    Objects.requireNonNull(raw, "raw");
    Objects.requireNonNull(error, "error");
    Objects.requireNonNull(stage, "stage");
    Objects.requireNonNull(origin, "origin");
    Objects.requireNonNull(failedAt, "failedAt");
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof DeadLetter d
        && side == d.side
        && Arrays.equals(raw, d.raw)
        && error.equals(d.error)
        && stage.equals(d.stage)
        && origin.equals(d.origin)
        && failedAt.equals(d.failedAt);
  }

  @Override
  public int hashCode() {
    return Objects.hash(side, Arrays.hashCode(raw), error, stage, origin, failedAt);
  }

  @Override
  public String toString() {
    return "DeadLetter[" + side + " " + origin.describe() + " " + stage + ": " + error + "]";
  }
}
