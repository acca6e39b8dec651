package io.streamrecon.model;

/** The outcome of reconciling one natural id (docs/design.md#deltarecord). */
public enum Status {
  MATCH,
  MISMATCH,
  MISSING_IN_TARGET,
  MISSING_IN_SOURCE
}
