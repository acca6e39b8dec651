package io.streamrecon.model;

import java.util.Arrays;
import java.util.Objects;

/**
 * A MISMATCH verdict with both payloads fetched from {@code raw_events}, ready to be diffed. A
 * payload is {@code null} when its row was deleted from the table (docs/design.md#erasure): the
 * verdict is then written without a diff.
 */
public record PayloadPair(Verdict verdict, byte[] sourcePayload, byte[] targetPayload) {
  public PayloadPair {
    Objects.requireNonNull(verdict, "verdict");
    if (sourcePayload != null && sourcePayload.length == 0) {
      throw new IllegalArgumentException("sourcePayload must not be empty; null for deleted");
    }
    if (targetPayload != null && targetPayload.length == 0) {
      throw new IllegalArgumentException("targetPayload must not be empty; null for deleted");
    }
  }

  /** Whether either payload was deleted from the table. */
  public boolean payloadDeleted() {
    return sourcePayload == null || targetPayload == null;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PayloadPair p
        && verdict.equals(p.verdict)
        && Arrays.equals(sourcePayload, p.sourcePayload)
        && Arrays.equals(targetPayload, p.targetPayload);
  }

  @Override
  public int hashCode() {
    return Objects.hash(verdict, Arrays.hashCode(sourcePayload), Arrays.hashCode(targetPayload));
  }

  @Override
  public String toString() {
    return "PayloadPair[" + verdict.naturalId() + " " + verdict.status() + "]";
  }
}
