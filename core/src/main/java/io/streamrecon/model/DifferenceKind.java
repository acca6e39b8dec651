package io.streamrecon.model;

/**
 * How one JSON path differs between the source and the target payload, or, with path {@code ""}
 * (the whole document) and no values, that a side's payload was deleted from {@code raw_events}
 * before the verdict could be diffed (docs/design.md#deltarecord).
 */
public enum DifferenceKind {
  CHANGED,
  ONLY_IN_SOURCE,
  ONLY_IN_TARGET,
  // Appended: coders write the ordinal, and state written before holds the three above.
  SOURCE_PAYLOAD_DELETED,
  TARGET_PAYLOAD_DELETED
}
