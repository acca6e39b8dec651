package io.streamrecon.transforms.pairing;

import static io.streamrecon.transforms.pairing.PairFixtures.T0;
import static io.streamrecon.transforms.pairing.PairFixtures.at;
import static io.streamrecon.transforms.pairing.PairFixtures.hash;
import static io.streamrecon.transforms.pairing.PairFixtures.min;
import static io.streamrecon.transforms.pairing.PairFixtures.src;
import static io.streamrecon.transforms.pairing.PairFixtures.tgt;
import static org.junit.Assert.assertEquals;

import io.streamrecon.model.EventRef;
import io.streamrecon.model.LateEvent;
import io.streamrecon.model.Status;
import io.streamrecon.model.Verdict;
import io.streamrecon.transforms.ModelCoders.EventRefCoder;
import io.streamrecon.transforms.WatermarkSource;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.Rule;
import org.junit.Test;

/**
 * PairEvents with a {@link WatermarkSource} (the pairing Spark streaming runs) on the DirectRunner:
 * the processing-time callbacks come from TestStream, the watermark from a source the test sets, so
 * the DirectRunner's own watermark (which goes to infinity) expires nothing.
 */
public class PairEventsPolledWatermarkTest {
  private static final String A = hash("a");

  @Rule public final transient TestPipeline p = TestPipeline.create();

  /** A watermark the test names and sets; static, as the DoFn is serialized. */
  private static final class NamedWatermark implements WatermarkSource {
    private static final long serialVersionUID = 1L;
    static final Map<String, Instant> VALUES = new ConcurrentHashMap<>();
    private final String name;

    NamedWatermark(String name, Instant value) {
      this.name = name;
      VALUES.put(name, value);
    }

    @Override
    public Instant inputWatermark() {
      return VALUES.get(name);
    }
  }

  @Test
  public void entriesExpireAndLateEventsAreRoutedByTheSourcesWatermarkOnly() {
    EventRef due = src("due", min(0), A);
    EventRef open = src("open", min(30), A);
    EventRef paired = src("paired", min(25), A);
    EventRef partner = tgt("paired", min(28), A);
    EventRef dayOld = tgt("day-old", Duration.standardDays(-1), A);
    Instant watermark = T0.plus(min(20));
    PCollectionTuple out =
        p.apply(
                TestStream.create(EventRefCoder.of())
                    .addElements(at(due), at(open), at(paired))
                    .advanceProcessingTime(Duration.standardMinutes(1))
                    .addElements(at(partner), at(dayOld))
                    .advanceProcessingTime(Duration.standardMinutes(1))
                    .advanceProcessingTime(Duration.standardHours(5))
                    .advanceWatermarkToInfinity())
            .apply(
                "PairEvents",
                PairEvents.create()
                    // Longer than the timeout, so that "due" is not late but its entry expires.
                    .withAllowedLateness(Duration.standardHours(1))
                    .withWatermarkSource(new NamedWatermark("fixed", watermark)));
    PAssert.that(out.get(PairEvents.VERDICTS))
        .containsInAnyOrder(
            Verdict.of("due", Status.MISSING_IN_TARGET, due, null, null),
            Verdict.of("paired", Status.MATCH, paired, partner, null));
    PAssert.that(out.get(PairEvents.LATE)).containsInAnyOrder(new LateEvent(dayOld, watermark));
    PAssert.that(out.get(PairEvents.MISMATCHES)).empty();
    // The outputs carry the input's allowed lateness again, not the pairing's own.
    assertEquals(
        Duration.ZERO, out.get(PairEvents.VERDICTS).getWindowingStrategy().getAllowedLateness());
    p.run();
  }
}
