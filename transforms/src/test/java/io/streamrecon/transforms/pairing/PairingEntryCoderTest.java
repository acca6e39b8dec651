package io.streamrecon.transforms.pairing;

import static io.streamrecon.transforms.pairing.PairFixtures.T0;
import static io.streamrecon.transforms.pairing.PairFixtures.TIMEOUT;
import static io.streamrecon.transforms.pairing.PairFixtures.hash;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.streamrecon.model.EventRef;
import io.streamrecon.model.Pointer;
import io.streamrecon.model.Side;
import java.nio.charset.StandardCharsets;
import org.apache.beam.sdk.coders.CoderException;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.util.CoderUtils;
import org.joda.time.Duration;
import org.junit.Test;

/**
 * The pairing state coder: round trip, and the state stays small (docs/design.md#pairing: metadata
 * only).
 */
public class PairingEntryCoderTest {
  /** 20 characters, a typical business key. */
  private static final String NATURAL_ID = "ORD-2026-11-29-00042";

  private static EventRef deltaLakeShaped(Side side, String hash, long row) {
    String file =
        "side="
            + side
            + "/event_date=2026-11-29/part-3f2a8c1e-6b4d-4e7a-9c21-0d5e8f7a1b2c.snappy.parquet";
    return new EventRef(
        side, NATURAL_ID, T0, hash, new Pointer(1234, file, row, side, NATURAL_ID, hash));
  }

  private static PairingEntry roundTrip(PairingEntry entry) throws CoderException {
    return CoderUtils.decodeFromByteArray(
        PairingEntryCoder.of(), CoderUtils.encodeToByteArray(PairingEntryCoder.of(), entry));
  }

  @Test
  public void roundTripsWithOneOrTwoKeptEventsOnceRebound() throws Exception {
    EventRef s = deltaLakeShaped(Side.SOURCE, hash("a"), 70_000);
    EventRef t = deltaLakeShaped(Side.TARGET, hash("b"), 3);
    PairingEntry one = PairingEntry.openedBy(s, T0.plus(TIMEOUT));
    PairingEntry two = one.with(t);
    PairingEntry processing = two.withTimerTarget(T0.minus(Duration.standardDays(400)));
    for (PairingEntry entry : new PairingEntry[] {one, two, processing}) {
      assertEquals(entry, roundTrip(entry).forKey(NATURAL_ID));
    }
    PairingEntry targetOnly = PairingEntry.openedBy(t, T0.plus(TIMEOUT));
    assertEquals(targetOnly, roundTrip(targetOnly).forKey(NATURAL_ID));
  }

  @Test
  public void naturalIdIsNotStored() throws Exception {
    EventRef s = deltaLakeShaped(Side.SOURCE, hash("a"), 7);
    PairingEntry entry = PairingEntry.openedBy(s, T0.plus(TIMEOUT));
    byte[] bytes = CoderUtils.encodeToByteArray(PairingEntryCoder.of(), entry);
    assertEquals(-1, indexOf(bytes, NATURAL_ID.getBytes(StandardCharsets.UTF_8)));
    assertEquals(PairingEntry.UNBOUND_ID, roundTrip(entry).source().naturalId());
  }

  /**
   * What one open entry costs in the bucketed layout: its map key (the natural id), its map value
   * (the entry) and its share of the expiry index (its id front-coded against its neighbour and its
   * due offset), measured as the growth of an index slot of sequential ids by one more id.
   */
  @Test
  public void stateOfAnOpenEntryIsAtMost100Bytes() throws Exception {
    EventRef s = deltaLakeShaped(Side.SOURCE, hash("payload"), 123_456);
    int entry =
        CoderUtils.encodeToByteArray(
                PairingEntryCoder.of(), PairingEntry.openedBy(s, T0.plus(TIMEOUT)))
            .length;
    // A map key is coded nested: a varint length, then the UTF-8 bytes.
    int key = CoderUtils.encodeToByteArray(StringUtf8Coder.of(), NATURAL_ID).length + 1;
    java.util.TreeMap<String, Long> dues = new java.util.TreeMap<>();
    for (int i = 0; i < 1000; i++) {
      dues.put(
          String.format("ORD-2026-11-29-%05d", i * 7 + 1), T0.plus(TIMEOUT).getMillis() + i * 37L);
    }
    int slot1000 = CoderUtils.encodeToByteArray(ExpirySlotCoder.of(), new ExpirySlot(dues)).length;
    assertTrue(dues.put(NATURAL_ID, T0.plus(TIMEOUT).getMillis() + 20_000) == null);
    int slot1001 = CoderUtils.encodeToByteArray(ExpirySlotCoder.of(), new ExpirySlot(dues)).length;
    int index = slot1001 - slot1000;
    int total = key + entry + index;
    System.out.printf(
        "state per open entry: key %d + entry %d + index %d = %d bytes%n",
        key, entry, index, total);
    assertEquals(69, entry);
    assertTrue("index share " + index, index <= 8);
    assertTrue("per open entry " + total + " bytes", total <= 100);
    // A random-looking id of the same length shares no prefix: the worst case for the index.
    int worstIndex = NATURAL_ID.length() + 1 + 1 + 3;
    assertTrue(key + entry + worstIndex <= 120);
  }

  @Test
  public void expirySlotRoundTripsAnyIds() throws Exception {
    java.util.TreeMap<String, Long> dues = new java.util.TreeMap<>();
    dues.put("", 5L);
    dues.put("a", -3L);
    dues.put("ab\uD83D\uDE00", Long.MAX_VALUE / 4);
    dues.put("abc", 7L);
    dues.put("\u00e9t\u00e9", 0L);
    ExpirySlot slot = new ExpirySlot(dues);
    assertEquals(
        slot,
        CoderUtils.decodeFromByteArray(
            ExpirySlotCoder.of(), CoderUtils.encodeToByteArray(ExpirySlotCoder.of(), slot)));
    BucketClock clock = new BucketClock(T0, T0.plus(TIMEOUT), 123_456_789L);
    assertEquals(
        clock,
        CoderUtils.decodeFromByteArray(
            BucketClock.Coder.of(), CoderUtils.encodeToByteArray(BucketClock.Coder.of(), clock)));
  }

  @Test
  public void shortHashesAndOtherFileNamesStillRoundTrip() throws Exception {
    EventRef s =
        new EventRef(
            Side.SOURCE, "k", T0, "h1", new Pointer(0, "f.parquet", 0, Side.SOURCE, "k", "h1"));
    PairingEntry entry = PairingEntry.openedBy(s, T0.plus(TIMEOUT));
    assertEquals(entry, roundTrip(entry).forKey("k"));
  }

  @Test
  public void rejectsCorruptFlags() {
    assertThrows(
        CoderException.class,
        () -> CoderUtils.decodeFromByteArray(PairingEntryCoder.of(), new byte[] {0, 0, 0}));
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
