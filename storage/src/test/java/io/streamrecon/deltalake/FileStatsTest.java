package io.streamrecon.deltalake;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.lessThan;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamrecon.model.Event;
import io.streamrecon.model.Origin;
import io.streamrecon.model.Side;
import java.nio.charset.StandardCharsets;
import org.joda.time.Instant;
import org.junit.Test;

public class FileStatsTest {

  private static final String EMOJI = new String(Character.toChars(0x1F600));

  @Test
  public void shortStringsAreExactBounds() {
    assertEquals("abc", FileStats.truncatedMin("abc"));
    assertEquals("abc", FileStats.truncatedMax("abc"));
    String exactly32 = "x".repeat(32);
    assertEquals(exactly32, FileStats.truncatedMax(exactly32));
  }

  @Test
  public void longStringsAreCutToAValidPrefixBound() {
    String value = "k".repeat(31) + EMOJI + "tail";
    String min = FileStats.truncatedMin(value);
    String max = FileStats.truncatedMax(value);
    assertEquals(32, min.codePointCount(0, min.length()));
    assertEquals("k".repeat(31) + EMOJI, min);
    assertThat(FileStats.compareCodePoints(min, value), lessThan(0));
    assertThat(FileStats.compareCodePoints(max, value), greaterThan(0));
    // Never cut inside a surrogate pair.
    assertTrue(Character.isHighSurrogate(min.charAt(min.length() - 2)));
  }

  @Test
  public void noMaxWhenTheCutOffPartStartsWithTheLargestCodePoint() {
    String value = "a".repeat(32) + new String(Character.toChars(Character.MAX_CODE_POINT)) + "z";
    assertNull(FileStats.truncatedMax(value));
  }

  @Test
  public void stringsCompareByCodePointLikeUtf8Bytes() {
    // UTF-16 puts U+FFFF after the surrogates of U+1F600; UTF-8 bytes and code points do not.
    assertThat("\uFFFF".compareTo(EMOJI), greaterThan(0));
    assertThat(FileStats.compareCodePoints("\uFFFF", EMOJI), lessThan(0));
    byte[] a = "\uFFFF".getBytes(StandardCharsets.UTF_8);
    byte[] b = EMOJI.getBytes(StandardCharsets.UTF_8);
    assertThat(Integer.compare(a[0] & 0xff, b[0] & 0xff), lessThan(0));
    assertEquals(0, FileStats.compareCodePoints("same", "same"));
    assertThat(FileStats.compareCodePoints("ab", "abc"), lessThan(0));
  }

  @Test
  public void statsJsonHasProtocolShapeWithMillisecondUtcTimestamps() throws Exception {
    FileStats stats = new FileStats(TableLayouts.RAW_EVENTS);
    RowContext context = new RowContext("run-1", Instant.parse("2024-03-02T00:00:00.000Z"));
    Event kafka =
        TestEvents.event(Side.SOURCE, "id-b", Instant.parse("2024-03-01T10:00:00.123Z"), "{}");
    Event file =
        new Event(
            Side.SOURCE,
            "id-a",
            Instant.parse("2024-03-01T23:59:59.999Z"),
            kafka.sha256(),
            kafka.payload(),
            Origin.fileLine("in.jsonl", 7));
    stats.add(kafka, context);
    stats.add(file, context);

    JsonNode json = FileStats.JSON.readTree(stats.toJson());
    assertEquals(2, json.get("numRecords").asLong());
    assertEquals("id-a", json.get("minValues").get("natural_id").asText());
    assertEquals("id-b", json.get("maxValues").get("natural_id").asText());
    assertEquals("2024-03-01T10:00:00.123Z", json.get("minValues").get("event_time").asText());
    assertEquals("2024-03-01T23:59:59.999Z", json.get("maxValues").get("event_time").asText());
    assertEquals(1, json.get("nullCount").get("origin_partition").asLong());
    assertEquals(0, json.get("nullCount").get("natural_id").asLong());
    assertFalse("no stats on the payload", json.get("minValues").has("payload"));
    assertFalse("partition columns have no stats", json.get("minValues").has("side"));
  }

  @Test
  public void mayContainUsesMinMaxAndNullCounts() {
    String stats =
        "{\"numRecords\":3,\"minValues\":{\"natural_id\":\"b\"},\"maxValues\":{\"natural_id\":\"d\"},"
            + "\"nullCount\":{\"natural_id\":0}}";
    assertTrue(FileStats.mayContain(stats, "natural_id", "b"));
    assertTrue(FileStats.mayContain(stats, "natural_id", "c9"));
    assertFalse(FileStats.mayContain(stats, "natural_id", "a"));
    assertFalse(FileStats.mayContain(stats, "natural_id", "e"));
    assertFalse(
        "an all-null column holds no value",
        FileStats.mayContain(
            "{\"numRecords\":2,\"nullCount\":{\"natural_id\":2}}", "natural_id", "x"));
    assertTrue("no stats: cannot skip", FileStats.mayContain(null, "natural_id", "x"));
    assertTrue(FileStats.mayContain("{\"numRecords\":2}", "natural_id", "x"));
  }
}
