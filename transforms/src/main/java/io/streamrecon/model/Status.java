package io.streamrecon.model;

/** The outcome of reconciling one natural id (SPEC §5). */
public enum Status {
  MATCH,
  MISMATCH,
  MISSING_IN_TARGET,
  MISSING_IN_SOURCE
}
