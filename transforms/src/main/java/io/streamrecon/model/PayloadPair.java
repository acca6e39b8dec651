package io.streamrecon.model;

import java.util.Arrays;
import java.util.Objects;

/** A MISMATCH verdict with both payloads fetched from {@code raw_events}, ready to be diffed. */
public record PayloadPair(Verdict verdict, byte[] sourcePayload, byte[] targetPayload) {
  public PayloadPair {
    Objects.requireNonNull(verdict, "verdict");
    Objects.requireNonNull(sourcePayload, "sourcePayload");
    Objects.requireNonNull(targetPayload, "targetPayload");
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
