package io.streamrecon.pipeline.io;

import io.streamrecon.model.MetricNames;
import io.streamrecon.model.Origin;
import io.streamrecon.model.RawInput;
import io.streamrecon.model.Side;
import io.streamrecon.transforms.ModelCoders;
import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.Map;
import org.apache.beam.sdk.coders.ByteArrayCoder;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.NullableCoder;
import org.apache.beam.sdk.io.Read;
import org.apache.beam.sdk.io.UnboundedSource;
import org.apache.beam.sdk.io.kafka.KafkaCheckpointMark;
import org.apache.beam.sdk.io.kafka.KafkaIO;
import org.apache.beam.sdk.io.kafka.KafkaRecord;
import org.apache.beam.sdk.io.kafka.KafkaTimestampType;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.PBegin;
import org.apache.beam.sdk.values.PCollection;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * Reads one Kafka topic into {@link RawInput}s: the record value as bytes, {@code
 * topic/partition@offset} as origin, the Kafka record time as record time, and the payload's event
 * time as element timestamp (see {@link PayloadTimestampPolicy} for the watermark). Offsets are
 * committed when Beam finalizes a checkpoint, so a restarted job resumes after what it processed.
 *
 * <p>Consumer defaults, each overridable through the properties: {@code group.id=streamrecon},
 * {@code auto.offset.reset=earliest}.
 *
 * <p>An unbounded read can go through a wrapper of KafkaIO's source, for the runner's watermarks:
 * {@link #withSplits}.
 */
public final class ReadKafka extends PTransform<PBegin, PCollection<RawInput>> {
  /** Consumer group used when the properties name none. */
  public static final String DEFAULT_GROUP_ID = "streamrecon";

  /**
   * The longest declared append lag ({@link #withAppendLag}). A silent side holds the other side's
   * expiry, and the state of its entries, that long: a week covers weekly loads, and a side later
   * than that is not one to reconcile by event time.
   */
  public static final Duration MAX_APPEND_LAG = Duration.standardDays(7);

  private static final String SPLIT_MARKER_TOPIC = "";
  private static final Coder<byte[]> NULLABLE_BYTES = NullableCoder.of(ByteArrayCoder.of());

  private final Side side;
  private final InputSpec spec;
  private final Map<String, String> properties;
  private final String timeField;
  private final Duration maxOutOfOrderness;
  private final Duration idleAfter;
  private final Duration appendLag;
  private final boolean readCommitted;
  private final long maxRecords;
  private final Duration maxReadTime;
  private final Splits splits;

  /**
   * How an unbounded read splits the topic, for the runner's watermark: a choice of the runner's
   * profile ({@code RunnerProfile#kafkaSplits}). A bounded read always reads as KafkaIO does.
   */
  public enum Splits {
    /** KafkaIO's own source and splits. */
    KAFKA_IO,
    /**
     * Each split primed with a marker record ({@link SplitPrimingSource}), for a runner whose
     * source reader sends a partition's watermark only after the partition's first record.
     */
    PRIMED,
    /**
     * The topic read as one split ({@link OneSplitSource}), for a runner that takes the latest of a
     * source's split watermarks.
     */
    ONE_SPLIT
  }

  private ReadKafka(
      Side side,
      InputSpec spec,
      Map<String, String> properties,
      String timeField,
      Duration maxOutOfOrderness,
      Duration idleAfter,
      Duration appendLag,
      boolean readCommitted,
      long maxRecords,
      Duration maxReadTime,
      Splits splits) {
    this.splits = splits;
    this.idleAfter = idleAfter;
    this.appendLag = appendLag;
    this.side = side;
    this.spec = spec;
    this.properties = Map.copyOf(properties);
    this.timeField = timeField;
    this.maxOutOfOrderness = maxOutOfOrderness;
    this.readCommitted = readCommitted;
    this.maxRecords = maxRecords;
    this.maxReadTime = maxReadTime;
  }

  /** Reads the Kafka topic of {@code spec} as the given side. */
  public static ReadKafka of(Side side, InputSpec spec) {
    if (side == null) {
      throw new IllegalArgumentException("side must be SOURCE or TARGET");
    }
    if (spec == null || !spec.isKafka()) {
      throw new IllegalArgumentException("spec must be a kafka://host:port/topic input");
    }
    return new ReadKafka(
        side,
        spec,
        Map.of(),
        "/eventTime",
        Duration.standardSeconds(30),
        PayloadTimestampPolicy.DEFAULT_IDLE_AFTER,
        null,
        false,
        0,
        null,
        Splits.KAFKA_IO);
  }

  /** Consumer properties passed through as given (security, group id, ...). */
  public ReadKafka withConsumerProperties(Map<String, String> props) {
    if (props == null) {
      throw new IllegalArgumentException("consumer properties must not be null");
    }
    return new ReadKafka(
        side,
        spec,
        props,
        timeField,
        maxOutOfOrderness,
        idleAfter,
        appendLag,
        readCommitted,
        maxRecords,
        maxReadTime,
        splits);
  }

  /** JSON Pointer of the event time; empty for the Kafka record time. */
  public ReadKafka withTimeField(String field) {
    if (field == null || !(field.isEmpty() || field.startsWith("/"))) {
      throw new IllegalArgumentException("timeField must be empty or a JSON Pointer, got " + field);
    }
    return new ReadKafka(
        side,
        spec,
        properties,
        field,
        maxOutOfOrderness,
        idleAfter,
        appendLag,
        readCommitted,
        maxRecords,
        maxReadTime,
        splits);
  }

  /** The watermark's bound below the largest event time seen (zero or more). */
  public ReadKafka withMaxOutOfOrderness(Duration bound) {
    if (bound == null || bound.isShorterThan(Duration.ZERO)) {
      throw new IllegalArgumentException("maxOutOfOrderness must be zero or more, got " + bound);
    }
    return new ReadKafka(
        side,
        spec,
        properties,
        timeField,
        bound,
        idleAfter,
        appendLag,
        readCommitted,
        maxRecords,
        maxReadTime,
        splits);
  }

  /**
   * How long a partition must be found empty by every backlog check before its watermark follows
   * the wall clock (1 s to 1 h).
   */
  public ReadKafka withIdleAfter(Duration idle) {
    if (idle == null
        || idle.isShorterThan(Duration.standardSeconds(1))
        || idle.isLongerThan(Duration.standardHours(1))) {
      throw new IllegalArgumentException("idleAfter must be between 1s and 1h, got " + idle);
    }
    return new ReadKafka(
        side,
        spec,
        properties,
        timeField,
        maxOutOfOrderness,
        idle,
        appendLag,
        readCommitted,
        maxRecords,
        maxReadTime,
        splits);
  }

  /**
   * The most this side's records are appended behind their event time (0 to {@link
   * #MAX_APPEND_LAG}): an idle partition's watermark stays that far behind the wall clock. {@code
   * null}, the default, keeps the largest lag each partition's records showed before it went quiet
   * (see {@link PayloadTimestampPolicy}).
   */
  public ReadKafka withAppendLag(Duration lag) {
    if (lag != null && (lag.isShorterThan(Duration.ZERO) || lag.isLongerThan(MAX_APPEND_LAG))) {
      throw new IllegalArgumentException("appendLag must be between 0s and 7d, got " + lag);
    }
    return new ReadKafka(
        side,
        spec,
        properties,
        timeField,
        maxOutOfOrderness,
        idleAfter,
        lag,
        readCommitted,
        maxRecords,
        maxReadTime,
        splits);
  }

  /** Reads only committed records of transactional producers. */
  public ReadKafka withReadCommitted(boolean committed) {
    return new ReadKafka(
        side,
        spec,
        properties,
        timeField,
        maxOutOfOrderness,
        idleAfter,
        appendLag,
        committed,
        maxRecords,
        maxReadTime,
        splits);
  }

  /** Stops after this many records (0 = unbounded); makes the read bounded. */
  public ReadKafka withMaxRecords(long max) {
    if (max < 0) {
      throw new IllegalArgumentException("maxRecords must be 0 (unbounded) or more, got " + max);
    }
    return new ReadKafka(
        side,
        spec,
        properties,
        timeField,
        maxOutOfOrderness,
        idleAfter,
        appendLag,
        readCommitted,
        max,
        maxReadTime,
        splits);
  }

  /** Stops after reading this long ({@code null} = unbounded); makes the read bounded. */
  public ReadKafka withMaxReadTime(Duration max) {
    if (max != null && !max.isLongerThan(Duration.ZERO)) {
      throw new IllegalArgumentException("maxReadTime must be positive, got " + max);
    }
    return new ReadKafka(
        side,
        spec,
        properties,
        timeField,
        maxOutOfOrderness,
        idleAfter,
        appendLag,
        readCommitted,
        maxRecords,
        max,
        splits);
  }

  /** How an unbounded read splits the topic; {@link Splits#KAFKA_IO} by default. */
  public ReadKafka withSplits(Splits how) {
    if (how == null) {
      throw new IllegalArgumentException("splits must not be null");
    }
    return new ReadKafka(
        side,
        spec,
        properties,
        timeField,
        maxOutOfOrderness,
        idleAfter,
        appendLag,
        readCommitted,
        maxRecords,
        maxReadTime,
        how);
  }

  @Override
  public PCollection<RawInput> expand(PBegin input) {
    KafkaIO.Read<byte[], byte[]> read = kafkaRead();
    PCollection<KafkaRecord<byte[], byte[]>> records;
    boolean unbounded = maxRecords == 0 && maxReadTime == null;
    if (unbounded && splits == Splits.PRIMED) {
      records = input.apply("ReadTopic", Read.from(primedSource(read)));
    } else if (unbounded && splits == Splits.ONE_SPLIT) {
      records = input.apply("ReadTopic", Read.from(new OneSplitSource<>(makeSource(read))));
    } else {
      records = input.apply("ReadTopic", read);
    }
    return records
        .apply("ConvertToRawInput", ParDo.of(new ToRawInputFn(side)))
        .setCoder(ModelCoders.RawInputCoder.of());
  }

  /** The KafkaIO read this transform configures. */
  KafkaIO.Read<byte[], byte[]> kafkaRead() {
    Map<String, Object> config = new HashMap<>();
    config.put(ConsumerConfig.GROUP_ID_CONFIG, DEFAULT_GROUP_ID);
    config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    config.putAll(properties);
    KafkaIO.Read<byte[], byte[]> read =
        KafkaIO.<byte[], byte[]>read()
            .withBootstrapServers(spec.bootstrapServers())
            .withTopic(spec.topic())
            // Coders given, not inferred: KafkaIO infers them only in its own expand(), and the
            // Flink path (primedSource) builds the source without it. Nullable: keys are often
            // null, and a tombstone's value is (it becomes a dead letter).
            .withKeyDeserializerAndCoder(ByteArrayDeserializer.class, NULLABLE_BYTES)
            .withValueDeserializerAndCoder(ByteArrayDeserializer.class, NULLABLE_BYTES)
            .withConsumerConfigUpdates(config)
            .withTimestampPolicyFactory(
                new MeteredTimestampPolicy.Factory(
                    new PayloadTimestampPolicy.Factory(
                        timeField, maxOutOfOrderness, idleAfter, appendLag),
                    side))
            .commitOffsetsInFinalize();
    if (readCommitted) {
      read = read.withReadCommitted();
    }
    if (maxRecords > 0) {
      read = read.withMaxNumRecords(maxRecords);
    }
    if (maxReadTime != null) {
      read = read.withMaxReadTime(maxReadTime);
    }
    return read;
  }

  /** KafkaIO's unbounded source with a marker record per split start. */
  static SplitPrimingSource<KafkaRecord<byte[], byte[]>, KafkaCheckpointMark> primedSource(
      KafkaIO.Read<byte[], byte[]> read) {
    return new SplitPrimingSource<>(makeSource(read), ReadKafka::splitMarker);
  }

  /**
   * KafkaIO's own unbounded source, as its {@code ReadFromKafkaViaUnbounded} uses it (offset
   * commits on finalize, the timestamp policy); {@code makeSource} is package-private.
   */
  @SuppressWarnings("unchecked")
  static UnboundedSource<KafkaRecord<byte[], byte[]>, KafkaCheckpointMark> makeSource(
      KafkaIO.Read<byte[], byte[]> read) {
    try {
      Method m = KafkaIO.Read.class.getDeclaredMethod("makeSource");
      m.setAccessible(true);
      return (UnboundedSource<KafkaRecord<byte[], byte[]>, KafkaCheckpointMark>) m.invoke(read);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("KafkaIO.Read.makeSource() is not available in this Beam", e);
    }
  }

  /** The marker record: no Kafka topic has an empty name. */
  static KafkaRecord<byte[], byte[]> splitMarker(Instant timestamp) {
    return new KafkaRecord<>(
        SPLIT_MARKER_TOPIC,
        -1,
        -1L,
        timestamp.getMillis(),
        KafkaTimestampType.NO_TIMESTAMP_TYPE,
        null,
        new byte[0],
        new byte[0]);
  }

  static boolean isSplitMarker(KafkaRecord<?, ?> r) {
    return SPLIT_MARKER_TOPIC.equals(r.getTopic()) && r.getOffset() < 0;
  }

  /** Keeps value, origin and record time; the element timestamp (event time) passes through. */
  static final class ToRawInputFn extends DoFn<KafkaRecord<byte[], byte[]>, RawInput> {
    private static final byte[] EMPTY = new byte[0];
    private final Side side;
    private final Counter records;
    private final Counter splitMarkers;

    ToRawInputFn(Side side) {
      this.side = side;
      this.records = Metrics.counter(MetricNames.NAMESPACE, MetricNames.input(side));
      this.splitMarkers = Metrics.counter(ReadKafka.class, "kafka_split_markers");
    }

    @ProcessElement
    public void process(@Element KafkaRecord<byte[], byte[]> r, OutputReceiver<RawInput> out) {
      if (isSplitMarker(r)) {
        splitMarkers.inc();
        return;
      }
      records.inc();
      byte[] value = r.getKV().getValue();
      out.output(
          new RawInput(
              side,
              value == null ? EMPTY : value,
              Origin.kafka(r.getTopic(), r.getPartition(), r.getOffset()),
              new Instant(r.getTimestamp())));
    }
  }
}
