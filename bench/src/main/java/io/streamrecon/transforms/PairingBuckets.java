package io.streamrecon.transforms;

/** The pairing's bucket function, for the soak's count of runner keys (it lives with PairEvents). */
public final class PairingBuckets {
  private PairingBuckets() {}

  /** The bucket {@code PairEvents} keys {@code naturalId} by, among {@code buckets}. */
  public static int of(String naturalId, int buckets) {
    return PairEvents.bucketOf(naturalId, buckets);
  }
}
