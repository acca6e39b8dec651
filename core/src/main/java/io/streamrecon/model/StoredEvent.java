package io.streamrecon.model;

import java.util.Arrays;
import java.util.Objects;

/**
 * An event read back from {@code raw_events}: its metadata and {@link Pointer} as stored (the hash
 * the storing run computed), the payload as received, where it came from and the run that stored
 * it.
 */
public record StoredEvent(EventRef ref, byte[] payload, Origin origin, String runId) {
  public StoredEvent {
    Objects.requireNonNull(ref, "ref");
    Objects.requireNonNull(payload, "payload");
    Objects.requireNonNull(origin, "origin");
    Objects.requireNonNull(runId, "runId");
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof StoredEvent e
        && ref.equals(e.ref)
        && Arrays.equals(payload, e.payload)
        && origin.equals(e.origin)
        && runId.equals(e.runId);
  }

  @Override
  public int hashCode() {
    return Objects.hash(ref, Arrays.hashCode(payload), origin, runId);
  }

  @Override
  public String toString() {
    return "StoredEvent[" + ref.pointer().describe() + " " + ref.naturalId() + " " + runId + "]";
  }
}
