package io.streamrecon.json;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

import java.nio.charset.StandardCharsets;
import org.joda.time.Instant;
import org.junit.Test;

public class EventTimeExtractorTest {
  private static Instant extract(String pointer, String json) {
    return new EventTimeExtractor(pointer).extract(json.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  public void readsIsoWithOffsetAndEpochMillis() {
    assertEquals(
        Instant.parse("2024-01-01T10:00:00Z"),
        extract("/eventTime", "{\"id\":1,\"eventTime\":\"2024-01-01T12:00:00+02:00\"}"));
    assertEquals(
        Instant.ofEpochMilli(1_700_000_000_123L),
        extract("/eventTime", "{\"eventTime\":1700000000123,\"id\":1}"));
  }

  @Test
  public void walksNestedObjectsAndArraysSkippingSiblings() {
    String json =
        "{\"a\":{\"x\":[1,{\"t\":5}],\"t\":\"no\"},\"meta\":{\"skip\":{\"t\":1},"
            + "\"times\":[0,{\"t\":\"2024-05-01T00:00:00Z\"}]}}";
    assertEquals(Instant.parse("2024-05-01T00:00:00Z"), extract("/meta/times/1/t", json));
    assertEquals(Instant.ofEpochMilli(5), extract("/a/x/1/t", json));
  }

  @Test
  public void unusableTimesGiveNull() {
    assertNull(extract("/eventTime", "{\"eventTime\":\"yesterday\"}"));
    assertNull(extract("/eventTime", "{\"eventTime\":\"2024-01-01T00:00:00\"}")); // no offset
    assertNull(extract("/eventTime", "{\"other\":1}"));
    assertNull(extract("/eventTime", "{\"eventTime\":null}"));
    assertNull(extract("/eventTime", "not json"));
    assertNull(extract("/eventTime", "{\"eventTime\":"));
    assertNull(extract("/eventTime", "[1,2]"));
    assertNull(new EventTimeExtractor("/eventTime").extract(new byte[0]));
  }

  @Test
  public void acceptsTheTimesTheParserAcceptsAndNoOthers() {
    // The parser's other offset forms and an integral number written with a fraction part.
    assertEquals(
        Instant.parse("2024-01-01T10:00:00Z"),
        extract("/t", "{\"t\":\"2024-01-01T12:00:00+0200\"}"));
    assertEquals(
        Instant.parse("2024-01-01T10:00:00Z"), extract("/t", "{\"t\":\"2024-01-01T12:00:00+02\"}"));
    assertEquals(
        Instant.ofEpochMilli(1_700_000_000_123L), extract("/t", "{\"t\":1700000000123.0}"));
    // Outside years 0001..9999 the parser refuses the event, so it gives no time either.
    assertNull(extract("/t", "{\"t\":\"0000-12-31T23:59:59Z\"}"));
    assertNull(extract("/t", "{\"t\":" + (EventTimes.MAX_MILLIS + 1) + "}"));
    assertEquals(
        Instant.ofEpochMilli(EventTimes.MAX_MILLIS),
        extract("/t", "{\"t\":\"9999-12-31T23:59:59.999Z\"}"));
    assertNull(extract("/t", "{\"t\":1.5}"));
  }
}
