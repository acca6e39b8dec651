package io.streamrecon.transforms.pairing;

import io.streamrecon.model.EventRef;
import io.streamrecon.model.LateEvent;
import io.streamrecon.model.MetricNames;
import io.streamrecon.model.Verdict;
import io.streamrecon.transforms.ModelCoders.EventRefCoder;
import io.streamrecon.transforms.ModelCoders.LateEventCoder;
import io.streamrecon.transforms.ModelCoders.VerdictCoder;
import io.streamrecon.transforms.WatermarkSource;
import io.streamrecon.transforms.pairing.sparkstreaming.GatherBucketsFn;
import java.io.Serializable;
import java.util.List;
import java.util.Objects;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.ListCoder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.display.DisplayData;
import org.apache.beam.sdk.transforms.windowing.GlobalWindows;
import org.apache.beam.sdk.transforms.windowing.WindowFn;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.TimestampedValue;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.TupleTagList;
import org.apache.beam.sdk.values.TypeDescriptor;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.apache.beam.sdk.values.WindowingStrategy;
import org.joda.time.Duration;

/**
 * Pairs source and target events by natural id (docs/design.md#pairing) and decides, from hashes
 * alone, MATCH, MISMATCH, MISSING_IN_TARGET or MISSING_IN_SOURCE. Payloads are never touched: a
 * MISMATCH goes to {@link #MISMATCHES} so that the caller fetches both payloads and diffs them.
 *
 * <p>Per natural id, the first event opens an entry at its event time {@code t0}; an other-side
 * event within {@link #withTimeout timeout} of {@code t0} pairs at once; the entry then stays until
 * it expires, so that redeliveries (duplicates, counted and dropped) and new versions (a later
 * event time with another hash: compared again, the new verdict names the replaced one in {@link
 * Verdict#supersedes()}) are recognised. An unpaired entry expires as MISSING_*. An event more than
 * the timeout away from {@code t0} finishes the entry and opens a new one.
 *
 * <p>Outputs, each with an explicit coder:
 *
 * <ul>
 *   <li>{@link #MISMATCHES}: MISMATCH verdicts, both events present.
 *   <li>{@link #VERDICTS}: MATCH, MISSING_IN_TARGET and MISSING_IN_SOURCE verdicts. A MATCH with
 *       {@code supersedes} set resolves an earlier MISMATCH; callers that drop MATCHes should keep
 *       those.
 *   <li>{@link #LATE}: events later than the input watermark by more than the {@link
 *       #withAllowedLateness allowed lateness}; never paired, never dropped.
 * </ul>
 *
 * <p>Expiry ({@link #withExpiry}): {@link Expiry#EVENT_TIME} (default) expires an entry when the
 * input watermark passes {@code t0 + timeout}; on a runner that tracks the watermark but rejects
 * event-time timers in stateful DoFns (Beam's classic SparkRunner in streaming mode) the pairing
 * reads it from a {@link #withWatermarkSource watermark source} instead, with the same outcome.
 * That runner also loads and stores a key's state on every call, so with a watermark source a
 * {@code GatherBuckets} step first gathers a bundle's events per bucket and the pairing applies
 * them in one call, in event-time order. {@link Expiry#PROCESSING_TIME} expires an entry a {@link
 * #withProcessingGrace grace} of wall-clock time after the key's last event, so verdicts depend on
 * how fast the input is read; no event is routed to {@link #LATE}. It needs an unbounded input:
 * runners need not fire processing-time timers after a bounded input ends (the DirectRunner does
 * not), which would leave entries open.
 *
 * <p>Metrics in namespace {@value #METRIC_NAMESPACE}: {@code match}, {@code mismatch}, {@code
 * missing_in_target}, {@code missing_in_source}, {@code duplicate}, {@code superseded}, {@code
 * late}, {@code events_in_verdicts}, {@code entries_opened}, {@code entries_closed}, {@code
 * stale_timer_firings}, {@code stale_watermarks}. Every input event is counted once: events in =
 * late + duplicate + superseded + events_in_verdicts + events kept in still open entries (none once
 * the watermark reached the end of time).
 *
 * <p><b>State layout</b>: the pairing is keyed by a bucket of the natural id ({@link #withBuckets},
 * default {@value #DEFAULT_BUCKETS}), so a runner holds at most that many keys and timers however
 * many natural ids it has seen; entries live per natural id inside their bucket's state, about 96
 * bytes per open entry, and nothing once they expired (see {@code PairEventsFn}).
 *
 * <p>The input must be in the global window: an entry lives across any window boundary.
 */
public final class PairEvents extends PTransform<PCollection<EventRef>, PCollectionTuple> {
  private static final long serialVersionUID = 1L;

  /** MISMATCH verdicts: both payloads must be fetched and diffed. The main output. */
  public static final TupleTag<Verdict> MISMATCHES = new TupleTag<Verdict>("mismatches") {};

  /** MATCH, MISSING_IN_TARGET and MISSING_IN_SOURCE verdicts. */
  public static final TupleTag<Verdict> VERDICTS = new TupleTag<Verdict>("verdicts") {};

  /** Events past the allowed lateness, with the watermark they missed. */
  public static final TupleTag<LateEvent> LATE = new TupleTag<LateEvent>("late") {};

  /** Namespace of every counter below. */
  public static final String METRIC_NAMESPACE = MetricNames.NAMESPACE;

  public static final String METRIC_MATCH = "match";
  public static final String METRIC_MISMATCH = "mismatch";
  public static final String METRIC_MISSING_IN_TARGET = "missing_in_target";
  public static final String METRIC_MISSING_IN_SOURCE = "missing_in_source";
  public static final String METRIC_DUPLICATE = "duplicate";
  public static final String METRIC_SUPERSEDED = "superseded";
  public static final String METRIC_LATE = "late";
  public static final String METRIC_EVENTS_IN_VERDICTS = "events_in_verdicts";
  public static final String METRIC_ENTRIES_OPENED = "entries_opened";
  public static final String METRIC_ENTRIES_CLOSED = "entries_closed";
  public static final String METRIC_STALE_TIMER_FIRINGS = "stale_timer_firings";

  /** Expiries moved past the first processing-time grace after a (re)start; see expiry. */
  public static final String METRIC_EXPIRIES_POSTPONED = "expiries_postponed_after_start";

  /** Watermark readings older than one the bucket had already seen, ignored; see expiry. */
  public static final String METRIC_STALE_WATERMARKS = "stale_watermarks";

  /** Default {@link #withTimeout timeout} (docs/design.md#pairing). */
  public static final Duration DEFAULT_TIMEOUT = Duration.standardMinutes(10);

  /** Which clock expires an entry; the one home of this choice, option parsing included. */
  public enum Expiry {
    /**
     * When the watermark passes {@code t0 + timeout} (an event-time timer, or the watermark read
     * from a {@link WatermarkSource}); late events detected. The default.
     */
    EVENT_TIME,
    /** Processing-time timer a grace after the key's last event; no lateness detection. */
    PROCESSING_TIME
  }

  /**
   * The settings; {@code allowedLateness} and {@code processingGrace} are {@code null} while they
   * follow the timeout.
   */
  private record Settings(
      Duration timeout,
      Duration allowedLateness,
      Expiry expiry,
      Duration processingGrace,
      int buckets,
      boolean emitMatches,
      WatermarkSource watermarkSource)
      implements Serializable {
    Settings withBuckets(int n) {
      return new Settings(
          timeout, allowedLateness, expiry, processingGrace, n, emitMatches, watermarkSource);
    }

    Settings withWatermarkSource(WatermarkSource source) {
      return new Settings(
          timeout, allowedLateness, expiry, processingGrace, buckets, emitMatches, source);
    }
  }

  /**
   * Default {@link #withBuckets bucket count}: the number of runner keys the pairing uses. 1024
   * because: Flink spreads keys over key groups ({@code maxParallelism}, 128 by default), and 8
   * buckets per key group keep their load even where 128 buckets would leave some groups empty and
   * others with 3 or 4; Spark streaming sends every key ever seen through the DoFn on every
   * micro-batch, a cost that grows with the count; the DirectRunner scans every pending timer (one
   * per bucket, plus its end-of-window cleanup timer per key) on each watermark refresh; and a
   * bucket's state stays small (1M open entries are about 1,000 per bucket, 95 KB), which matters
   * on Spark streaming, whose {@code MapState} is one coded value per key that every access decodes
   * whole.
   */
  public static final int DEFAULT_BUCKETS = 1024;

  /** Largest {@link #withBuckets bucket count}; beyond it per-key runner overhead dominates. */
  public static final int MAX_BUCKETS = 1 << 16;

  private final Settings settings;

  private PairEvents(Settings settings) {
    this.settings = settings;
  }

  /**
   * Pairing with a 10 minute timeout, event-time expiry, allowed lateness and processing grace
   * equal to the timeout.
   */
  public static PairEvents create() {
    return new PairEvents(
        new Settings(DEFAULT_TIMEOUT, null, Expiry.EVENT_TIME, null, DEFAULT_BUCKETS, true, null));
  }

  /**
   * How far apart in event time (from the entry's first event, {@code t0}) two events may be and
   * still pair; also how long an entry lives. Must be &gt; 0. Default 10 minutes.
   */
  public PairEvents withTimeout(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    if (!timeout.isLongerThan(Duration.ZERO)) {
      throw new IllegalArgumentException("timeout must be > 0, got " + timeout);
    }
    return new PairEvents(
        new Settings(
            timeout,
            settings.allowedLateness(),
            settings.expiry(),
            settings.processingGrace(),
            settings.buckets(),
            settings.emitMatches(),
            settings.watermarkSource()));
  }

  /**
   * How far behind the input watermark an event's time may be and still be paired; a later event
   * goes to {@link #LATE}. Must be &gt;= 0. Default: the timeout, because an event later than that
   * has, in all but edge cases, missed the entry its partner opened (it expired when the watermark
   * passed the partner's time plus the timeout); pairing it would report a merely late record as
   * MISSING_*, while {@link #LATE} says what happened. Ignored with {@link Expiry#PROCESSING_TIME}.
   */
  public PairEvents withAllowedLateness(Duration allowedLateness) {
    Objects.requireNonNull(allowedLateness, "allowedLateness");
    if (allowedLateness.isShorterThan(Duration.ZERO)) {
      throw new IllegalArgumentException("allowedLateness must be >= 0, got " + allowedLateness);
    }
    return new PairEvents(
        new Settings(
            settings.timeout(),
            allowedLateness,
            settings.expiry(),
            settings.processingGrace(),
            settings.buckets(),
            settings.emitMatches(),
            settings.watermarkSource()));
  }

  /**
   * Which clock expires an entry. Default {@link Expiry#EVENT_TIME}. {@link Expiry#PROCESSING_TIME}
   * makes verdicts depend on wall-clock timing; it needs an unbounded input and turns lateness
   * detection off.
   */
  public PairEvents withExpiry(Expiry expiry) {
    Objects.requireNonNull(expiry, "expiry");
    return new PairEvents(
        new Settings(
            settings.timeout(),
            settings.allowedLateness(),
            expiry,
            settings.processingGrace(),
            settings.buckets(),
            settings.emitMatches(),
            settings.watermarkSource()));
  }

  /**
   * With {@link Expiry#PROCESSING_TIME}: wall-clock time after a key's last event before its entry
   * expires. Must be &gt; 0. Default: the timeout. Ignored with {@link Expiry#EVENT_TIME}.
   */
  public PairEvents withProcessingGrace(Duration processingGrace) {
    Objects.requireNonNull(processingGrace, "processingGrace");
    if (!processingGrace.isLongerThan(Duration.ZERO)) {
      throw new IllegalArgumentException("processingGrace must be > 0, got " + processingGrace);
    }
    return new PairEvents(
        new Settings(
            settings.timeout(),
            settings.allowedLateness(),
            settings.expiry(),
            processingGrace,
            settings.buckets(),
            settings.emitMatches(),
            settings.watermarkSource()));
  }

  /**
   * How many buckets natural ids are hashed into: the pairing is keyed by bucket, so this bounds
   * the number of keys, timers and per-key bookkeeping a runner holds, whatever the number of
   * distinct natural ids. Must be in [1, {@value #MAX_BUCKETS}]. Default {@value #DEFAULT_BUCKETS}
   * (see {@link #DEFAULT_BUCKETS} for why). State restored from a checkpoint must be read with the
   * same count: a natural id's bucket depends on it.
   */
  public PairEvents withBuckets(int buckets) {
    if (buckets < 1 || buckets > MAX_BUCKETS) {
      throw new IllegalArgumentException(
          "buckets must be in [1, " + MAX_BUCKETS + "], got " + buckets);
    }
    return new PairEvents(settings.withBuckets(buckets));
  }

  /**
   * Whether a MATCH verdict that supersedes nothing goes to {@link #VERDICTS}. Default true. Off,
   * such a verdict is only counted (metric {@value #METRIC_MATCH}), for a pipeline that stores
   * differences only: it does not carry every matching pair on (the classic SparkRunner persists
   * this transform's whole output in batch, and MATCHes are most of it). A MATCH that supersedes an
   * earlier verdict is always emitted: it corrects what was reported. Set from {@code
   * --emitMatches}.
   */
  public PairEvents withEmitMatches(boolean emitMatches) {
    return new PairEvents(
        new Settings(
            settings.timeout(),
            settings.allowedLateness(),
            settings.expiry(),
            settings.processingGrace(),
            settings.buckets(),
            emitMatches,
            settings.watermarkSource()));
  }

  /**
   * With {@link Expiry#EVENT_TIME} on an unbounded input: read the input watermark from {@code
   * source} instead of from event-time timers, for a runner that tracks the watermark but rejects
   * event-time timers in stateful DoFns (Beam's classic SparkRunner in streaming mode, whose runner
   * module provides one: {@link WatermarkSource#forRunner}). Entries then expire, and late events
   * are detected, exactly as with event-time timers, in the runner's next call of the bucket after
   * the watermark passed them; a processing-time timer only provides that call. Ignored for a
   * bounded input and with {@link Expiry#PROCESSING_TIME}.
   */
  public PairEvents withWatermarkSource(WatermarkSource source) {
    Objects.requireNonNull(source, "watermarkSource");
    return new PairEvents(settings.withWatermarkSource(source));
  }

  /** The watermark source set with {@link #withWatermarkSource}, or {@code null}. */
  public WatermarkSource getWatermarkSource() {
    return settings.watermarkSource();
  }

  /** Whether MATCH verdicts that supersede nothing are emitted. */
  public boolean getEmitMatches() {
    return settings.emitMatches();
  }

  /** The bucket count. */
  public int getBuckets() {
    return settings.buckets();
  }

  /**
   * The bucket of {@code naturalId} among {@code buckets}: {@link String#hashCode()} (specified by
   * the Java language, so the same on every JVM and across restarts) spread by MurmurHash3's
   * finaliser, since ids that differ only in their last characters have close hash codes.
   *
   * <p>Public so that tools outside the pipeline (a load generator, a skew check) can tell which
   * runner key, and so which worker's state, an id lands on; the function is part of the state
   * layout and stays the same across releases, as restored jobs need.
   *
   * @param buckets the number of buckets the transform is configured with, at least 1
   */
  public static int bucketOf(String naturalId, int buckets) {
    int h = naturalId.hashCode();
    h ^= h >>> 16;
    h *= 0x85ebca6b;
    h ^= h >>> 13;
    h *= 0xc2b2ae35;
    h ^= h >>> 16;
    return Math.floorMod(h, buckets);
  }

  /** The pairing timeout. */
  public Duration getTimeout() {
    return settings.timeout();
  }

  /** The allowed lateness in effect (the timeout unless set). */
  public Duration getAllowedLateness() {
    return settings.allowedLateness() != null ? settings.allowedLateness() : settings.timeout();
  }

  /** The expiry clock. */
  public Expiry getExpiry() {
    return settings.expiry();
  }

  /** The processing grace in effect (the timeout unless set). */
  public Duration getProcessingGrace() {
    return settings.processingGrace() != null ? settings.processingGrace() : settings.timeout();
  }

  @Override
  public void populateDisplayData(DisplayData.Builder builder) {
    super.populateDisplayData(builder);
    builder
        .add(DisplayData.item("timeout", getTimeout()).withLabel("Pairing timeout"))
        .add(DisplayData.item("expiry", getExpiry().name()).withLabel("Expiry clock"))
        .add(DisplayData.item("buckets", getBuckets()).withLabel("Pairing buckets"))
        // The display key is part of the pipeline graph runners are given: it keeps its name.
        .add(
            DisplayData.item("plainMatches", getEmitMatches())
                .withLabel("Plain MATCH verdicts emitted"))
        .add(
            getExpiry() == Expiry.EVENT_TIME
                ? DisplayData.item("allowedLateness", getAllowedLateness())
                    .withLabel("Allowed lateness")
                : DisplayData.item("processingGrace", getProcessingGrace())
                    .withLabel("Processing-time grace"));
  }

  @Override
  public PCollectionTuple expand(PCollection<EventRef> input) {
    WindowFn<?, ?> windowFn = input.getWindowingStrategy().getWindowFn();
    if (!(windowFn instanceof GlobalWindows)) {
      throw new IllegalArgumentException(
          "PairEvents needs input in the global window (an entry spans window boundaries), got "
              + windowFn);
    }
    if (getExpiry() == Expiry.PROCESSING_TIME
        && input.isBounded() == PCollection.IsBounded.BOUNDED) {
      // Runners need not fire processing-time timers once a bounded input is done (the
      // DirectRunner does not), so entries open at the end would never report MISSING.
      throw new IllegalArgumentException(
          "expiry PROCESSING_TIME needs an unbounded input: with a bounded one, entries still open"
              + " at its end would never expire; use EVENT_TIME");
    }
    PairingRules rules = new PairingRules(getTimeout());
    boolean bounded = input.isBounded() == PCollection.IsBounded.BOUNDED;
    boolean polled = getExpiry() == Expiry.EVENT_TIME && !bounded && getWatermarkSource() != null;
    int buckets = getBuckets();
    PCollection<KV<Integer, EventRef>> keyed =
        input
            .apply(
                "KeyByBucket",
                MapElements.into(
                        TypeDescriptors.kvs(
                            TypeDescriptors.integers(), TypeDescriptor.of(EventRef.class)))
                    .via((EventRef event) -> KV.of(bucketOf(event.naturalId(), buckets), event)))
            .setCoder(KvCoder.of(VarIntCoder.of(), EventRefCoder.of()));
    WindowingStrategy<?, ?> inputStrategy = keyed.getWindowingStrategy();
    TupleTagList others = TupleTagList.of(VERDICTS).and(LATE);

    PCollectionTuple outputs;
    if (polled) {
      PCollection<KV<Integer, List<TimestampedValue<EventRef>>>> gathered =
          keyed
              .apply("GatherBuckets", ParDo.of(new GatherBucketsFn(MAX_GATHERED)))
              .setCoder(
                  KvCoder.of(
                      VarIntCoder.of(),
                      ListCoder.of(TimestampedValue.TimestampedValueCoder.of(EventRefCoder.of()))));
      gathered.setWindowingStrategyInternal(inputStrategy.withAllowedLateness(NO_TIMER_SWEEP));
      outputs =
          gathered.apply(
              "PairInBuckets",
              ParDo.of(
                      new PolledWatermarkExpiry(
                          rules, getAllowedLateness(), getWatermarkSource(), getEmitMatches()))
                  .withOutputTags(MISMATCHES, others));
    } else {
      PairEventsFn<EventRef> fn =
          switch (getExpiry()) {
            case EVENT_TIME ->
                bounded
                    ? new SortedBoundedExpiry(rules, getEmitMatches())
                    : new EventTimeExpiry(rules, getAllowedLateness(), getEmitMatches());
            case PROCESSING_TIME ->
                new ProcessingTimeExpiry(rules, getProcessingGrace(), getEmitMatches());
          };
      outputs = keyed.apply("PairInBuckets", ParDo.of(fn).withOutputTags(MISMATCHES, others));
    }
    outputs.get(MISMATCHES).setCoder(VerdictCoder.of());
    outputs.get(VERDICTS).setCoder(VerdictCoder.of());
    outputs.get(LATE).setCoder(LateEventCoder.of());
    if (polled) {
      // Downstream steps see the input's strategy: the lateness is for the pairing's timers only.
      outputs.get(MISMATCHES).setWindowingStrategyInternal(inputStrategy);
      outputs.get(VERDICTS).setWindowingStrategyInternal(inputStrategy);
      outputs.get(LATE).setWindowingStrategyInternal(inputStrategy);
    }
    return outputs;
  }

  /**
   * The most events {@link GatherBucketsFn} holds before it emits what it gathered: bounds its
   * memory in a large micro-batch (a backlog after a restart) to some tens of megabytes.
   */
  static final int MAX_GATHERED = 100_000;

  /**
   * The allowed lateness the polled pairing's input carries (its outputs get the input's back; no
   * step is added for either). Beam's classic SparkRunner calls a stateful DoFn's processing-time
   * timers in two places: in a loop while the call's output is collected, and once more after it
   * was collected ({@code TimerUtils.triggerExpiredTimers}), where what a timer outputs is lost.
   * That second pass only takes timers due before now minus the input's allowed lateness; with this
   * lateness it takes none, so every callback runs in the loop and its verdicts reach the outputs.
   * The global window never expires, so the lateness changes nothing else for the pairing.
   */
  static final Duration NO_TIMER_SWEEP = Duration.standardDays(365L * 10_000);
}
