package io.streamrecon.transforms;

import io.streamrecon.json.ComparisonRules;
import io.streamrecon.json.EventParser;
import io.streamrecon.json.InvalidEventException;
import io.streamrecon.json.ParseConfig;
import io.streamrecon.model.DeadLetter;
import io.streamrecon.model.Event;
import io.streamrecon.model.MetricNames;
import io.streamrecon.model.ParsedInput;
import io.streamrecon.model.RawInput;
import java.util.List;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.TupleTagList;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * Parses raw input into {@link Event}s (docs/design.md#events-and-natural-ids) with {@link
 * EventParser}.
 *
 * <p>Outputs, under {@link #EVENTS}, every event with its element timestamp set to its event time,
 * and under {@link #DEAD_LETTERS} every input that cannot be an event (not UTF-8, not one JSON
 * object, too large or too deep, duplicate keys, no usable id or time) with its raw bytes, the
 * reason, stage {@value #STAGE}, its origin and the time it failed. Bad input never fails the
 * pipeline and never affects other elements of its bundle.
 *
 * <p>Metrics (namespace {@code streamrecon}): {@code events_parsed}, {@code dead_letters}.
 *
 * <pre>{@code
 * PCollectionTuple parsed = raw.apply("ParseEvents",
 *     ParseEvents.create()
 *         .withKeyFields(List.of("/tenant", "/id"))
 *         .withIgnoreFields(List.of("/meta")));
 * PCollection<Event> events = parsed.get(ParseEvents.EVENTS);
 * PCollection<DeadLetter> bad = parsed.get(ParseEvents.DEAD_LETTERS);
 * }</pre>
 *
 * <p>{@link #parsedInputs()} gives the same results in one collection of {@link ParsedInput}s, for
 * a consumer that takes both (the raw_events writer of a bounded run).
 */
public final class ParseEvents extends PTransform<PCollection<RawInput>, PCollectionTuple> {
  private static final long serialVersionUID = 1L;

  /** Parsed events, timestamped with their event time. */
  public static final TupleTag<Event> EVENTS = new TupleTag<Event>("events") {};

  /** Inputs that could not be parsed. */
  public static final TupleTag<DeadLetter> DEAD_LETTERS =
      new TupleTag<DeadLetter>("deadLetters") {};

  /** The {@link DeadLetter#stage()} of this transform's dead letters. */
  public static final String STAGE = "ParseEvents";

  private final ParseConfig config;
  private final ComparisonRules rules;

  private ParseEvents(ParseConfig config, ComparisonRules rules) {
    this.config = config;
    this.rules = rules;
  }

  /** Key {@code /id}, time {@code /eventTime}, nothing ignored, at most 4 MiB per event. */
  public static ParseEvents create() {
    return new ParseEvents(ParseConfig.defaults(), ComparisonRules.none());
  }

  /**
   * Comparison rules (docs/design.md#comparison-rules) applied to each document before it is
   * hashed. Default none.
   */
  public ParseEvents withRules(ComparisonRules rules) {
    if (rules == null) {
      throw new IllegalArgumentException("rules must not be null; use ComparisonRules.none()");
    }
    return new ParseEvents(config, rules);
  }

  /** JSON Pointers of the natural id; several form a composite key. Default {@code ["/id"]}. */
  public ParseEvents withKeyFields(List<String> keyFields) {
    return new ParseEvents(config.withKeyFields(keyFields), rules);
  }

  /** JSON Pointer of the event time, or {@code ""} for the record's own time. */
  public ParseEvents withTimeField(String timeField) {
    return new ParseEvents(config.withTimeField(timeField), rules);
  }

  /** JSON Pointers removed before hashing. Default none. */
  public ParseEvents withIgnoreFields(List<String> ignoreFields) {
    return new ParseEvents(config.withIgnoreFields(ignoreFields), rules);
  }

  /** Largest accepted input in bytes, 1 to 64 MiB. Default 4 MiB. */
  public ParseEvents withMaxEventBytes(int maxEventBytes) {
    return new ParseEvents(config.withMaxEventBytes(maxEventBytes), rules);
  }

  /** The configuration in effect. */
  public ParseConfig config() {
    return config;
  }

  /**
   * The same parsing with one output: each input's event (timestamped with its event time) or dead
   * letter, as a {@link ParsedInput}. A ParDo with two consumed outputs is persisted whole by the
   * classic SparkRunner in batch, payloads included; one output consumed once is not.
   */
  public ParsedInputs parsedInputs() {
    return new ParsedInputs(config, rules);
  }

  @Override
  public PCollectionTuple expand(PCollection<RawInput> input) {
    PCollectionTuple result =
        input.apply(
            "ParseJson",
            ParDo.of(new ParseFn(new EventParser(config, rules)))
                .withOutputTags(EVENTS, TupleTagList.of(DEAD_LETTERS)));
    result.get(EVENTS).setCoder(ModelCoders.EventCoder.of());
    result.get(DEAD_LETTERS).setCoder(ModelCoders.DeadLetterCoder.of());
    return result;
  }

  /** {@link ParseEvents} with one output of {@link ParsedInput}s; see {@link #parsedInputs()}. */
  public static final class ParsedInputs
      extends PTransform<PCollection<RawInput>, PCollection<ParsedInput>> {
    private static final long serialVersionUID = 1L;

    private final ParseConfig config;
    private final ComparisonRules rules;

    private ParsedInputs(ParseConfig config, ComparisonRules rules) {
      this.config = config;
      this.rules = rules;
    }

    @Override
    public PCollection<ParsedInput> expand(PCollection<RawInput> input) {
      return input
          .apply("ParseJson", ParDo.of(new OutcomeFn(new EventParser(config, rules))))
          .setCoder(ModelCoders.ParsedInputCoder.of());
    }
  }

  /**
   * Parses one input with the DoFn's scratch into its event or dead letter; never throws for bad
   * input. The one place both DoFns parse, so their results cannot differ.
   */
  abstract static class ParsingFn<OutputT> extends DoFn<RawInput, OutputT> {
    private static final long serialVersionUID = 1L;

    private final EventParser parser;
    private final Counter parsed = Metrics.counter(MetricNames.NAMESPACE, "events_parsed");
    private final Counter deadLetters = Metrics.counter(MetricNames.NAMESPACE, "dead_letters");
    // Per DoFn instance, which Beam calls from one thread at a time.
    private transient EventParser.Scratch scratch;

    ParsingFn(EventParser parser) {
      this.parser = parser;
    }

    @Setup
    public void setup() {
      scratch = new EventParser.Scratch();
    }

    /** The input's event or dead letter, counted. */
    final ParsedInput parse(RawInput raw) {
      Event event;
      try {
        event = parser.parse(raw, scratch);
      } catch (InvalidEventException e) {
        deadLetters.inc();
        return ParsedInput.of(
            new DeadLetter(
                raw.side(), raw.bytes(), e.getMessage(), STAGE, raw.origin(), Instant.now()));
      }
      parsed.inc();
      return ParsedInput.of(event);
    }

    /**
     * Any skew: the event time may be far earlier than the input's timestamp. File sources stamp
     * lines with the read time and Kafka with the record time, both usually later than when the
     * event happened; replays and backfills are hours or years later. Moving the timestamp back
     * makes such an event late for downstream event-time logic, which PairEvents handles (allowed
     * lateness, late_events), rather than a failure here. Event times are bounded to years
     * 0001..9999 by {@link EventParser}, well inside Beam's timestamp range.
     */
    @SuppressWarnings("deprecation") // the only way to let a DoFn move timestamps backwards
    @Override
    public Duration getAllowedTimestampSkew() {
      return Duration.millis(Long.MAX_VALUE);
    }
  }

  /** Events to {@link #EVENTS}, bad input to {@link #DEAD_LETTERS}. */
  static final class ParseFn extends ParsingFn<Event> {
    private static final long serialVersionUID = 1L;

    ParseFn(EventParser parser) {
      super(parser);
    }

    @ProcessElement
    public void processElement(@Element RawInput raw, MultiOutputReceiver out) {
      ParsedInput parsed = parse(raw);
      if (parsed.parsed()) {
        out.get(EVENTS).outputWithTimestamp(parsed.event(), parsed.event().eventTime());
      } else {
        out.get(DEAD_LETTERS).output(parsed.deadLetter());
      }
    }
  }

  /**
   * Both kinds of result to the one output, as {@link ParsedInput}s. Its name is part of the step
   * name {@code ParseEvents/ParseJson/ParMultiDo(Outcome)}, which a restored job finds its state
   * by, so it keeps it.
   */
  static final class OutcomeFn extends ParsingFn<ParsedInput> {
    private static final long serialVersionUID = 1L;

    OutcomeFn(EventParser parser) {
      super(parser);
    }

    @ProcessElement
    public void processElement(@Element RawInput raw, OutputReceiver<ParsedInput> out) {
      ParsedInput parsed = parse(raw);
      if (parsed.parsed()) {
        out.outputWithTimestamp(parsed, parsed.event().eventTime());
      } else {
        out.output(parsed);
      }
    }
  }
}
