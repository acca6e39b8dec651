package io.streamrecon.transforms;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;

import io.streamrecon.model.EventRef;
import io.streamrecon.model.Pointer;
import io.streamrecon.model.Side;
import java.util.HashMap;
import java.util.Map;
import org.apache.beam.runners.core.StateNamespaces;
import org.apache.beam.runners.core.StateTags;
import org.apache.beam.runners.spark.stateful.SparkStateInternals;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.state.MapState;
import org.apache.beam.sdk.state.ValueState;
import org.joda.time.Instant;
import org.junit.Test;

/**
 * The Spark streaming pairing holds a bucket's entries and expiry index each as one value
 * ({@link BucketMap#loaded}), coded as Spark codes a map state of the same coders, so that the
 * state's layout and the sizes measured for it stay those of the map state. Checked on Beam's own
 * {@link SparkStateInternals}: each form reads what the other wrote, byte for byte.
 */
public class SparkPairingStateTest {
  private static final String SHA = "ab".repeat(32);
  private static final String FILE =
      "side=SOURCE/event_date=2026-12-02/part-00000-0f8e3c1a-5b7d-4e2f-9a6c-1d2e3f405162.parquet";

  private static PairingEntry entry(int i) {
    Instant t0 = Instant.parse("2026-12-02T10:00:00Z").plus(i * 1000L);
    String id = "ord-" + i;
    EventRef source =
        new EventRef(Side.SOURCE, id, t0, SHA, new Pointer(3, FILE, i, Side.SOURCE, id, SHA));
    return new PairingEntry(t0, t0.plus(600_000), source, null);
  }

  @Test
  public void entriesWrittenAsMapStateReadAsOneValueAndBack() {
    SparkStateInternals<Integer> internals = SparkStateInternals.forKey(7);
    MapState<String, PairingEntry> asMap =
        internals.state(
            StateNamespaces.global(),
            StateTags.map(
                PairEventsFn.ENTRIES_STATE, StringUtf8Coder.of(), PairingEntryCoder.of()));
    for (int i = 0; i < 5; i++) {
      asMap.put("ord-" + i, entry(i));
    }
    byte[] written = internals.getState().get(StateNamespaces.global().stringKey(), "entries");

    ValueState<Map<String, PairingEntry>> whole =
        internals.state(
            StateNamespaces.global(),
            StateTags.tagForSpec(
                PairEventsFn.ENTRIES_STATE,
                BucketMap.loadedSpec(StringUtf8Coder.of(), PairingEntryCoder.of())));
    BucketMap<String, PairingEntry> loaded = BucketMap.loaded(whole);
    for (int i = 0; i < 5; i++) {
      PairingEntry read = loaded.get("ord-" + i);
      assertNotNull("ord-" + i, read);
      assertEquals(entry(i), read.forKey("ord-" + i));
    }

    // Written back unchanged, the bytes are the map state's.
    loaded.put("ord-0", loaded.get("ord-0"));
    loaded.flush();
    assertArrayEquals(
        written, internals.getState().get(StateNamespaces.global().stringKey(), "entries"));

    // A change made through the value is seen by the map state.
    loaded.remove("ord-1");
    loaded.put("ord-9", entry(9));
    loaded.flush();
    Map<String, PairingEntry> viaMap = new HashMap<>();
    asMap.entries().read().forEach(e -> viaMap.put(e.getKey(), e.getValue().forKey(e.getKey())));
    assertEquals(5, viaMap.size());
    assertEquals(entry(9), viaMap.get("ord-9"));
    assertEquals(null, viaMap.get("ord-1"));
  }

  @Test
  public void indexWrittenAsMapStateReadAsOneValue() {
    SparkStateInternals<Integer> internals = SparkStateInternals.forKey(7);
    MapState<Long, ExpirySlot> asMap =
        internals.state(
            StateNamespaces.global(),
            StateTags.map(PairEventsFn.SLOTS_STATE, VarLongCoder.of(), ExpirySlotCoder.of()));
    ExpirySlot slot = ExpirySlot.EMPTY.with("ord-1", Instant.ofEpochMilli(1_000_123));
    asMap.put(42L, slot);
    BucketMap<Long, ExpirySlot> loaded =
        BucketMap.loaded(
            internals.state(
                StateNamespaces.global(),
                StateTags.tagForSpec(
                    PairEventsFn.SLOTS_STATE,
                    BucketMap.loadedSpec(VarLongCoder.of(), ExpirySlotCoder.of()))));
    assertEquals(slot, loaded.get(42L));

    // Emptied, the value clears its state: the map state reads no entry.
    loaded.remove(42L);
    loaded.flush();
    assertEquals(false, asMap.entries().read().iterator().hasNext());
  }
}
