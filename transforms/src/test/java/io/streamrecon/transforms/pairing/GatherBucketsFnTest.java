package io.streamrecon.transforms.pairing;

import static io.streamrecon.transforms.pairing.PairFixtures.hash;
import static io.streamrecon.transforms.pairing.PairFixtures.min;
import static io.streamrecon.transforms.pairing.PairFixtures.src;
import static io.streamrecon.transforms.pairing.PairFixtures.tgt;

import io.streamrecon.model.EventRef;
import io.streamrecon.transforms.ModelCoders.EventRefCoder;
import io.streamrecon.transforms.pairing.sparkstreaming.GatherBucketsFn;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.ListCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Instant;
import org.junit.Rule;
import org.junit.Test;

public class GatherBucketsFnTest {
  @Rule public final transient TestPipeline p = TestPipeline.create();

  /**
   * Every event comes out once, under its bucket, with its own timestamp, and each gathered element
   * is stamped with its earliest event, also when the cap makes it emit early.
   */
  @Test
  public void everyEventComesOutOnceUnderItsBucketAtTheEarliestTimestamp() {
    List<TimestampedValue<KV<Integer, EventRef>>> input = new ArrayList<>();
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 25; i++) {
      EventRef event =
          i % 2 == 0 ? src("id" + i, min(30 - i), hash("a")) : tgt("id" + i, min(i), hash("a"));
      int bucket = i % 4;
      input.add(TimestampedValue.of(KV.of(bucket, event), event.eventTime()));
      expected.add(bucket + "/" + event.naturalId() + "@" + event.eventTime());
    }
    for (int cap : new int[] {3, PairEvents.MAX_GATHERED}) {
      PCollection<String> out =
          p.apply(
                  "Create" + cap,
                  Create.timestamped(input)
                      .withCoder(KvCoder.of(VarIntCoder.of(), EventRefCoder.of())))
              .apply("Gather" + cap, ParDo.of(new GatherBucketsFn(cap)))
              .setCoder(
                  KvCoder.of(
                      VarIntCoder.of(),
                      ListCoder.of(TimestampedValue.TimestampedValueCoder.of(EventRefCoder.of()))))
              .apply("Spread" + cap, ParDo.of(new SpreadFn()))
              .setCoder(StringUtf8Coder.of());
      PAssert.that(out).containsInAnyOrder(expected);
    }
    p.run().waitUntilFinish();
  }

  /** Each gathered event as "bucket/id@timestamp"; fails when the element's timestamp is wrong. */
  private static final class SpreadFn
      extends DoFn<KV<Integer, List<TimestampedValue<EventRef>>>, String> {
    @ProcessElement
    public void process(
        @Element KV<Integer, List<TimestampedValue<EventRef>>> gathered,
        @Timestamp Instant timestamp,
        OutputReceiver<String> out) {
      Instant earliest = null;
      for (TimestampedValue<EventRef> event : gathered.getValue()) {
        if (earliest == null || event.getTimestamp().isBefore(earliest)) {
          earliest = event.getTimestamp();
        }
        out.output(
            gathered.getKey() + "/" + event.getValue().naturalId() + "@" + event.getTimestamp());
      }
      if (!timestamp.equals(earliest)) {
        throw new AssertionError("stamped " + timestamp + ", earliest event " + earliest);
      }
    }
  }
}
