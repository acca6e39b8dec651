package io.streamrecon.transforms.pairing;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;

import io.streamrecon.model.EventRef;
import io.streamrecon.model.Pointer;
import io.streamrecon.model.Side;
import io.streamrecon.transforms.pairing.sparkstreaming.WholeMapCoder;
import java.util.Map;
import org.apache.beam.runners.core.StateNamespaces;
import org.apache.beam.runners.core.StateTags;
import org.apache.beam.runners.spark.stateful.SparkStateInternals;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.state.ValueState;
import org.apache.beam.vendor.guava.v32_1_2_jre.com.google.common.collect.HashBasedTable;
import org.apache.beam.vendor.guava.v32_1_2_jre.com.google.common.collect.Table;
import org.joda.time.Instant;
import org.junit.Test;

/**
 * The Spark streaming pairing holds a bucket's entries and expiry index each as one value ({@link
 * BucketMap#loaded}, coded by {@link WholeMapCoder}). Checked on Beam's own {@link
 * SparkStateInternals}: what a call writes reads back equal in the same JVM and in a fresh one (a
 * restored job), and an emptied map leaves no state.
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

  private static BucketMap<String, PairingEntry> entries(SparkStateInternals<Integer> internals) {
    ValueState<Map<String, PairingEntry>> whole =
        internals.state(
            StateNamespaces.global(),
            StateTags.tagForSpec(
                PairEventsFn.ENTRIES_STATE,
                BucketMap.loadedSpec(StringUtf8Coder.of(), PairingEntryCoder.of())));
    return BucketMap.loaded(whole);
  }

  private static void assertEntries(BucketMap<String, PairingEntry> loaded, int... ids) {
    for (int i : ids) {
      PairingEntry read = loaded.get("ord-" + i);
      assertNotNull("ord-" + i, read);
      assertEquals(entry(i), read.forKey("ord-" + i));
    }
  }

  @Test
  public void entriesReadBackInTheSameJvmAndAfterARestore() {
    SparkStateInternals<Integer> internals = SparkStateInternals.forKey(7);
    BucketMap<String, PairingEntry> first = entries(internals);
    for (int i = 0; i < 5; i++) {
      first.put("ord-" + i, entry(i));
    }
    first.flush();

    // The next call of the same micro-batch: replaces one entry, adds one.
    BucketMap<String, PairingEntry> second = entries(internals);
    assertEntries(second, 0, 1, 2, 3, 4);
    second.remove("ord-1");
    second.put("ord-9", entry(9));
    second.flush();
    assertEntries(entries(internals), 0, 2, 3, 4, 9);

    // A restored job: the checkpointed bytes only, in a JVM that never decoded them.
    Table<String, String, byte[]> checkpointed = HashBasedTable.create(internals.getState());
    WholeMapCoder.forgetKeptMaps();
    BucketMap<String, PairingEntry> restored =
        entries(SparkStateInternals.forKeyAndState(7, checkpointed));
    assertEntries(restored, 0, 2, 3, 4, 9);
    assertNull(restored.get("ord-1"));
  }

  @Test
  public void anEmptiedIndexLeavesNoState() {
    SparkStateInternals<Integer> internals = SparkStateInternals.forKey(7);
    BucketMap<Long, ExpirySlot> loaded =
        BucketMap.loaded(
            internals.state(
                StateNamespaces.global(),
                StateTags.tagForSpec(
                    PairEventsFn.SLOTS_STATE,
                    BucketMap.loadedSpec(VarLongCoder.of(), ExpirySlotCoder.of()))));
    ExpirySlot slot = ExpirySlot.EMPTY.with("ord-1", Instant.ofEpochMilli(1_000_123));
    loaded.put(42L, slot);
    loaded.flush();
    assertEquals(slot, loaded.get(42L));
    assertNotNull(internals.getState().get(StateNamespaces.global().stringKey(), "slots"));

    loaded.remove(42L);
    loaded.flush();
    assertNull(internals.getState().get(StateNamespaces.global().stringKey(), "slots"));
  }
}
