package io.streamrecon.transforms;

import io.streamrecon.json.ComparisonRules;
import io.streamrecon.json.EventParser;
import io.streamrecon.json.InvalidEventException;
import io.streamrecon.json.ParseConfig;
import io.streamrecon.model.DeadLetter;
import io.streamrecon.model.EventRef;
import io.streamrecon.model.MetricNames;
import io.streamrecon.model.StoredEvent;
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
import org.joda.time.Instant;

/**
 * Computes the canonical hash of stored events again under other ignored fields and comparison
 * rules, with the parser {@link ParseEvents} hashes with, so that a stored event is judged as a run
 * under these rules would judge it. Natural id, event time and {@link io.streamrecon.model.Pointer}
 * stay those stored (the pointer keeps the stored hash as its fallback key); the element timestamp
 * is kept.
 *
 * <p>Outputs the re-hashed {@link EventRef}s under {@link #EVENTS}, and under {@link #DEAD_LETTERS}
 * every stored payload that cannot be hashed (stage {@value #STAGE}), with its bytes and origin.
 *
 * <p>Metrics (namespace {@code streamrecon}): {@code events_rehashed}, {@code
 * events_rehashed_changed} (the hash differs from the stored one), {@code dead_letters}.
 */
public final class RehashEvents extends PTransform<PCollection<StoredEvent>, PCollectionTuple> {
  private static final long serialVersionUID = 1L;

  /** The stored events with their new hash. */
  public static final TupleTag<EventRef> EVENTS = new TupleTag<EventRef>("events") {};

  /** Stored payloads that could not be hashed. */
  public static final TupleTag<DeadLetter> DEAD_LETTERS =
      new TupleTag<DeadLetter>("deadLetters") {};

  /** The {@link DeadLetter#stage()} of this transform's dead letters. */
  public static final String STAGE = "RehashEvents";

  private final List<String> ignoreFields;
  private final ComparisonRules rules;

  private RehashEvents(List<String> ignoreFields, ComparisonRules rules) {
    this.ignoreFields = ignoreFields;
    this.rules = rules;
  }

  /** No ignored fields, no rules. */
  public static RehashEvents create() {
    return new RehashEvents(List.of(), ComparisonRules.none());
  }

  /** JSON Pointers removed before hashing, as {@link ParseEvents#withIgnoreFields}. */
  public RehashEvents withIgnoreFields(List<String> ignoreFields) {
    // Validated as ParseEvents validates them.
    ParseConfig.defaults().withIgnoreFields(ignoreFields);
    return new RehashEvents(List.copyOf(ignoreFields), rules);
  }

  /** Comparison rules applied before hashing, as {@link ParseEvents#withRules}. */
  public RehashEvents withRules(ComparisonRules rules) {
    if (rules == null) {
      throw new IllegalArgumentException("rules must not be null; use ComparisonRules.none()");
    }
    return new RehashEvents(ignoreFields, rules);
  }

  @Override
  public PCollectionTuple expand(PCollection<StoredEvent> input) {
    EventParser parser =
        new EventParser(ParseConfig.defaults().withIgnoreFields(ignoreFields), rules);
    PCollectionTuple result =
        input.apply(
            "HashPayloads",
            ParDo.of(new RehashFn(parser)).withOutputTags(EVENTS, TupleTagList.of(DEAD_LETTERS)));
    result.get(EVENTS).setCoder(ModelCoders.EventRefCoder.of());
    result.get(DEAD_LETTERS).setCoder(ModelCoders.DeadLetterCoder.of());
    return result;
  }

  static final class RehashFn extends DoFn<StoredEvent, EventRef> {
    private static final long serialVersionUID = 1L;

    private final EventParser parser;
    private final Counter rehashed = Metrics.counter("streamrecon", "events_rehashed");
    private final Counter changed = Metrics.counter("streamrecon", "events_rehashed_changed");
    private final Counter deadLetters = Metrics.counter(MetricNames.NAMESPACE, "dead_letters");
    private transient EventParser.Scratch scratch;

    RehashFn(EventParser parser) {
      this.parser = parser;
    }

    @Setup
    public void setup() {
      scratch = new EventParser.Scratch();
    }

    @ProcessElement
    public void process(@Element StoredEvent stored, MultiOutputReceiver out) {
      EventRef ref = stored.ref();
      String sha256;
      try {
        sha256 = parser.sha256(ref.side(), stored.payload(), scratch);
      } catch (InvalidEventException e) {
        deadLetters.inc();
        out.get(DEAD_LETTERS)
            .output(
                new DeadLetter(
                    ref.side(),
                    stored.payload(),
                    e.getMessage(),
                    STAGE,
                    stored.origin(),
                    Instant.now()));
        return;
      }
      rehashed.inc();
      if (!sha256.equals(ref.sha256())) {
        changed.inc();
      }
      out.get(EVENTS)
          .output(
              new EventRef(ref.side(), ref.naturalId(), ref.eventTime(), sha256, ref.pointer()));
    }
  }
}
