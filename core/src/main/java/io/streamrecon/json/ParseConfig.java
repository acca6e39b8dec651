package io.streamrecon.json;

import java.io.Serializable;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * How raw input becomes an event (docs/design.md#events-and-natural-ids). Immutable; every setting
 * is validated when set, and the message names the setting and what it accepts.
 *
 * @param keyFields one or more JSON Pointers whose values form the natural id
 * @param timeField JSON Pointer of the event time, or {@code ""} to use the record's own time
 * @param ignoreFields JSON Pointers removed before hashing and diffing
 * @param maxEventBytes largest event accepted, in bytes of the raw input
 */
public record ParseConfig(
    List<String> keyFields, String timeField, List<String> ignoreFields, int maxEventBytes)
    implements Serializable {

  /** The natural id is the top-level {@code id} field unless configured otherwise. */
  public static final String DEFAULT_KEY_FIELD = "/id";

  /** {@link #DEFAULT_KEY_FIELD} as the list of key fields. */
  public static final List<String> DEFAULT_KEY_FIELDS = List.of(DEFAULT_KEY_FIELD);

  /** The event time is the top-level {@code eventTime} field unless configured otherwise. */
  public static final String DEFAULT_TIME_FIELD = "/eventTime";

  /** 4 MiB: far above business events, far below what would strain a worker or a Parquet page. */
  public static final int DEFAULT_MAX_EVENT_BYTES = 4 << 20;

  /** 64 MiB: the largest {@code maxEventBytes} accepted. */
  public static final int MAX_EVENT_BYTES_LIMIT = 64 << 20;

  public ParseConfig {
    Objects.requireNonNull(keyFields, "keyFields must not be null");
    if (keyFields.isEmpty()) {
      throw new IllegalArgumentException("keyFields must name at least one JSON Pointer, e.g. /id");
    }
    Set<String> seen = new HashSet<>();
    for (String field : keyFields) {
      JsonSupport.pointer("keyFields", field);
      if (!seen.add(field)) {
        throw new IllegalArgumentException("keyFields: " + field + " is given twice");
      }
    }
    keyFields = List.copyOf(keyFields);
    if (timeField == null) {
      throw new IllegalArgumentException(
          "timeField must not be null; use \"\" to take the record's own timestamp");
    }
    if (!timeField.isEmpty()) {
      JsonSupport.pointer("timeField", timeField);
    }
    Objects.requireNonNull(ignoreFields, "ignoreFields must not be null");
    for (String field : ignoreFields) {
      JsonSupport.pointer("ignoreFields", field);
    }
    ignoreFields = List.copyOf(ignoreFields);
    if (maxEventBytes < 1 || maxEventBytes > MAX_EVENT_BYTES_LIMIT) {
      throw new IllegalArgumentException(
          "maxEventBytes must be between 1 and "
              + MAX_EVENT_BYTES_LIMIT
              + " (64 MiB), got "
              + maxEventBytes);
    }
  }

  /** Key {@code /id}, time {@code /eventTime}, nothing ignored, 4 MiB per event. */
  public static ParseConfig defaults() {
    return new ParseConfig(
        DEFAULT_KEY_FIELDS, DEFAULT_TIME_FIELD, List.of(), DEFAULT_MAX_EVENT_BYTES);
  }

  public ParseConfig withKeyFields(List<String> keyFields) {
    return new ParseConfig(keyFields, timeField, ignoreFields, maxEventBytes);
  }

  public ParseConfig withTimeField(String timeField) {
    return new ParseConfig(keyFields, timeField, ignoreFields, maxEventBytes);
  }

  public ParseConfig withIgnoreFields(List<String> ignoreFields) {
    return new ParseConfig(keyFields, timeField, ignoreFields, maxEventBytes);
  }

  public ParseConfig withMaxEventBytes(int maxEventBytes) {
    return new ParseConfig(keyFields, timeField, ignoreFields, maxEventBytes);
  }
}
