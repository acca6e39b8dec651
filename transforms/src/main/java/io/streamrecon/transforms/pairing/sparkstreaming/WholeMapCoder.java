package io.streamrecon.transforms.pairing.sparkstreaming;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.security.SecureRandom;
import java.util.AbstractMap;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.CoderException;
import org.apache.beam.sdk.coders.StructuredCoder;
import org.apache.beam.sdk.util.VarInt;

/**
 * Coder of a bucket map held whole in one state value ({@link LoadedMap}), for a runner that codes
 * a state value on every access (Beam's classic SparkRunner in streaming mode, where every pairing
 * call reads and writes its bucket's maps). Two things make a call's coding cost follow what the
 * call changed rather than the bucket's size:
 *
 * <ul>
 *   <li><b>Entries keep their bytes.</b> A decoded map ({@link CodedMap}) keeps each entry's range
 *       in the bytes it came from and decodes a value only when it is read; encoding copies those
 *       ranges and codes only the entries put since.
 *   <li><b>A decoded map is reused.</b> Every encoding starts with a stamp unique in this JVM and
 *       over JVMs (a random per-JVM prefix and a counter), and the map it coded is kept, frozen,
 *       under that stamp. Decoding bytes whose stamp is kept returns the kept map without reading
 *       the rest. Kept maps are never changed ({@link LoadedMap} changes a copy), so a kept map
 *       always equals what its bytes decode to, whichever older or newer bytes a runner hands back
 *       (a recomputed micro-batch, a retried task). Bytes from another JVM (a restored job, another
 *       executor) are decoded in full.
 * </ul>
 *
 * <p>At most {@link #KEPT_BYTES_LIMIT} coded bytes of maps are kept per JVM; the least recently
 * used go first and are decoded again when next read. A map's newer encoding drops the one it was
 * loaded from.
 *
 * <p>Layout: the stamp (two longs), the entry count and the entries' byte length as varints, then
 * per entry its key coded nested by its coder, the value's length as a varint and the value coded
 * by its coder (the length lets a full decode skip values until they are read).
 */
public final class WholeMapCoder<K, V> extends StructuredCoder<Map<K, V>> {
  private static final long serialVersionUID = 1L;

  /** The coded bytes of maps kept decoded per JVM, over all pairing steps. */
  static final long KEPT_BYTES_LIMIT = 64L << 20;

  private static final long JVM_STAMP = new SecureRandom().nextLong();
  private static final AtomicLong NEXT_STAMP = new AtomicLong();
  private static final KeptMaps KEPT = new KeptMaps();

  private final Coder<K> keyCoder;
  private final Coder<V> valueCoder;

  private WholeMapCoder(Coder<K> keyCoder, Coder<V> valueCoder) {
    this.keyCoder = keyCoder;
    this.valueCoder = valueCoder;
  }

  public static <K, V> WholeMapCoder<K, V> of(Coder<K> keyCoder, Coder<V> valueCoder) {
    return new WholeMapCoder<>(keyCoder, valueCoder);
  }

  @Override
  public void encode(Map<K, V> value, OutputStream out) throws IOException {
    CodedMap<K, V> map =
        value instanceof CodedMap<K, V> coded && !coded.frozen ? coded : CodedMap.copyOf(value);
    long stamp = NEXT_STAMP.incrementAndGet();
    int total = map.encodeInto(JVM_STAMP, stamp, keyCoder, valueCoder);
    out.write(map.blob, 0, map.blobSize);
    if (map.loadedFrom != 0) {
      KEPT.drop(map.loadedFrom);
    }
    map.freeze(stamp);
    KEPT.keep(stamp, map, total);
  }

  @Override
  @SuppressWarnings("unchecked")
  public Map<K, V> decode(InputStream in) throws IOException {
    long jvm = readLong(in);
    long stamp = readLong(in);
    int count = VarInt.decodeInt(in);
    int total = VarInt.decodeInt(in);
    if (jvm == JVM_STAMP) {
      CodedMap<?, ?> kept = KEPT.get(stamp);
      if (kept != null && kept.size() == count) {
        skipFully(in, total);
        return (CodedMap<K, V>) kept;
      }
    }
    byte[] entries = new byte[total];
    readFully(in, entries);
    CodedMap<K, V> map = CodedMap.parse(entries, count, keyCoder, valueCoder);
    if (jvm == JVM_STAMP) {
      map.freeze(stamp);
      KEPT.keep(stamp, map, total);
    } else {
      map.freeze(0);
    }
    return map;
  }

  @Override
  public List<? extends Coder<?>> getCoderArguments() {
    return List.of(keyCoder, valueCoder);
  }

  @Override
  public void verifyDeterministic() throws NonDeterministicException {
    throw new NonDeterministicException(this, "a whole map's stamp differs on every encoding");
  }

  @Override
  public boolean consistentWithEquals() {
    return false;
  }

  /** Drops every kept map, as a fresh JVM starts: the next reads decode in full. */
  public static void forgetKeptMaps() {
    KEPT.clear();
  }

  /** How many maps are kept decoded in this JVM. */
  public static int keptMapCount() {
    return KEPT.count();
  }

  /**
   * A map with each entry's coded bytes beside it, in an open-addressing table (linear probing) of
   * parallel arrays, so that copying it for a call is a few array copies and encoding it copies
   * byte ranges: neither walks linked nodes. Entries read from bytes keep their range in {@code
   * blob} and are decoded on first {@code get}; entries put since have no range until the next
   * encoding codes them. Changed only through {@code put}, {@code remove} and {@code clear}; frozen
   * once encoded or decoded, since it is then kept for its stamp.
   */
  static final class CodedMap<K, V> extends AbstractMap<K, V> {
    private static final int NOT_CODED = -1;

    private Object[] keys;
    private Object[] values;
    // Per slot: where the entry's bytes start in blob, where its value starts (after the key and
    // the value's length) and where it ends; start is NOT_CODED for an entry put since.
    private int[] start;
    private int[] valueStart;
    private int[] end;
    private int size;
    private byte[] blob;
    private int blobSize;
    private Coder<V> valueCoder;
    private boolean frozen;
    // The stamp this map is kept under once frozen (0: not kept), and for a copy the stamp of the
    // map it was copied from, whose kept entry a newer encoding replaces.
    private long stamp;
    private long loadedFrom;

    private CodedMap(int expected) {
      allocate(capacityFor(expected));
    }

    private static int capacityFor(int entries) {
      int capacity = 16;
      while (capacity < entries * 2 + 2) {
        capacity <<= 1;
      }
      return capacity;
    }

    private void allocate(int capacity) {
      keys = new Object[capacity];
      values = new Object[capacity];
      start = new int[capacity];
      valueStart = new int[capacity];
      end = new int[capacity];
    }

    /** An empty map to fill. */
    static <K, V> CodedMap<K, V> empty() {
      return new CodedMap<>(0);
    }

    /** A changeable copy of {@code map}, keeping the coded bytes it has. */
    @SuppressWarnings("unchecked")
    static <K, V> CodedMap<K, V> copyOf(Map<K, V> map) {
      if (map instanceof CodedMap<K, V> coded) {
        CodedMap<K, V> copy = new CodedMap<>(0);
        copy.keys = coded.keys.clone();
        copy.values = coded.values.clone();
        copy.start = coded.start.clone();
        copy.valueStart = coded.valueStart.clone();
        copy.end = coded.end.clone();
        copy.size = coded.size;
        copy.blob = coded.blob;
        copy.blobSize = coded.blobSize;
        copy.valueCoder = coded.valueCoder;
        copy.loadedFrom = coded.stamp;
        return copy;
      }
      CodedMap<K, V> copy = new CodedMap<>(map.size());
      for (Map.Entry<K, V> e : map.entrySet()) {
        copy.put(e.getKey(), e.getValue());
      }
      return copy;
    }

    /** The map of {@code count} entries coded in {@code entries}; values decoded when read. */
    static <K, V> CodedMap<K, V> parse(
        byte[] entries, int count, Coder<K> keyCoder, Coder<V> valueCoder) throws IOException {
      CodedMap<K, V> map = new CodedMap<>(count);
      map.blob = entries;
      map.blobSize = entries.length;
      map.valueCoder = valueCoder;
      Slice slice = new Slice(entries, 0, entries.length);
      for (int n = 0; n < count; n++) {
        int entryStart = slice.pos;
        K key = keyCoder.decode(slice);
        int length = VarInt.decodeInt(slice);
        int from = slice.pos;
        if (length < 0 || length > entries.length - from) {
          throw new CoderException("whole map: entry " + n + " runs past its bytes");
        }
        slice.pos = from + length;
        int i = map.slotOf(key);
        if (map.keys[i] != null) {
          throw new CoderException("whole map: key " + key + " coded twice");
        }
        map.keys[i] = key;
        map.start[i] = entryStart;
        map.valueStart[i] = from;
        map.end[i] = from + length;
        map.size++;
      }
      if (slice.pos != entries.length) {
        throw new CoderException(
            "whole map of "
                + count
                + " entries: "
                + entries.length
                + " bytes given, "
                + slice.pos
                + " read");
      }
      return map;
    }

    private static int spread(Object key) {
      int h = key.hashCode();
      return h ^ (h >>> 16);
    }

    /** The slot holding {@code key}, or the empty slot where it would go. */
    private int slotOf(Object key) {
      int mask = keys.length - 1;
      int i = spread(key) & mask;
      while (keys[i] != null && !keys[i].equals(key)) {
        i = (i + 1) & mask;
      }
      return i;
    }

    @Override
    @SuppressWarnings("unchecked")
    public V get(Object key) {
      if (key == null) {
        return null;
      }
      int i = slotOf(key);
      if (keys[i] == null) {
        return null;
      }
      Object value = values[i];
      if (value == null) {
        // Also in a frozen map: the value is immutable and equal whoever decodes it first.
        value = decodeValue(i);
        values[i] = value;
      }
      return (V) value;
    }

    private V decodeValue(int i) {
      try {
        return valueCoder.decode(new Slice(blob, valueStart[i], end[i]));
      } catch (IOException e) {
        throw new IllegalStateException("whole map: a kept value no longer decodes", e);
      }
    }

    @Override
    public boolean containsKey(Object key) {
      return key != null && keys[slotOf(key)] != null;
    }

    @Override
    public int size() {
      return size;
    }

    @Override
    @SuppressWarnings("unchecked")
    public V put(K key, V value) {
      checkNotFrozen();
      if (key == null || value == null) {
        throw new NullPointerException("a whole map holds no null key or value");
      }
      int i = slotOf(key);
      V previous = null;
      if (keys[i] != null) {
        previous = get(key);
        if (previous == value) {
          return previous;
        }
      } else {
        keys[i] = key;
        size++;
      }
      values[i] = value;
      start[i] = NOT_CODED;
      if (size * 2 + 2 > keys.length) {
        rehash(keys.length * 2);
      }
      return previous;
    }

    @Override
    public V remove(Object key) {
      checkNotFrozen();
      if (key == null) {
        return null;
      }
      int i = slotOf(key);
      if (keys[i] == null) {
        return null;
      }
      V previous = get(key);
      // Backward-shift deletion: move later entries of the probe run into the gap.
      int mask = keys.length - 1;
      int gap = i;
      int j = (i + 1) & mask;
      while (keys[j] != null) {
        int home = spread(keys[j]) & mask;
        // Entry j may fill the gap if its home is not in (gap, j] (cyclically).
        boolean movable = gap <= j ? (home <= gap || home > j) : (home <= gap && home > j);
        if (movable) {
          moveSlot(j, gap);
          gap = j;
        }
        j = (j + 1) & mask;
      }
      keys[gap] = null;
      values[gap] = null;
      size--;
      return previous;
    }

    private void moveSlot(int from, int to) {
      keys[to] = keys[from];
      values[to] = values[from];
      start[to] = start[from];
      valueStart[to] = valueStart[from];
      end[to] = end[from];
    }

    @Override
    public void clear() {
      checkNotFrozen();
      allocate(16);
      size = 0;
    }

    private void rehash(int capacity) {
      Object[] oldKeys = keys;
      Object[] oldValues = values;
      int[] oldStart = start;
      int[] oldValueStart = valueStart;
      int[] oldEnd = end;
      allocate(capacity);
      for (int j = 0; j < oldKeys.length; j++) {
        if (oldKeys[j] != null) {
          int i = slotOf(oldKeys[j]);
          keys[i] = oldKeys[j];
          values[i] = oldValues[j];
          start[i] = oldStart[j];
          valueStart[i] = oldValueStart[j];
          end[i] = oldEnd[j];
        }
      }
    }

    @Override
    @SuppressWarnings("unchecked")
    public Set<Entry<K, V>> entrySet() {
      LinkedHashMap<K, V> all = new LinkedHashMap<>();
      for (int i = 0; i < keys.length; i++) {
        if (keys[i] != null) {
          all.put((K) keys[i], get(keys[i]));
        }
      }
      return Collections.unmodifiableMap(all).entrySet();
    }

    private void checkNotFrozen() {
      if (frozen) {
        throw new UnsupportedOperationException("a coded map is frozen once encoded or decoded");
      }
    }

    private void freeze(long keptUnder) {
      frozen = true;
      stamp = keptUnder;
    }

    /**
     * Writes the whole coding (stamp, count, length, entries) into a new {@code blob}, copying the
     * bytes of entries that have them and coding the others; every entry's range then points into
     * it. Returns the entries' byte length.
     */
    @SuppressWarnings("unchecked")
    private int encodeInto(long jvm, long stampOfThis, Coder<K> keyCoder, Coder<V> coder)
        throws IOException {
      GrowableBytes fresh = null;
      GrowableBytes value = null;
      long total = 0;
      for (int i = 0; i < keys.length; i++) {
        if (keys[i] == null) {
          continue;
        }
        if (start[i] == NOT_CODED) {
          if (fresh == null) {
            fresh = new GrowableBytes(256);
            value = new GrowableBytes(160);
          }
          int from = fresh.size;
          keyCoder.encode((K) keys[i], fresh);
          value.size = 0;
          coder.encode((V) values[i], value);
          VarInt.encode(value.size, fresh);
          int valueFrom = fresh.size;
          fresh.write(value.bytes, 0, value.size);
          // Provisional ranges into fresh, moved below once the entries are laid out.
          start[i] = -2 - from;
          valueStart[i] = valueFrom - from;
          end[i] = fresh.size - from;
          total += end[i];
        } else {
          total += end[i] - start[i];
        }
      }
      if (total > Integer.MAX_VALUE - 64) {
        throw new CoderException("a whole map over 2 GiB cannot be coded: " + total + " bytes");
      }
      GrowableBytes out = new GrowableBytes(16 + 10 + (int) total);
      out.writeLong(jvm);
      out.writeLong(stampOfThis);
      VarInt.encode(size, out);
      VarInt.encode((int) total, out);
      for (int i = 0; i < keys.length; i++) {
        if (keys[i] == null) {
          continue;
        }
        int at = out.size;
        if (start[i] <= -2) {
          int from = -2 - start[i];
          int length = end[i];
          out.write(fresh.bytes, from, length);
          valueStart[i] = at + valueStart[i];
        } else {
          out.write(blob, start[i], end[i] - start[i]);
          valueStart[i] = at + (valueStart[i] - start[i]);
        }
        start[i] = at;
        end[i] = out.size;
      }
      blob = out.bytes;
      blobSize = out.size;
      valueCoder = coder;
      return (int) total;
    }
  }

  /** The maps kept decoded, least recently used first, bounded by their coded bytes. */
  private static final class KeptMaps {
    private final LinkedHashMap<Long, Kept> byStamp = new LinkedHashMap<>(1024, 0.75f, true);
    private long bytes;

    private record Kept(CodedMap<?, ?> map, int bytes) {}

    synchronized CodedMap<?, ?> get(long stamp) {
      Kept kept = byStamp.get(stamp);
      return kept == null ? null : kept.map;
    }

    synchronized void keep(long stamp, CodedMap<?, ?> map, int size) {
      if (size > KEPT_BYTES_LIMIT) {
        return;
      }
      byStamp.put(stamp, new Kept(map, size));
      bytes += size;
      while (bytes > KEPT_BYTES_LIMIT) {
        Iterator<Kept> eldest = byStamp.values().iterator();
        bytes -= eldest.next().bytes;
        eldest.remove();
      }
    }

    synchronized void drop(long stamp) {
      Kept kept = byStamp.remove(stamp);
      if (kept != null) {
        bytes -= kept.bytes;
      }
    }

    synchronized void clear() {
      byStamp.clear();
      bytes = 0;
    }

    synchronized int count() {
      return byStamp.size();
    }
  }

  /** An input stream over a range of a byte array that tells its position, without locks. */
  private static final class Slice extends InputStream {
    private final byte[] bytes;
    private final int limit;
    private int pos;

    Slice(byte[] bytes, int from, int to) {
      this.bytes = bytes;
      this.pos = from;
      this.limit = to;
    }

    @Override
    public int read() {
      return pos < limit ? bytes[pos++] & 0xff : -1;
    }

    @Override
    public int read(byte[] b, int off, int len) {
      if (len == 0) {
        return 0;
      }
      int n = Math.min(len, limit - pos);
      if (n <= 0) {
        return -1;
      }
      System.arraycopy(bytes, pos, b, off, n);
      pos += n;
      return n;
    }

    @Override
    public long skip(long n) {
      int k = (int) Math.max(0, Math.min(n, limit - pos));
      pos += k;
      return k;
    }

    @Override
    public int available() {
      return limit - pos;
    }
  }

  private static long readLong(InputStream in) throws IOException {
    long v = 0;
    for (int i = 0; i < 8; i++) {
      int b = in.read();
      if (b < 0) {
        throw new CoderException("whole map: stamp cut short");
      }
      v = (v << 8) | b;
    }
    return v;
  }

  private static void readFully(InputStream in, byte[] into) throws IOException {
    int off = 0;
    while (off < into.length) {
      int n = in.read(into, off, into.length - off);
      if (n < 0) {
        throw new CoderException(
            "whole map: " + into.length + " bytes of entries announced, " + off + " present");
      }
      off += n;
    }
  }

  private static void skipFully(InputStream in, int n) throws IOException {
    int left = n;
    while (left > 0) {
      long skipped = in.skip(left);
      if (skipped <= 0) {
        if (in.read() < 0) {
          throw new CoderException(
              "whole map: " + n + " bytes of entries announced, fewer present");
        }
        skipped = 1;
      }
      left -= (int) skipped;
    }
  }
}
