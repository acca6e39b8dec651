package io.streamrecon.pipeline.report;

/** The bucket width of the verdict timeline, chosen by the event-time span it has to cover. */
final class TimeBuckets {
  /** At most this many buckets: enough detail, bars still wider than a pixel or two. */
  static final int MAX_BUCKETS = 300;

  /** Bucket widths, finest first. */
  enum Unit {
    MINUTE(60_000L, "minute"),
    HOUR(3_600_000L, "hour"),
    DAY(86_400_000L, "day"),
    WEEK(7 * 86_400_000L, "week");

    final long millis;
    final String label;

    Unit(long millis, String label) {
      this.millis = millis;
      this.label = label;
    }

    /** The start of the bucket holding {@code t} (UTC; weeks start on the epoch's Thursday). */
    long floor(long t) {
      return Math.floorDiv(t, millis) * millis;
    }
  }

  private TimeBuckets() {}

  /** The finest unit that covers {@code [min, max]} in at most {@link #MAX_BUCKETS} buckets. */
  static Unit choose(long min, long max) {
    for (Unit u : Unit.values()) {
      if (buckets(u, min, max) <= MAX_BUCKETS) {
        return u;
      }
    }
    return Unit.WEEK;
  }

  static long buckets(Unit u, long min, long max) {
    return (u.floor(max) - u.floor(min)) / u.millis + 1;
  }
}
