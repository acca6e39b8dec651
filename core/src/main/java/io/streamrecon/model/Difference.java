package io.streamrecon.model;

import java.util.Objects;

/**
 * One difference between two payloads: a JSON Pointer path, its kind, and the JSON text of the
 * value on each side ({@code null} where the side has no value at that path).
 */
public record Difference(String path, DifferenceKind kind, String source, String target) {
  public Difference {
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(kind, "kind");
  }
}
