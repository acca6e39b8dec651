package io.streamrecon.transforms.pairing;

import static io.streamrecon.transforms.pairing.PairFixtures.at;
import static io.streamrecon.transforms.pairing.PairFixtures.counter;
import static io.streamrecon.transforms.pairing.PairFixtures.hash;
import static io.streamrecon.transforms.pairing.PairFixtures.min;
import static io.streamrecon.transforms.pairing.PairFixtures.src;
import static io.streamrecon.transforms.pairing.PairFixtures.tgt;
import static org.junit.Assert.assertEquals;

import io.streamrecon.model.EventRef;
import io.streamrecon.transforms.ModelCoders.EventRefCoder;
import java.util.List;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.TimestampedValue;
import org.junit.Rule;
import org.junit.Test;

/**
 * Rule 5 needs a key's events in event-time order. A batch runner may deliver them in any order
 * (the SparkRunner did, on keys with many episodes); PairEvents asks for time-sorted input on
 * bounded collections so a key with several episodes beyond the timeout still pairs per episode.
 */
public class PairEventsBatchOrderTest {
  @Rule public final transient TestPipeline p = TestPipeline.create();

  @Test
  public void episodesOfOneKeyArrivingOutOfOrderPairPerEpisode() {
    String h0 = hash("e0");
    String h1 = hash("e1");
    String h2 = hash("e2");
    // Three episodes of key k, an hour apart (timeout 10 min), delivered newest source first and
    // each target after the next episode's source: without sorting, rule 5 would close every
    // entry before its partner came and report six MISSING verdicts.
    List<TimestampedValue<EventRef>> arrivals =
        List.of(
            at(src("k", min(120), h2)),
            at(src("k", min(0), h0)),
            at(src("k", min(60), h1)),
            at(tgt("k", min(60), h1)),
            at(tgt("k", min(120), h2)),
            at(tgt("k", min(0), h0)));
    PCollectionTuple out =
        p.apply(Create.timestamped(arrivals).withCoder(EventRefCoder.of()))
            .apply("PairEvents", PairEvents.create().withTimeout(min(10)));
    PAssert.that(out.get(PairEvents.MISMATCHES)).empty();
    PAssert.that(out.get(PairEvents.VERDICTS))
        .satisfies(
            verdicts -> {
              assertEquals(
                  "one MATCH per episode and nothing else",
                  java.util.Set.of(
                      new PairFixtures.Key("k", io.streamrecon.model.Status.MATCH, h0, h0),
                      new PairFixtures.Key("k", io.streamrecon.model.Status.MATCH, h1, h1),
                      new PairFixtures.Key("k", io.streamrecon.model.Status.MATCH, h2, h2)),
                  PairFixtures.keys(verdicts));
              return null;
            });
    PipelineResult result = p.run();
    result.waitUntilFinish();
    assertEquals(3, counter(result, "match"));
    assertEquals(0, counter(result, "missing_in_target"));
    assertEquals(0, counter(result, "missing_in_source"));
    assertEquals(counter(result, "entries_opened"), counter(result, "entries_closed"));
  }

  @Test
  public void eventsOfOneTimeGivePlainMatchesWhenTheOtherSideArrivesFirst() {
    assertTiesGivePlainMatches(true);
  }

  @Test
  public void eventsOfOneTimeGivePlainMatchesWhenTheKeptSideArrivesFirst() {
    assertTiesGivePlainMatches(false);
  }

  /**
   * Key k: the source's old version, then at one instant the source's new version and the target
   * carrying it. Key j: the same with the sides swapped. Either arrival order of the ties must give
   * one MATCH per key and one superseded old version, never an intermediate MISMATCH.
   */
  private void assertTiesGivePlainMatches(boolean targetFirst) {
    String old = hash("old");
    String updated = hash("new");
    {
      TestPipeline pipeline = p;
      EventRef kNew = src("k", min(5), updated);
      EventRef kTarget = tgt("k", min(5), updated);
      EventRef jNew = tgt("j", min(5), updated);
      EventRef jSource = src("j", min(5), updated);
      List<TimestampedValue<EventRef>> arrivals =
          targetFirst
              ? List.of(
                  at(src("k", min(0), old)),
                  at(tgt("j", min(0), old)),
                  at(kTarget),
                  at(jSource),
                  at(kNew),
                  at(jNew))
              : List.of(
                  at(src("k", min(0), old)),
                  at(tgt("j", min(0), old)),
                  at(kNew),
                  at(jNew),
                  at(kTarget),
                  at(jSource));
      PCollectionTuple out =
          pipeline
              .apply(Create.timestamped(arrivals).withCoder(EventRefCoder.of()))
              .apply("PairEvents", PairEvents.create().withTimeout(min(10)));
      PAssert.that(out.get(PairEvents.MISMATCHES)).empty();
      PipelineResult result = pipeline.run();
      result.waitUntilFinish();
      String order = targetFirst ? "other side first" : "kept side first";
      assertEquals(order, 2, counter(result, "match"));
      assertEquals(order, 0, counter(result, "mismatch"));
      assertEquals(order, 2, counter(result, "superseded"));
      assertEquals(order, counter(result, "entries_opened"), counter(result, "entries_closed"));
    }
  }
}
