package io.streamrecon.transforms;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.streamrecon.json.EventParser;
import io.streamrecon.json.InvalidEventException;
import io.streamrecon.json.ParseConfig;
import io.streamrecon.model.DeadLetter;
import io.streamrecon.model.Event;
import io.streamrecon.model.Origin;
import io.streamrecon.model.RawInput;
import io.streamrecon.model.Side;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.metrics.MetricNameFilter;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.MetricsFilter;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.Count;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Instant;
import org.junit.Rule;
import org.junit.Test;

/**
 * 100,000 seeded malformed inputs (random bytes, truncated JSON, huge numbers, deep nesting,
 * invalid UTF-8, empty values) interleaved with good events: every malformed input is a dead letter
 * (an {@link InvalidEventException}, never another exception), every good event parses exactly as
 * it does alone, and the counts add up. The same mix, smaller (2,000), through the {@link
 * ParseEvents} transform on the DirectRunner.
 */
public class ParseEventsFuzzTest {
  @Rule public final transient TestPipeline pipeline = TestPipeline.create();

  private static final long SEED = 20261130L;
  private static final int FUZZED = 100_000;
  private static final int GOOD_EVERY = 25;
  private static final Instant READ_TIME = Instant.parse("2026-06-30T12:00:00Z");

  /** One input of the mix and whether it is a good event. */
  private record Input(RawInput raw, boolean good) {}

  private static String good(int i) {
    return "{\"id\":\"ok-"
        + i
        + "\",\"eventTime\":\"2026-01-01T00:00:00Z\",\"amount\":"
        + (i % 1000)
        + ".5,\"tags\":[\"a\",\""
        + i
        + "\"],\"nested\":{\"k\":null,\"b\":true}}";
  }

  private static List<Input> mix(int fuzzed, long seed) {
    Random random = new Random(seed);
    List<Input> inputs = new ArrayList<>();
    int goods = 0;
    for (int i = 0; i < fuzzed; i++) {
      if (i % GOOD_EVERY == 0) {
        inputs.add(input(inputs.size(), good(goods++).getBytes(StandardCharsets.UTF_8), true));
      }
      inputs.add(input(inputs.size(), fuzz(random, i), false));
    }
    return inputs;
  }

  private static Input input(int line, byte[] bytes, boolean good) {
    return new Input(
        new RawInput(Side.SOURCE, bytes, Origin.fileLine("fuzz.jsonl", line + 1), READ_TIME), good);
  }

  /** A malformed input of one of the kinds; each kind is invalid by construction. */
  static byte[] fuzz(Random random, int i) {
    String g = good(random.nextInt(1_000_000));
    switch (i % 12) {
      case 0: // random bytes, printable or not, never a whole event
        {
          byte[] b = new byte[1 + random.nextInt(200)];
          random.nextBytes(b);
          return b;
        }
      case 1: // a proper prefix of a good event
        return g.substring(0, random.nextInt(g.length())).getBytes(StandardCharsets.UTF_8);
      case 2: // a number of 1,001 to 5,000 digits
        return ("{\"id\":\"h\",\"eventTime\":0,\"n\":"
                + digits(random, 1001 + random.nextInt(4000))
                + "}")
            .getBytes(StandardCharsets.UTF_8);
      case 3: // an event time far beyond year 9999 (epoch millis)
        return ("{\"id\":\"h\",\"eventTime\":" + digits(random, 20 + random.nextInt(300)) + "}")
            .getBytes(StandardCharsets.UTF_8);
      case 4: // nesting deeper than 1000
        {
          int depth = 1001 + random.nextInt(200);
          boolean arrays = random.nextBoolean();
          String open = arrays ? "[" : "{\"a\":";
          String close = arrays ? "]" : "}";
          return ("{\"id\":\"d\",\"eventTime\":0,\"x\":"
                  + open.repeat(depth)
                  + "1"
                  + close.repeat(depth)
                  + "}")
              .getBytes(StandardCharsets.UTF_8);
        }
      case 5: // invalid UTF-8 inside a string (lone continuation, truncated sequence, overlong)
        {
          byte[] prefix = "{\"id\":\"u".getBytes(StandardCharsets.UTF_8);
          byte[][] bad = {
            {(byte) 0x80}, {(byte) 0xE2, (byte) 0x82}, {(byte) 0xC0, (byte) 0xAF}, {(byte) 0xFF}
          };
          byte[] mid = bad[random.nextInt(bad.length)];
          byte[] suffix = "\",\"eventTime\":0}".getBytes(StandardCharsets.UTF_8);
          byte[] b = new byte[prefix.length + mid.length + suffix.length];
          System.arraycopy(prefix, 0, b, 0, prefix.length);
          System.arraycopy(mid, 0, b, prefix.length, mid.length);
          System.arraycopy(suffix, 0, b, prefix.length + mid.length, suffix.length);
          return b;
        }
      case 6:
        return new byte[0];
      case 7:
        return " \t ".getBytes(StandardCharsets.UTF_8);
      case 8:
        return "{}".getBytes(StandardCharsets.UTF_8);
      case 9: // empty or null natural id
        return (random.nextBoolean()
                ? "{\"id\":\"\",\"eventTime\":0}"
                : "{\"id\":null,\"eventTime\":0}")
            .getBytes(StandardCharsets.UTF_8);
      case 10: // empty or null event time
        return (random.nextBoolean()
                ? "{\"id\":\"e\",\"eventTime\":\"\"}"
                : "{\"id\":\"e\",\"eventTime\":null}")
            .getBytes(StandardCharsets.UTF_8);
      default: // a good event with garbage after it
        return (g + (char) ('!' + random.nextInt(90))).getBytes(StandardCharsets.UTF_8);
    }
  }

  private static String digits(Random random, int n) {
    StringBuilder s = new StringBuilder(n);
    s.append((char) ('1' + random.nextInt(9)));
    for (int i = 1; i < n; i++) {
      s.append((char) ('0' + random.nextInt(10)));
    }
    return s.toString();
  }

  @Test
  public void hundredThousandFuzzedInputsAreDeadLettersAndGoodEventsAreUnchanged() {
    List<Input> inputs = mix(FUZZED, SEED);
    EventParser parser = new EventParser(ParseConfig.defaults());
    EventParser alone = new EventParser(ParseConfig.defaults());
    long events = 0;
    long deadLetters = 0;
    int goods = 0;
    for (Input in : inputs) {
      Event event;
      try {
        event = parser.parse(in.raw());
      } catch (InvalidEventException e) {
        if (in.good()) {
          fail("good event became a dead letter: " + e.getMessage());
        }
        assertTrue(e.getMessage() != null && !e.getMessage().isBlank());
        deadLetters++;
        continue;
      } catch (RuntimeException e) {
        throw new AssertionError(
            "input "
                + in.raw().origin().describe()
                + " crashed the parser instead of being a dead letter",
            e);
      }
      if (!in.good()) {
        fail("malformed input " + in.raw().origin().describe() + " parsed as an event");
      }
      // The same event parsed by a fresh parser, with nothing malformed before it.
      Event reference;
      try {
        reference = alone.parse(in.raw());
      } catch (InvalidEventException e) {
        throw new AssertionError(e);
      }
      assertEquals(reference, event);
      assertEquals("ok-" + goods, event.naturalId());
      goods++;
      events++;
    }
    assertEquals(FUZZED, deadLetters);
    assertEquals(FUZZED / GOOD_EVERY, events);
    assertEquals(inputs.size(), events + deadLetters);
  }

  /** The mix through the transform: the same split, and its counters add up. */
  @Test
  public void parseEventsSplitsTheMixIntoGoodEventsAndDeadLetters() {
    int fuzzed = 2_000;
    List<Input> inputs = mix(fuzzed, SEED + 1);
    List<RawInput> raws = new ArrayList<>();
    List<String> goodIds = new ArrayList<>();
    for (Input in : inputs) {
      raws.add(in.raw());
    }
    for (int i = 0; i < fuzzed / GOOD_EVERY; i++) {
      goodIds.add("ok-" + i);
    }
    PCollectionTuple parsed =
        pipeline
            .apply(Create.of(raws).withCoder(ModelCoders.RawInputCoder.of()))
            .apply("ParseEvents", ParseEvents.create());
    PAssert.that(
            parsed
                .get(ParseEvents.EVENTS)
                .apply("Ids", MapElements.into(TypeDescriptors.strings()).via(Event::naturalId)))
        .containsInAnyOrder(goodIds);
    PCollection<Long> deadCount =
        parsed.get(ParseEvents.DEAD_LETTERS).apply("CountDead", Count.globally());
    PAssert.thatSingleton(deadCount).isEqualTo((long) fuzzed);
    PAssert.that(
            parsed
                .get(ParseEvents.DEAD_LETTERS)
                .apply(
                    "Stages",
                    MapElements.into(TypeDescriptors.strings())
                        .via(
                            (DeadLetter d) ->
                                d.stage() + (d.error().isBlank() ? " no error" : ""))))
        .satisfies(
            stages -> {
              stages.forEach(s -> assertEquals(ParseEvents.STAGE, s));
              return null;
            });
    PipelineResult result = pipeline.run();
    result.waitUntilFinish();
    assertEquals(goodIds.size(), counter(result, "events_parsed"));
    assertEquals(fuzzed, counter(result, "dead_letters"));
    assertEquals(inputs.size(), counter(result, "events_parsed") + counter(result, "dead_letters"));
  }

  private static long counter(PipelineResult result, String name) {
    long sum = 0;
    for (MetricResult<Long> c :
        result
            .metrics()
            .queryMetrics(
                MetricsFilter.builder()
                    .addNameFilter(MetricNameFilter.named("streamrecon", name))
                    .build())
            .getCounters()) {
      sum += c.getCommitted(); // attempted values may lag the end of a DirectRunner run
    }
    return sum;
  }
}
