package io.streamrecon.deltalake;

import io.streamrecon.model.Event;
import io.streamrecon.model.Origin;
import io.streamrecon.model.Side;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.joda.time.Instant;

/** Test events with distinct ids, payloads and hashes. */
public final class TestEvents {
  private TestEvents() {}

  public static final Instant T0 = Instant.parse("2024-03-01T10:00:00.000Z");

  /** Every test event is its own Kafka record: writers store a record once however often sent. */
  private static final AtomicLong NEXT_OFFSET = new AtomicLong();

  public static Event event(Side side, String naturalId, Instant eventTime, String payloadJson) {
    byte[] payload = payloadJson.getBytes(StandardCharsets.UTF_8);
    return new Event(
        side,
        naturalId,
        eventTime,
        sha256(payload),
        payload,
        Origin.kafka("topic-" + side, 0, NEXT_OFFSET.getAndIncrement()));
  }

  /** {@code count} events {@code prefix-00000}... one second apart from {@code start}. */
  public static List<Event> events(Side side, String prefix, int count, Instant start) {
    List<Event> events = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      String id = String.format("%s-%05d", prefix, i);
      events.add(
          event(
              side,
              id,
              start.plus(i * 1000L),
              "{\"id\":\"" + id + "\",\"n\":" + i + ",\"side\":\"" + side + "\"}"));
    }
    return events;
  }

  static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
