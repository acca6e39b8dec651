package io.streamrecon.transforms;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;

import io.streamrecon.model.DeadLetter;
import io.streamrecon.model.Event;
import io.streamrecon.model.Origin;
import io.streamrecon.model.ParsedInput;
import io.streamrecon.model.RawInput;
import io.streamrecon.model.Side;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.metrics.MetricNameFilter;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.MetricsFilter;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.Filter;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.Reify;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.TimestampedValue;
import org.apache.beam.sdk.values.TypeDescriptor;
import org.joda.time.Instant;
import org.junit.Rule;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.JUnit4;

@RunWith(JUnit4.class)
public class ParseEventsTest {
  @Rule public final transient TestPipeline pipeline = TestPipeline.create();

  /** Later than every event time: the transform must move timestamps backwards. */
  private static final Instant READ_TIME = Instant.parse("2026-06-30T12:00:00Z");

  private static final Instant T1 = Instant.parse("2026-01-01T00:00:00Z");
  private static final String FILE = "source.jsonl";

  private static RawInput line(int number, byte[] bytes) {
    return new RawInput(Side.SOURCE, bytes, Origin.fileLine(FILE, number), READ_TIME);
  }

  private static RawInput line(int number, String text) {
    return line(number, text.getBytes(StandardCharsets.UTF_8));
  }

  private static String sha256(String canonical) throws Exception {
    return HexFormat.of()
        .formatHex(
            MessageDigest.getInstance("SHA-256")
                .digest(canonical.getBytes(StandardCharsets.UTF_8)));
  }

  private static DeadLetter dead(RawInput raw, String error) {
    return new DeadLetter(
        raw.side(), raw.bytes(), error, "ParseEvents", raw.origin(), new Instant(0));
  }

  /** failedAt is "now"; compare everything else exactly. */
  private static PCollection<DeadLetter> withoutFailedAt(PCollection<DeadLetter> deadLetters) {
    return deadLetters
        .apply(
            "WithoutFailedAt",
            MapElements.into(TypeDescriptor.of(DeadLetter.class))
                .via(
                    d ->
                        new DeadLetter(
                            d.side(), d.raw(), d.error(), d.stage(), d.origin(), new Instant(0))))
        .setCoder(ModelCoders.DeadLetterCoder.of());
  }

  /** Inputs of every kind, good and bad, and exactly what parsing them must give. */
  private record Mixed(
      List<TimestampedValue<RawInput>> inputs,
      List<TimestampedValue<Event>> events,
      List<DeadLetter> deadLetters) {}

  private static Mixed mixed() throws Exception {
    String good1 = "{\"id\":\"a\",\"eventTime\":\"2026-01-01T02:00:00+02:00\",\"v\":1.0}";
    String good2 = "{\"id\":42,\"eventTime\":1767225601000}";
    String good3 = "{\"v\":[1,2],\"id\":\"42\",\"eventTime\":\"2026-01-01T00:00:02Z\"}";
    List<RawInput> inputs = new ArrayList<>();
    inputs.add(line(1, good1));
    RawInput notUtf8 =
        line(2, new byte[] {'{', '"', 'i', 'd', '"', ':', '"', (byte) 0xE9, '"', '}'});
    RawInput empty = line(3, new byte[0]);
    RawInput blank = line(4, "  \t ");
    RawInput array = line(5, "[{\"id\":1}]");
    RawInput scalar = line(6, "42");
    RawInput huge = line(7, "{\"id\":1,\"p\":\"" + "x".repeat(10 << 20) + "\"}");
    RawInput deepArrays = line(8, "[".repeat(10_000) + "]".repeat(10_000));
    RawInput deepObjects = line(9, "{\"a\":".repeat(10_000) + "1" + "}".repeat(10_000));
    RawInput truncated = line(10, "{\"id\":\"b\",\"eventTime\":\"2026-01-01T00:00:00Z\"");
    RawInput duplicate = line(11, "{\"id\":\"c\",\"id\":\"d\",\"eventTime\":0}");
    RawInput noTime = line(12, "{\"id\":\"e\"}");
    inputs.addAll(
        List.of(
            notUtf8,
            empty,
            blank,
            array,
            scalar,
            huge,
            deepArrays,
            deepObjects,
            truncated,
            duplicate,
            noTime));
    inputs.add(line(13, good2));
    inputs.add(line(14, good3));

    List<TimestampedValue<RawInput>> timestamped = new ArrayList<>();
    for (RawInput raw : inputs) {
      timestamped.add(TimestampedValue.of(raw, READ_TIME));
    }
    List<TimestampedValue<Event>> events =
        List.of(
            TimestampedValue.of(
                new Event(
                    Side.SOURCE,
                    "a",
                    T1,
                    sha256("{\"eventTime\":\"2026-01-01T02:00:00+02:00\",\"id\":\"a\",\"v\":1}"),
                    good1.getBytes(StandardCharsets.UTF_8),
                    Origin.fileLine(FILE, 1)),
                T1),
            TimestampedValue.of(
                new Event(
                    Side.SOURCE,
                    "42",
                    T1.plus(1000),
                    sha256("{\"eventTime\":1767225601000,\"id\":42}"),
                    good2.getBytes(StandardCharsets.UTF_8),
                    Origin.fileLine(FILE, 13)),
                T1.plus(1000)),
            TimestampedValue.of(
                new Event(
                    Side.SOURCE,
                    "42",
                    T1.plus(2000),
                    sha256("{\"eventTime\":\"2026-01-01T00:00:02Z\",\"id\":\"42\",\"v\":[1,2]}"),
                    good3.getBytes(StandardCharsets.UTF_8),
                    Origin.fileLine(FILE, 14)),
                T1.plus(2000)));

    String tooDeep =
        "JSON exceeds a parser limit: Depth (1001) exceeds the maximum allowed nesting depth"
            + " (1000)";
    List<DeadLetter> deadLetters =
        List.of(
            dead(notUtf8, "not valid UTF-8: malformed byte sequence at byte offset 7"),
            dead(empty, "empty input"),
            dead(blank, "blank input (only whitespace)"),
            dead(array, "an event must be a JSON object, got an array"),
            dead(scalar, "an event must be a JSON object, got a number"),
            dead(
                huge,
                "event is " + huge.bytes().length + " bytes, more than maxEventBytes (4194304)"),
            dead(deepArrays, tooDeep),
            dead(deepObjects, tooDeep),
            dead(truncated, "truncated JSON: unexpected end of input at line 1, column 45"),
            dead(
                duplicate,
                "duplicate key /id at line 1, column 15; duplicate keys make an event ambiguous"),
            dead(noTime, "timeField /eventTime is missing"));
    return new Mixed(timestamped, events, deadLetters);
  }

  @Test
  public void mixedBundleGivesExactEventsAndDeadLetters() throws Exception {
    Mixed mixed = mixed();
    long startedAt = Instant.now().getMillis();
    PCollectionTuple parsed =
        pipeline
            .apply(Create.timestamped(mixed.inputs()).withCoder(ModelCoders.RawInputCoder.of()))
            .apply("ParseEvents", ParseEvents.create());

    PAssert.that(parsed.get(ParseEvents.EVENTS).apply(Reify.timestamps()))
        .containsInAnyOrder(mixed.events());
    PAssert.that(withoutFailedAt(parsed.get(ParseEvents.DEAD_LETTERS)))
        .containsInAnyOrder(mixed.deadLetters());

    PAssert.that(parsed.get(ParseEvents.DEAD_LETTERS))
        .satisfies(
            deadLetters -> {
              for (DeadLetter d : deadLetters) {
                assertFalse("failedAt is when it failed", d.failedAt().isBefore(startedAt));
              }
              return null;
            });

    PipelineResult result = pipeline.run();
    result.waitUntilFinish();
    assertEquals(3, counter(result, "events_parsed"));
    assertEquals(11, counter(result, "dead_letters"));
  }

  @Test
  public void outcomesCarryTheSameEventsAndDeadLettersInOneCollection() throws Exception {
    Mixed mixed = mixed();
    PCollection<ParsedInput> outcomes =
        pipeline
            .apply(Create.timestamped(mixed.inputs()).withCoder(ModelCoders.RawInputCoder.of()))
            .apply("ParseEvents", ParseEvents.create().parsedInputs());

    PAssert.that(
            outcomes
                .apply("EventsOnly", Filter.by(ParsedInput::parsed))
                .apply(
                    "TheEvent",
                    MapElements.into(TypeDescriptor.of(Event.class)).via(ParsedInput::event))
                .setCoder(ModelCoders.EventCoder.of())
                .apply(Reify.timestamps()))
        .containsInAnyOrder(mixed.events());
    PAssert.that(
            withoutFailedAt(
                outcomes
                    .apply("DeadLettersOnly", Filter.by(o -> !o.parsed()))
                    .apply(
                        "TheDeadLetter",
                        MapElements.into(TypeDescriptor.of(DeadLetter.class))
                            .via(ParsedInput::deadLetter))
                    .setCoder(ModelCoders.DeadLetterCoder.of())))
        .containsInAnyOrder(mixed.deadLetters());

    PipelineResult result = pipeline.run();
    result.waitUntilFinish();
    assertEquals(3, counter(result, "events_parsed"));
    assertEquals(11, counter(result, "dead_letters"));
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
      sum += c.getAttempted();
    }
    return sum;
  }

  @Test
  public void appliesTheConfiguration() throws Exception {
    String json = "{\"tenant\":\"acme\",\"id\":7,\"audit\":{\"at\":\"x\"},\"v\":true}";
    RawInput raw = line(1, json);
    PCollectionTuple parsed =
        pipeline
            .apply(
                Create.timestamped(TimestampedValue.of(raw, READ_TIME))
                    .withCoder(ModelCoders.RawInputCoder.of()))
            .apply(
                "ParseEvents",
                ParseEvents.create()
                    .withKeyFields(List.of("/tenant", "/id"))
                    .withTimeField("")
                    .withIgnoreFields(List.of("/audit"))
                    .withMaxEventBytes(1024));
    PAssert.that(parsed.get(ParseEvents.EVENTS).apply(Reify.timestamps()))
        .containsInAnyOrder(
            TimestampedValue.of(
                new Event(
                    Side.SOURCE,
                    "[\"acme\",\"7\"]",
                    READ_TIME,
                    sha256("{\"id\":7,\"tenant\":\"acme\",\"v\":true}"),
                    json.getBytes(StandardCharsets.UTF_8),
                    Origin.fileLine(FILE, 1)),
                READ_TIME));
    PAssert.that(parsed.get(ParseEvents.DEAD_LETTERS)).empty();
    pipeline.run().waitUntilFinish();
  }

  @Test
  public void settingsAreValidatedWhenSet() {
    assertThat(
        assertThrows(
                IllegalArgumentException.class, () -> ParseEvents.create().withMaxEventBytes(-1))
            .getMessage(),
        containsString("maxEventBytes must be between 1 and 67108864"));
    assertThat(
        assertThrows(
                IllegalArgumentException.class,
                () -> ParseEvents.create().withKeyFields(List.of("id")))
            .getMessage(),
        containsString("keyFields: 'id' is not a JSON Pointer"));
    assertEquals(
        List.of("/x"),
        ParseEvents.create().withIgnoreFields(List.of("/x")).config().ignoreFields());
  }
}
