package io.streamrecon.transforms.pairing;

import static io.streamrecon.transforms.pairing.PairFixtures.TIMEOUT;
import static io.streamrecon.transforms.pairing.PairFixtures.at;
import static io.streamrecon.transforms.pairing.PairFixtures.counter;
import static io.streamrecon.transforms.pairing.PairFixtures.hash;
import static io.streamrecon.transforms.pairing.PairFixtures.min;
import static io.streamrecon.transforms.pairing.PairFixtures.sec;
import static io.streamrecon.transforms.pairing.PairFixtures.src;
import static io.streamrecon.transforms.pairing.PairFixtures.tgt;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.streamrecon.model.EventRef;
import io.streamrecon.model.Verdict;
import io.streamrecon.transforms.ModelCoders.EventRefCoder;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.joda.time.Instant;
import org.junit.Rule;
import org.junit.Test;

/**
 * The bucketed state layout on the DirectRunner: many natural ids share few buckets, and each entry
 * still expires exactly when the watermark passes its own {@code t0 + timeout}, whatever the other
 * entries of its bucket do.
 */
public class PairEventsBucketTest {
  private static final int IDS = 30;
  private static final int BUCKETS = 3;
  private static final String A = hash("a");

  @Rule public final transient TestPipeline p = TestPipeline.create();

  /** Each verdict as (natural id + status, output timestamp in millis). */
  private static final class StampFn extends DoFn<Verdict, KV<String, Long>> {
    @ProcessElement
    public void process(
        @Element Verdict v, @Timestamp Instant ts, OutputReceiver<KV<String, Long>> out) {
      out.output(KV.of(v.naturalId() + " " + v.status(), ts.getMillis()));
    }
  }

  @Test
  public void entriesSharingABucketEachExpireAtTheirOwnWatermark() {
    // id i opens at T0 + 40 s * i, so the 30 entries fall due over 20 minutes, 10 per bucket.
    // Then, id by id, the watermark goes to exactly its due time (even ids: the entry must still
    // pair) or 1 ms past it (odd ids: it must have expired, and its partner opens a new entry).
    List<EventRef> sources = new ArrayList<>();
    Set<Integer> buckets = new HashSet<>();
    for (int i = 0; i < IDS; i++) {
      String id = "order-" + i;
      sources.add(src(id, sec(40L * i), A));
      buckets.add(PairEvents.bucketOf(id, BUCKETS));
    }
    assertEquals("ids spread over every bucket", BUCKETS, buckets.size());
    TestStream.Builder<EventRef> stream =
        PairFixtures.addAll(TestStream.create(EventRefCoder.of()), sources);
    List<KV<String, Long>> expected = new ArrayList<>();
    for (int i = 0; i < IDS; i++) {
      EventRef s = sources.get(i);
      Instant due = s.eventTime().plus(TIMEOUT);
      EventRef t = tgt(s.naturalId(), sec(40L * i).plus(min(5)), A);
      boolean alive = i % 2 == 0;
      stream = stream.advanceWatermarkTo(alive ? due : due.plus(1)).addElements(at(t));
      if (alive) {
        expected.add(KV.of(s.naturalId() + " MATCH", t.eventTime().getMillis()));
      } else {
        // MISSING_IN_TARGET carries t0 + timeout: never behind the output watermark, and not
        // the due time of whichever entry of the bucket happened to set the timer.
        expected.add(KV.of(s.naturalId() + " MISSING_IN_TARGET", due.getMillis()));
        expected.add(
            KV.of(s.naturalId() + " MISSING_IN_SOURCE", t.eventTime().plus(TIMEOUT).getMillis()));
      }
    }
    PCollectionTuple out =
        p.apply(stream.advanceWatermarkToInfinity())
            .apply("PairEvents", PairEvents.create().withBuckets(BUCKETS));
    PCollection<KV<String, Long>> stamped =
        out.get(PairEvents.VERDICTS)
            .apply("Stamp", ParDo.of(new StampFn()))
            .setCoder(KvCoder.of(StringUtf8Coder.of(), VarLongCoder.of()));
    PAssert.that(stamped).containsInAnyOrder(expected);
    PAssert.that(out.get(PairEvents.MISMATCHES)).empty();
    PAssert.that(out.get(PairEvents.LATE)).empty();
    PipelineResult result = p.run();
    result.waitUntilFinish();
    assertEquals(IDS / 2, counter(result, "match"));
    assertEquals(IDS / 2, counter(result, "missing_in_target"));
    assertEquals(IDS / 2, counter(result, "missing_in_source"));
    assertEquals(IDS + IDS / 2, counter(result, "entries_opened"));
    assertEquals(counter(result, "entries_opened"), counter(result, "entries_closed"));
  }

  @Test
  public void bucketCountIsValidated() {
    p.enableAbandonedNodeEnforcement(false);
    assertEquals(PairEvents.DEFAULT_BUCKETS, PairEvents.create().getBuckets());
    assertEquals(7, PairEvents.create().withBuckets(7).getBuckets());
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> PairEvents.create().withBuckets(0));
    assertEquals("buckets must be in [1, 65536], got 0", e.getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () -> PairEvents.create().withBuckets(PairEvents.MAX_BUCKETS + 1));
  }

  @Test
  public void bucketOfIsStableAndSpreadsSequentialIds() {
    // Stable across JVMs and restarts: String.hashCode is specified; these values are fixed.
    assertEquals(681, PairEvents.bucketOf("ORD-1", 1024));
    assertEquals(119, PairEvents.bucketOf("order-0", 1024));
    int[] perBucket = new int[64];
    for (int i = 0; i < 64_000; i++) {
      perBucket[PairEvents.bucketOf("ORD-" + i, 64)]++;
    }
    for (int n : perBucket) {
      assertTrue("bucket load " + n + " of 1000 expected", n > 850 && n < 1150);
    }
  }
}
