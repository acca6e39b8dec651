package io.streamrecon.model;

/** Which of the two reconciled streams an event came from. */
public enum Side {
  SOURCE,
  TARGET;

  /** The other stream. */
  public Side other() {
    return this == SOURCE ? TARGET : SOURCE;
  }
}
