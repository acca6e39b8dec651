package io.streamrecon.json;

/**
 * An input that cannot become an event: not UTF-8, not one JSON object, over a limit, or without a
 * usable natural id or event time. The message is meant for the {@code dead_letters} table: it
 * names the rule and the JSON Pointer involved but never quotes the payload, so that dead letters
 * and logs do not copy business data around. For the same reason no parser exception is attached as
 * cause: Jackson's messages may quote input fragments.
 */
public class InvalidEventException extends Exception {
  private static final long serialVersionUID = 1L;

  public InvalidEventException(String message) {
    super(message);
  }
}
