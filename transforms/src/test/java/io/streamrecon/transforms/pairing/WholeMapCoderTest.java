package io.streamrecon.transforms.pairing;

import static io.streamrecon.transforms.pairing.PairFixtures.T0;
import static io.streamrecon.transforms.pairing.PairFixtures.TIMEOUT;
import static io.streamrecon.transforms.pairing.PairFixtures.hash;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotSame;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;

import io.streamrecon.model.EventRef;
import io.streamrecon.model.Pointer;
import io.streamrecon.model.Side;
import io.streamrecon.transforms.pairing.sparkstreaming.WholeMapCoder;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.CoderException;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.util.CoderUtils;
import org.junit.Before;
import org.junit.Test;

/**
 * The coder of a bucket map held whole: what it decodes always equals what was encoded, whether the
 * map comes back from its JVM's kept maps or is decoded in full, and a call codes only the entries
 * it changed.
 */
public class WholeMapCoderTest {
  private final CountingCoder values = new CountingCoder();
  private final WholeMapCoder<String, String> coder =
      WholeMapCoder.of(StringUtf8Coder.of(), values);

  @Before
  public void startAsAFreshJvm() {
    WholeMapCoder.forgetKeptMaps();
  }

  private static Map<String, String> plain(int n) {
    Map<String, String> map = new TreeMap<>();
    for (int i = 0; i < n; i++) {
      map.put("ord-" + i, "value-" + i);
    }
    return map;
  }

  private Map<String, String> decode(byte[] bytes) throws CoderException {
    return CoderUtils.decodeFromByteArray(coder, bytes);
  }

  private byte[] encode(Map<String, String> map) throws CoderException {
    return CoderUtils.encodeToByteArray(coder, map);
  }

  @Test
  public void decodesWhatWasEncodedFromKeptMapsAndInFull() throws Exception {
    byte[] bytes = encode(plain(50));
    values.reset();
    assertEquals(plain(50), decode(bytes));
    assertEquals("kept in this JVM: no entry decoded", 0, values.decoded);

    WholeMapCoder.forgetKeptMaps();
    assertEquals(plain(50), decode(bytes));
    assertEquals("a fresh JVM decodes every entry", 50, values.decoded);
    values.reset();
    assertEquals(plain(50), decode(bytes));
    assertEquals("kept once decoded", 0, values.decoded);
  }

  @Test
  public void aCallCodesOnlyTheEntriesItChanged() throws Exception {
    ValueStateOverBytes<Map<String, String>> state = new ValueStateOverBytes<>(coder);
    state.write(plain(50));
    values.reset();

    BucketMap<String, String> bucket = BucketMap.loaded(state);
    assertEquals("value-7", bucket.get("ord-7"));
    bucket.put("ord-7", "changed");
    bucket.remove("ord-8");
    bucket.put("ord-99", "new");
    bucket.flush();
    assertEquals("the two entries put, nothing else", 2, values.encoded);
    assertEquals(0, values.decoded);

    Map<String, String> expected = plain(50);
    expected.put("ord-7", "changed");
    expected.remove("ord-8");
    expected.put("ord-99", "new");
    assertEquals(expected, state.read());
    WholeMapCoder.forgetKeptMaps();
    assertEquals("the bytes hold every entry", expected, state.read());
  }

  @Test
  public void olderBytesStillDecodeToTheirOwnMap() throws Exception {
    // A runner may hand back older bytes (a recomputed micro-batch, a retried task).
    ValueStateOverBytes<Map<String, String>> state = new ValueStateOverBytes<>(coder);
    state.write(plain(10));
    byte[] older = state.bytes;
    BucketMap<String, String> bucket = BucketMap.loaded(state);
    bucket.put("ord-3", "changed");
    bucket.flush();
    byte[] newer = state.bytes;

    Map<String, String> changed = plain(10);
    changed.put("ord-3", "changed");
    assertEquals(plain(10), decode(older));
    assertEquals(changed, decode(newer));
    assertEquals(plain(10), decode(older));
  }

  @Test
  public void keptMapsCannotBeChangedAndLoadedMapsAreCopies() throws Exception {
    byte[] bytes = encode(plain(3));
    Map<String, String> kept = decode(bytes);
    assertSame("the same kept map each read", kept, decode(bytes));
    assertThrows(UnsupportedOperationException.class, () -> kept.put("ord-0", "x"));
    assertThrows(UnsupportedOperationException.class, () -> kept.remove("ord-0"));
    assertThrows(UnsupportedOperationException.class, kept::clear);

    ValueStateOverBytes<Map<String, String>> state = new ValueStateOverBytes<>(coder);
    state.bytes = bytes;
    BucketMap<String, String> bucket = BucketMap.loaded(state);
    bucket.put("ord-0", "changed");
    assertEquals("value-0", kept.get("ord-0"));
    bucket.flush();
    assertNotSame(kept, state.read());
    assertEquals(plain(3), decode(bytes));
  }

  @Test
  public void bytesOfAnotherJvmAreDecodedInFull() throws Exception {
    byte[] bytes = encode(plain(20));
    byte[] foreign = Arrays.copyOf(bytes, bytes.length);
    foreign[0] ^= 0x5a;
    values.reset();
    assertEquals(plain(20), decode(foreign));
    assertEquals(20, values.decoded);
    values.reset();
    assertEquals(plain(20), decode(foreign));
    assertEquals("another JVM's map is not kept", 20, values.decoded);
  }

  @Test
  public void aNewerEncodingReplacesTheKeptMapItWasLoadedFrom() throws Exception {
    ValueStateOverBytes<Map<String, String>> state = new ValueStateOverBytes<>(coder);
    state.write(plain(5));
    int before = WholeMapCoder.keptMapCount();
    for (int call = 0; call < 20; call++) {
      BucketMap<String, String> bucket = BucketMap.loaded(state);
      bucket.put("ord-1", "call-" + call);
      bucket.flush();
    }
    assertEquals(
        "one kept map per bucket map, not one per call", before, WholeMapCoder.keptMapCount());
  }

  @Test
  public void behavesAsAHashMapThroughPutsRemovesAndCodings() throws Exception {
    // Keys that share low hash bits collide in the open-addressing table, so removals must move
    // later entries of a probe run back; codings in between move entries between the table's
    // coded ranges and fresh values.
    WholeMapCoder<Long, String> longs =
        WholeMapCoder.of(org.apache.beam.sdk.coders.VarLongCoder.of(), StringUtf8Coder.of());
    ValueStateOverBytes<Map<Long, String>> state = new ValueStateOverBytes<>(longs);
    Map<Long, String> expected = new HashMap<>();
    java.util.Random random = new java.util.Random(42);
    for (int call = 0; call < 400; call++) {
      if (call % 97 == 0) {
        WholeMapCoder.forgetKeptMaps();
      }
      BucketMap<Long, String> bucket = BucketMap.loaded(state);
      for (int op = 0; op < 1 + random.nextInt(30); op++) {
        // Few distinct low bits, some at the table's end: long probe runs that wrap around.
        long key = ((long) random.nextInt(60) << 24) | (random.nextBoolean() ? 0 : 0xfffL);
        switch (random.nextInt(3)) {
          case 0 -> {
            bucket.put(key, "v" + call + "-" + op);
            expected.put(key, "v" + call + "-" + op);
          }
          case 1 -> {
            bucket.remove(key);
            expected.remove(key);
          }
          default -> assertEquals("get " + key, expected.get(key), bucket.get(key));
        }
      }
      bucket.flush();
      Map<Long, String> read = state.read();
      assertEquals("after call " + call, expected, read == null ? Map.of() : read);
    }
  }

  @Test
  public void cutBytesFailWithACoderException() throws Exception {
    byte[] bytes = encode(plain(5));
    WholeMapCoder.forgetKeptMaps();
    assertThrows(CoderException.class, () -> decode(Arrays.copyOf(bytes, bytes.length - 3)));
    assertThrows(CoderException.class, () -> decode(Arrays.copyOf(bytes, 10)));
  }

  @Test
  public void pairingEntriesComeBackEqual() throws Exception {
    WholeMapCoder<String, PairingEntry> entries =
        WholeMapCoder.of(StringUtf8Coder.of(), PairingEntryCoder.of());
    Map<String, PairingEntry> map = new HashMap<>();
    for (int i = 0; i < 30; i++) {
      String id = "ORD-" + i;
      String sha = hash("v" + i);
      String file =
          "side=SOURCE/event_date=2026-11-29/part-3f2a8c1e-6b4d-4e7a-9c21-0d5e8f7a1b2c.parquet";
      EventRef ref =
          new EventRef(
              Side.SOURCE,
              PairingEntry.UNBOUND_ID,
              T0.plus(i),
              sha,
              new Pointer(4, file, i, Side.SOURCE, PairingEntry.UNBOUND_ID, sha));
      map.put(id, PairingEntry.openedBy(ref, T0.plus(TIMEOUT)));
    }
    byte[] bytes = CoderUtils.encodeToByteArray(entries, map);
    WholeMapCoder.forgetKeptMaps();
    assertEquals(map, CoderUtils.decodeFromByteArray(entries, bytes));
  }

  /** A value state that keeps only the coded bytes, as Spark streaming's does. */
  private static final class ValueStateOverBytes<T>
      implements org.apache.beam.sdk.state.ValueState<T> {
    private final org.apache.beam.sdk.coders.Coder<T> coder;
    private byte[] bytes;

    ValueStateOverBytes(org.apache.beam.sdk.coders.Coder<T> coder) {
      this.coder = coder;
    }

    @Override
    public void write(T value) {
      try {
        bytes = CoderUtils.encodeToByteArray(coder, value);
      } catch (CoderException e) {
        throw new IllegalStateException(e);
      }
    }

    @Override
    public T read() {
      try {
        return bytes == null ? null : CoderUtils.decodeFromByteArray(coder, bytes);
      } catch (CoderException e) {
        throw new IllegalStateException(e);
      }
    }

    @Override
    public ValueStateOverBytes<T> readLater() {
      return this;
    }

    @Override
    public void clear() {
      bytes = null;
    }
  }

  /** {@link StringUtf8Coder} that counts the values it codes. */
  private static final class CountingCoder extends AtomicCoder<String> {
    int encoded;
    int decoded;

    void reset() {
      encoded = 0;
      decoded = 0;
    }

    @Override
    public void encode(String value, OutputStream out) throws IOException {
      encoded++;
      StringUtf8Coder.of().encode(value, out);
    }

    @Override
    public String decode(InputStream in) throws IOException {
      decoded++;
      return StringUtf8Coder.of().decode(in);
    }
  }
}
