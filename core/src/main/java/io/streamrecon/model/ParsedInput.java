package io.streamrecon.model;

/**
 * What parsing one input gave: an {@link Event} or, for input that cannot be one, a {@link
 * DeadLetter}; exactly one of the two is set.
 *
 * <p>It lets a bounded run carry both in one collection into the raw_events writer, which stores
 * the events and passes the dead letters on: the classic SparkRunner persists the whole output of a
 * ParDo with two consumed outputs, and with the events' payloads in it that persist cost more than
 * the parsing (bench/REPORT.md, "Parsed events straight into the writer").
 */
public record ParsedInput(Event event, DeadLetter deadLetter) {
  public ParsedInput {
    if ((event == null) == (deadLetter == null)) {
      throw new IllegalArgumentException(
          "a ParsedInput holds exactly one of an event and a dead letter, got "
              + (event == null ? "neither" : "both"));
    }
  }

  /** An input that parsed. */
  public static ParsedInput of(Event event) {
    return new ParsedInput(event, null);
  }

  /** An input that did not. */
  public static ParsedInput of(DeadLetter deadLetter) {
    return new ParsedInput(null, deadLetter);
  }

  /** Whether this is an event (else a dead letter). */
  public boolean parsed() {
    return event != null;
  }
}
