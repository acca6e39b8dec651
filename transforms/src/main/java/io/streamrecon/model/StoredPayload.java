package io.streamrecon.model;

import java.util.Arrays;
import java.util.Objects;

/** A payload read back from {@code raw_events} for the pointer that located it. */
public record StoredPayload(Pointer pointer, byte[] payload) {
  public StoredPayload {
    Objects.requireNonNull(pointer, "pointer");
    Objects.requireNonNull(payload, "payload");
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
    return "StoredPayload[" + pointer.describe() + " " + payload.length + " bytes]";
  }
}
