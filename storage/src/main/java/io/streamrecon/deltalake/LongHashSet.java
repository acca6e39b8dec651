package io.streamrecon.deltalake;

/**
 * A set of 64-bit fingerprints in one open-addressing array (16 bytes per entry at most), for the
 * committer's check "was a row with this identity stored before?" over many rows. The values are
 * already well mixed ({@link RowKeys#fingerprint}), so their low bits are the slot.
 */
final class LongHashSet {
  private static final long EMPTY = 0L;
  private long[] table = new long[16];
  private int size;

  int size() {
    return size;
  }

  /** Adds a value; returns whether it was absent. */
  boolean add(long value) {
    long v = value == EMPTY ? 1L : value;
    if ((size + 1) * 2L > table.length) {
      grow();
    }
    int mask = table.length - 1;
    int i = (int) v & mask;
    while (table[i] != EMPTY) {
      if (table[i] == v) {
        return false;
      }
      i = (i + 1) & mask;
    }
    table[i] = v;
    size++;
    return true;
  }

  boolean contains(long value) {
    long v = value == EMPTY ? 1L : value;
    int mask = table.length - 1;
    int i = (int) v & mask;
    while (table[i] != EMPTY) {
      if (table[i] == v) {
        return true;
      }
      i = (i + 1) & mask;
    }
    return false;
  }

  private void grow() {
    long[] old = table;
    table = new long[old.length * 2];
    size = 0;
    for (long v : old) {
      if (v != EMPTY) {
        add(v);
      }
    }
  }
}
