package io.streamrecon.bench;

import java.time.Duration;
import java.time.Instant;

/**
 * What {@link Generator} produces: the number of business records, the share of each case, payload
 * sizes, key skew and disorder. Immutable; every {@code withX} validates its argument.
 *
 * <p>Each record yields about one event per side (none on the missing side, one more for a
 * duplicate or an earlier version), so events per side is close to {@code records}.
 *
 * @param seed random seed: the same config always writes the same bytes
 * @param records business records (N)
 * @param mismatchShare records whose target differs in 1 to 3 fields
 * @param missingInTargetShare records that only the source carries
 * @param missingInSourceShare records that only the target carries
 * @param lateShare records whose two events arrive far behind the event-time front (streaming:
 *     late)
 * @param duplicateShare records with one event delivered twice
 * @param newVersionShare records whose source first sends an earlier, different version
 * @param payloadMinBytes smallest payload
 * @param payloadMaxBytes largest payload (sizes are log-uniform between the two)
 * @param skew key skew: unique ids, or ids drawn from a Zipf law (a few hot ids carry many records)
 * @param zipfExponent exponent of the Zipf law
 * @param zipfKeys distinct ids under Zipf skew (0 = records / 4)
 * @param start event time of the first record
 * @param spacing event-time distance between consecutive records
 * @param disorder bound of the shuffle: an event arrives after no event more than this much newer
 * @param recordsPerFile records per file and side: files cut the stream at record boundaries of
 *     event time, so file i of both sides covers the same span (one micro-batch of the peer)
 * @param timeout the pairing timeout the reconcilers use; episodes of one id are spaced beyond it
 */
public record GeneratorConfig(
    long seed,
    int records,
    double mismatchShare,
    double missingInTargetShare,
    double missingInSourceShare,
    double lateShare,
    double duplicateShare,
    double newVersionShare,
    int payloadMinBytes,
    int payloadMaxBytes,
    Skew skew,
    double zipfExponent,
    int zipfKeys,
    Instant start,
    Duration spacing,
    Duration disorder,
    int recordsPerFile,
    Duration timeout) {

  /** Key skew. */
  public enum Skew {
    UNIFORM,
    ZIPF
  }

  /** Defaults used by the benchmark report. */
  public static GeneratorConfig defaults() {
    return new GeneratorConfig(
        42L,
        10_000,
        0.05,
        0.02,
        0.02,
        0.002,
        0.02,
        0.02,
        300,
        10_000,
        Skew.UNIFORM,
        1.1,
        0,
        Instant.parse("2026-01-05T00:00:00Z"),
        Duration.ofMillis(20),
        Duration.ofSeconds(5),
        5_000,
        Duration.ofSeconds(60));
  }

  public GeneratorConfig {
    if (records < 1) {
      throw new IllegalArgumentException("records must be >= 1, was " + records);
    }
    share("mismatchShare", mismatchShare);
    share("missingInTargetShare", missingInTargetShare);
    share("missingInSourceShare", missingInSourceShare);
    share("lateShare", lateShare);
    share("duplicateShare", duplicateShare);
    share("newVersionShare", newVersionShare);
    if (mismatchShare + missingInTargetShare + missingInSourceShare + lateShare > 1.0) {
      throw new IllegalArgumentException(
          "mismatchShare + missingInTargetShare + missingInSourceShare + lateShare must be <= 1");
    }
    if (duplicateShare + newVersionShare > 1.0) {
      throw new IllegalArgumentException("duplicateShare + newVersionShare must be <= 1");
    }
    if (payloadMinBytes < 200
        || payloadMinBytes > payloadMaxBytes
        || payloadMaxBytes > 10_000_000) {
      throw new IllegalArgumentException(
          "payload sizes must satisfy 200 <= payloadMinBytes <= payloadMaxBytes <= 10000000, were "
              + payloadMinBytes
              + ".."
              + payloadMaxBytes);
    }
    if (skew == null) {
      throw new IllegalArgumentException("skew must be UNIFORM or ZIPF");
    }
    if (!(zipfExponent > 0 && zipfExponent <= 5)) {
      throw new IllegalArgumentException("zipfExponent must be in (0, 5], was " + zipfExponent);
    }
    if (zipfKeys < 0) {
      throw new IllegalArgumentException(
          "zipfKeys must be >= 0 (0 = records / 4), was " + zipfKeys);
    }
    if (start == null) {
      throw new IllegalArgumentException("start must be set");
    }
    positive("spacing", spacing);
    if (disorder == null || disorder.isNegative()) {
      throw new IllegalArgumentException("disorder must be >= 0");
    }
    if (recordsPerFile < 1) {
      throw new IllegalArgumentException("recordsPerFile must be >= 1, was " + recordsPerFile);
    }
    positive("timeout", timeout);
  }

  private static void share(String name, double v) {
    if (!(v >= 0 && v <= 1)) {
      throw new IllegalArgumentException(name + " must be in [0, 1], was " + v);
    }
  }

  private static void positive(String name, Duration d) {
    if (d == null || d.isZero() || d.isNegative()) {
      throw new IllegalArgumentException(name + " must be a positive duration, was " + d);
    }
  }

  /**
   * Largest event-time distance between an earlier version and the record's final events: well
   * inside the timeout so that every event of a record pairs within one entry.
   */
  public Duration versionSpread() {
    return timeout.dividedBy(4);
  }

  /**
   * Watermark delay of a streaming reconciler that reads file i of both sides in micro-batch i: an
   * ordinary event is never more than {@link #disorder} behind what came before it, so twice that
   * plus a margin never drops one.
   */
  public Duration watermarkDelay() {
    return disorder.multipliedBy(2).plusSeconds(10);
  }

  /** Event-time distance between two episodes of one id under Zipf skew: beyond the timeout. */
  public Duration episodeGap() {
    return timeout
        .plus(versionSpread().multipliedBy(2))
        .plus(disorder.multipliedBy(2))
        .plusSeconds(5);
  }

  public GeneratorConfig withSeed(long v) {
    return new GeneratorConfig(
        v,
        records,
        mismatchShare,
        missingInTargetShare,
        missingInSourceShare,
        lateShare,
        duplicateShare,
        newVersionShare,
        payloadMinBytes,
        payloadMaxBytes,
        skew,
        zipfExponent,
        zipfKeys,
        start,
        spacing,
        disorder,
        recordsPerFile,
        timeout);
  }

  public GeneratorConfig withRecords(int v) {
    return new GeneratorConfig(
        seed,
        v,
        mismatchShare,
        missingInTargetShare,
        missingInSourceShare,
        lateShare,
        duplicateShare,
        newVersionShare,
        payloadMinBytes,
        payloadMaxBytes,
        skew,
        zipfExponent,
        zipfKeys,
        start,
        spacing,
        disorder,
        recordsPerFile,
        timeout);
  }

  public GeneratorConfig withShares(
      double mismatch,
      double missingInTarget,
      double missingInSource,
      double late,
      double duplicate,
      double newVersion) {
    return new GeneratorConfig(
        seed,
        records,
        mismatch,
        missingInTarget,
        missingInSource,
        late,
        duplicate,
        newVersion,
        payloadMinBytes,
        payloadMaxBytes,
        skew,
        zipfExponent,
        zipfKeys,
        start,
        spacing,
        disorder,
        recordsPerFile,
        timeout);
  }

  public GeneratorConfig withPayloadBytes(int min, int max) {
    return new GeneratorConfig(
        seed,
        records,
        mismatchShare,
        missingInTargetShare,
        missingInSourceShare,
        lateShare,
        duplicateShare,
        newVersionShare,
        min,
        max,
        skew,
        zipfExponent,
        zipfKeys,
        start,
        spacing,
        disorder,
        recordsPerFile,
        timeout);
  }

  public GeneratorConfig withSkew(Skew v, double exponent, int keys) {
    return new GeneratorConfig(
        seed,
        records,
        mismatchShare,
        missingInTargetShare,
        missingInSourceShare,
        lateShare,
        duplicateShare,
        newVersionShare,
        payloadMinBytes,
        payloadMaxBytes,
        v,
        exponent,
        keys,
        start,
        spacing,
        disorder,
        recordsPerFile,
        timeout);
  }

  public GeneratorConfig withTiming(
      Duration spacing, Duration disorder, int recordsPerFile, Duration timeout) {
    return new GeneratorConfig(
        seed,
        records,
        mismatchShare,
        missingInTargetShare,
        missingInSourceShare,
        lateShare,
        duplicateShare,
        newVersionShare,
        payloadMinBytes,
        payloadMaxBytes,
        skew,
        zipfExponent,
        zipfKeys,
        start,
        spacing,
        disorder,
        recordsPerFile,
        timeout);
  }
}
