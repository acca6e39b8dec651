package io.streamrecon.model;

import java.util.Objects;
import org.joda.time.Instant;

/**
 * An event that arrived later than the watermark by more than the allowed lateness
 * (docs/design.md#pairing): the stored event and the input watermark seen when it arrived.
 */
public record LateEvent(EventRef event, Instant watermark) {
  public LateEvent {
    Objects.requireNonNull(event, "event");
    Objects.requireNonNull(watermark, "watermark");
  }
}
