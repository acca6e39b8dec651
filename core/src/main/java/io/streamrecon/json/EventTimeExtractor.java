package io.streamrecon.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.Serializable;
import org.joda.time.Instant;

/**
 * Reads the event time at a JSON Pointer from a payload with a streaming parser, without building a
 * tree: the Kafka timestamp policy calls it once per record before the real parse. Accepts what the
 * parser accepts ({@link EventTimes}), so a record's watermark time is the time its event gets.
 */
public final class EventTimeExtractor implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final JsonFactory FACTORY = new JsonFactory();

  private final String pointer;
  private transient JsonPointer compiled;

  /**
   * @param pointer a JSON Pointer such as {@code /eventTime}
   */
  public EventTimeExtractor(String pointer) {
    this.pointer = pointer;
    this.compiled = JsonPointer.compile(pointer);
  }

  /** The event time, or {@code null} when the payload is not JSON or has no usable time there. */
  public Instant extract(byte[] payload) {
    if (payload == null || payload.length == 0) {
      return null;
    }
    if (compiled == null) {
      compiled = JsonPointer.compile(pointer);
    }
    try (JsonParser p = FACTORY.createParser(payload)) {
      JsonToken token = p.nextToken();
      JsonPointer rest = compiled;
      while (!rest.matches()) {
        if (!seek(p, token, rest)) {
          return null;
        }
        token = p.currentToken();
        rest = rest.tail();
      }
      return toInstant(p, token);
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** Moves the parser onto the value of the pointer's first segment; false when absent. */
  private static boolean seek(JsonParser p, JsonToken container, JsonPointer ptr)
      throws IOException {
    if (container == JsonToken.START_OBJECT) {
      String name = ptr.getMatchingProperty();
      for (JsonToken t = p.nextToken(); t == JsonToken.FIELD_NAME; t = p.nextToken()) {
        boolean hit = name.equals(p.currentName());
        p.nextToken();
        if (hit) {
          return true;
        }
        p.skipChildren();
      }
      return false;
    }
    if (container == JsonToken.START_ARRAY) {
      int index = ptr.getMatchingIndex();
      if (index < 0) {
        return false;
      }
      int i = 0;
      for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY && t != null; t = p.nextToken()) {
        if (i++ == index) {
          return true;
        }
        p.skipChildren();
      }
    }
    return false;
  }

  private static Instant toInstant(JsonParser p, JsonToken token) throws IOException {
    if (token == null) {
      return null;
    }
    Long millis =
        switch (token) {
          case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> EventTimes.numberMillis(p.getDecimalValue());
          case VALUE_STRING -> EventTimes.isoMillis(p.getText());
          default -> null;
        };
    return millis == null ? null : new Instant(millis);
  }
}
