package io.streamrecon.model;

import java.util.Arrays;
import java.util.Objects;
import org.joda.time.Instant;

/**
 * A parsed event: its side, natural id, event time, canonical SHA-256 (lower-case hex) and the
 * payload exactly as received (UTF-8 JSON bytes).
 */
public record Event(
    Side side, String naturalId, Instant eventTime, String sha256, byte[] payload, Origin origin) {
  public Event {
    Objects.requireNonNull(side, "side");
    Objects.requireNonNull(naturalId, "naturalId");
    Objects.requireNonNull(eventTime, "eventTime");
    Objects.requireNonNull(sha256, "sha256");
    Objects.requireNonNull(payload, "payload");
    Objects.requireNonNull(origin, "origin");
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Event e
        && side == e.side
        && naturalId.equals(e.naturalId)
        && eventTime.equals(e.eventTime)
        && sha256.equals(e.sha256)
        && Arrays.equals(payload, e.payload)
        && origin.equals(e.origin);
  }

  @Override
  public int hashCode() {
    return Objects.hash(side, naturalId, eventTime, sha256, Arrays.hashCode(payload), origin);
  }

  @Override
  public String toString() {
    return "Event["
        + side
        + " "
        + naturalId
        + " "
        + eventTime
        + " "
        + sha256.substring(0, 12)
        + "]";
  }
}
