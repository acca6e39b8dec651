package io.streamrecon.model;

import java.util.Arrays;
import java.util.Objects;

/**
 * A payload read back from {@code raw_events} for the pointer that located it; {@code payload} is
 * {@code null} when the row was deleted from the table (docs/design.md#erasure).
 */
public record StoredPayload(Pointer pointer, byte[] payload) {
  public StoredPayload {
    Objects.requireNonNull(pointer, "pointer");
    if (payload != null && payload.length == 0) {
      throw new IllegalArgumentException("payload must not be empty; null for deleted");
    }
  }

  /** Whether the row was deleted from the table. */
  public boolean deleted() {
    return payload == null;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof StoredPayload p
        && pointer.equals(p.pointer)
        && Arrays.equals(payload, p.payload);
  }

  @Override
  public int hashCode() {
    return Objects.hash(pointer, Arrays.hashCode(payload));
  }

  @Override
  public String toString() {
    return "StoredPayload["
        + pointer.describe()
        + (payload == null ? " deleted]" : " " + payload.length + " bytes]");
  }
}
