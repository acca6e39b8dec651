package io.streamrecon.model;

/** How one JSON path differs between the source and the target payload. */
public enum DifferenceKind {
  CHANGED,
  ONLY_IN_SOURCE,
  ONLY_IN_TARGET
}
