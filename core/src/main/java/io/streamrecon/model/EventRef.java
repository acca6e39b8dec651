package io.streamrecon.model;

import java.util.Objects;
import org.joda.time.Instant;

/**
 * The metadata of a stored event, all that pairing needs: side, natural id, event time, hash and
 * the {@link Pointer} to its payload. Never the payload itself.
 */
public record EventRef(
    Side side, String naturalId, Instant eventTime, String sha256, Pointer pointer) {
  public EventRef {
    Objects.requireNonNull(side, "side");
    Objects.requireNonNull(naturalId, "naturalId");
    Objects.requireNonNull(eventTime, "eventTime");
    Objects.requireNonNull(sha256, "sha256");
    Objects.requireNonNull(pointer, "pointer");
  }
}
