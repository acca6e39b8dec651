package io.streamrecon.bench;

import io.streamrecon.transforms.pairing.PairEvents;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The soak's live stream: {@link Plan#ids} distinct natural ids, spread evenly over {@link
 * Plan#duration}, each sent to the source and (unless it is missing there) the target topic at its
 * due time, with that time as its event time. 90% of the ids match, 5% differ in one field, 2.5%
 * never reach the target and 2.5% never reach the source. Optionally one hot natural id carries
 * {@link Plan#hotShare} of the pairs (a new version every time, so every one of its events touches
 * its entry), and {@link Plan#hotBucketShare} of the ids are drawn so that they all fall into
 * pairing bucket 0.
 *
 * <p>For the verdict latency ({@link VerdictLatency}) it keeps, per id ordinal (the {@code i} of
 * {@code ord-%09d}; an id drawn into bucket 0 is named {@code hb-...} but has an ordinal too), the
 * event time it gave the id and the Kafka append time of each side's event. The append time is
 * {@link RecordMetadata#timestamp()} from the send callback: the soak creates its topics with
 * {@code message.timestamp.type=LogAppendTime}, so that is the broker's wall clock when it appended
 * the batch to the log, when the pipeline could first read the event. On this one machine that is
 * the same wall clock the pipeline's Delta commits are stamped with. The producer's create time
 * would count the client's batching ({@code linger.ms}) and the send against the pipeline.
 *
 * <p>A lagging target ({@link Plan#targetLag}): each target event is sent that long after its
 * source partner, with the same event time, so the target's records are appended that far behind
 * their event times, as a replica running behind appends them. With {@link Plan#targetBurstEvery}
 * the target is loaded in bursts instead: what is due is held until the next multiple of that
 * interval since the start, and the target topic is quiet in between. {@link Plan#prefillSource}
 * source events (ids {@code pre-%09d}, all MATCH) are sent as fast as the client goes before the
 * live stream; their target partners follow after the lag, so the pipeline holds them open until
 * then.
 */
final class SoakProducer implements AutoCloseable {
  static final String HOT_ID = "hot-000000";
  private static final String ORDINARY_ID_PREFIX = "ord-";
  private static final String HOT_BUCKET_ID_PREFIX = "hb-";
  private static final String PREFILL_ID_PREFIX = "pre-";

  /** A target event waiting for its due time; its JSON is made when it is sent. */
  private record Deferred(
      long releaseNanos, String id, String eventTime, long cents, int delta, int ordinal) {}

  /** What to produce. */
  record Plan(
      int ids,
      Duration duration,
      double hotShare,
      double hotBucketShare,
      int buckets,
      long seed,
      Duration targetLag,
      Duration targetBurstEvery,
      long prefillSource) {
    /** A target on time, in step with the source, and no pre-filled state. */
    Plan(
        int ids,
        Duration duration,
        double hotShare,
        double hotBucketShare,
        int buckets,
        long seed) {
      this(ids, duration, hotShare, hotBucketShare, buckets, seed, Duration.ZERO, Duration.ZERO, 0);
    }

    /** Whether target events wait for their due time instead of going with their source's. */
    boolean targetDeferred() {
      return !targetLag.isZero() || !targetBurstEvery.isZero();
    }

    long slots() {
      return (long) Math.ceil(ids / (1 - hotShare));
    }
  }

  /** The verdicts the distinct ids must end with (the hot id's are not counted here). */
  record Counts(long match, long mismatch, long missingInTarget, long missingInSource) {}

  private enum Kind {
    MATCH,
    MISMATCH,
    MISSING_IN_TARGET,
    MISSING_IN_SOURCE
  }

  private final KafkaProducer<String, String> producer;
  private final String sourceTopic;
  private final String targetTopic;
  private final Plan plan;
  private final Thread thread;
  private final AtomicLong idsProduced = new AtomicLong();
  private final AtomicLong eventsProduced = new AtomicLong();
  private final long[] kinds = new long[Kind.values().length];
  private final BitSet bucketsSeen = new BitSet();
  private final AtomicReference<Throwable> failure = new AtomicReference<>();

  /** Target events not yet due, in due order (only the producer thread touches it). */
  private final ArrayDeque<Deferred> deferred = new ArrayDeque<>();

  private long startNanos;
  private volatile Instant endedAt;
  private volatile Instant prefilledAt;
  private long hotBucketCandidate;
  // Per ordinal, epoch ms, VerdictLatency.NONE until known. The append times are written by the
  // client's I/O thread in send callbacks and read after awaitSent(): flush() waits for each
  // batch's future, which completes after the batch's callbacks ran.
  private final long[] sourceAppendMillis;
  private final long[] targetAppendMillis;
  private final long[] eventTimeMillis;
  // The bucket-0 ids in the order drawn: candidate numbers (ascending) and their ordinals, so
  // that ordinalOf can binary-search without a map of a million boxed entries.
  private long[] hotBucketCandidates = new long[64];
  private int[] hotBucketOrdinals = new int[64];
  private int hotBucketIds;

  SoakProducer(String bootstrap, String sourceTopic, String targetTopic, Plan plan) {
    this.producer =
        new KafkaProducer<>(
            Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                ProducerConfig.LINGER_MS_CONFIG,
                20,
                ProducerConfig.ACKS_CONFIG,
                "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                true),
            new StringSerializer(),
            new StringSerializer());
    this.sourceTopic = sourceTopic;
    this.targetTopic = targetTopic;
    this.plan = plan;
    this.sourceAppendMillis = new long[plan.ids()];
    this.targetAppendMillis = new long[plan.ids()];
    this.eventTimeMillis = new long[plan.ids()];
    this.thread = new Thread(this::produce, "soak-producer");
    this.thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  boolean done() {
    return !thread.isAlive();
  }

  Instant endedAt() {
    return endedAt;
  }

  /** When the pre-fill was sent and the live stream began; null before. */
  Instant prefilledAt() {
    return prefilledAt;
  }

  long idsProduced() {
    return idsProduced.get();
  }

  long eventsProduced() {
    return eventsProduced.get();
  }

  /**
   * The runner keys the pairing has seen so far: the distinct buckets of the ids produced, or with
   * {@code buckets == 0} (one key per natural id) every id produced. The SparkRunner keeps every
   * key it has seen for ever (its streaming state is never evicted), so this is its key count.
   */
  synchronized long runnerKeys(int buckets) {
    if (buckets == 0) {
      return idsProduced.get() + (plan.hotShare() > 0 ? 1 : 0);
    }
    return bucketsSeen.cardinality();
  }

  synchronized Counts counts() {
    return new Counts(kinds[0], kinds[1], kinds[2], kinds[3]);
  }

  /**
   * The ordinal of a natural id this producer generated, or -1 for the hot id and for any other id.
   * Call it after {@link #awaitSent}.
   */
  synchronized int ordinalOf(String naturalId) {
    if (naturalId.startsWith(ORDINARY_ID_PREFIX)) {
      try {
        int ordinal = Integer.parseInt(naturalId.substring(ORDINARY_ID_PREFIX.length()));
        boolean produced =
            ordinal >= 0 && ordinal < plan.ids() && eventTimeMillis[ordinal] != VerdictLatency.NONE;
        return produced ? ordinal : -1;
      } catch (NumberFormatException e) {
        return -1;
      }
    }
    if (naturalId.startsWith(HOT_BUCKET_ID_PREFIX)) {
      try {
        long candidate = Long.parseLong(naturalId.substring(HOT_BUCKET_ID_PREFIX.length()));
        int at = Arrays.binarySearch(hotBucketCandidates, 0, hotBucketIds, candidate);
        return at >= 0 ? hotBucketOrdinals[at] : -1;
      } catch (NumberFormatException e) {
        return -1;
      }
    }
    return -1;
  }

  /**
   * A latency computation over this producer's event and append times, for a pipeline run with
   * {@code timeout}. Call it after {@link #awaitSent}; it shares (does not copy) the arrays.
   */
  VerdictLatency verdictLatency(Duration timeout) {
    return new VerdictLatency(
        sourceAppendMillis, targetAppendMillis, eventTimeMillis, timeout.toMillis());
  }

  /** Waits until everything handed to the client is acknowledged; rethrows a send failure. */
  void awaitSent() throws Exception {
    thread.join();
    producer.flush();
    Throwable t = failure.get();
    if (t != null) {
      throw new IllegalStateException("the soak producer failed", t);
    }
  }

  private void produce() {
    try {
      long slots = plan.slots();
      double perSlotNanos = plan.duration().toNanos() / (double) slots;
      startNanos = System.nanoTime();
      prefill();
      prefilledAt = Instant.now();
      long start = System.nanoTime();
      long nextId = 0;
      long hotVersion = 0;
      for (long k = 0; k < slots && nextId < plan.ids(); k++) {
        long due = start + (long) (k * perSlotNanos);
        long wait = due - System.nanoTime();
        if (wait > 1_000_000) {
          TimeUnit.NANOSECONDS.sleep(wait);
        }
        releaseDue();
        Instant nowInstant = Instant.now();
        String now = nowInstant.toString();
        if (crosses(k, plan.hotShare())) {
          hotVersion++;
          // Its versions replace each other: no latency is measured for the hot id.
          send(sourceTopic, HOT_ID, json(HOT_ID, now, hotVersion, 0, "src"), null, -1);
          send(targetTopic, HOT_ID, json(HOT_ID, now, hotVersion, 0, "tgt"), null, -1);
          synchronized (this) {
            bucketsSeen.set(PairEvents.bucketOf(HOT_ID, Math.max(plan.buckets(), 1)));
          }
          continue;
        }
        int i = (int) nextId++;
        String id =
            crosses(i, plan.hotBucketShare())
                ? nextInBucketZero(i)
                : String.format(ORDINARY_ID_PREFIX + "%09d", i);
        synchronized (this) {
          eventTimeMillis[i] = nowInstant.toEpochMilli();
        }
        SplittableRandom r = new SplittableRandom(plan.seed() * 0x9E3779B97F4A7C15L + i);
        double u = r.nextDouble();
        Kind kind =
            u < 0.90
                ? Kind.MATCH
                : u < 0.95
                    ? Kind.MISMATCH
                    : u < 0.975 ? Kind.MISSING_IN_TARGET : Kind.MISSING_IN_SOURCE;
        long amountCents = 100 + r.nextInt(1_000_000);
        if (kind != Kind.MISSING_IN_SOURCE) {
          send(sourceTopic, id, json(id, now, amountCents, 0, "src"), sourceAppendMillis, i);
        }
        if (kind != Kind.MISSING_IN_TARGET) {
          sendTarget(id, now, amountCents, kind == Kind.MISMATCH ? 1 : 0, i);
        }
        synchronized (this) {
          kinds[kind.ordinal()]++;
          bucketsSeen.set(PairEvents.bucketOf(id, Math.max(plan.buckets(), 1)));
        }
        idsProduced.incrementAndGet();
      }
      // The lagging target goes on after the source's last event, until its last is sent.
      while (!deferred.isEmpty()) {
        long wait = deferred.peekFirst().releaseNanos() - System.nanoTime();
        if (wait > 0) {
          TimeUnit.NANOSECONDS.sleep(wait);
        }
        releaseDue();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      failure.set(e);
    } finally {
      endedAt = Instant.now();
    }
  }

  /**
   * Sends {@link Plan#prefillSource} matching source events at once; their target partners are
   * deferred like every target event (with neither a lag nor bursts they follow at once).
   */
  private void prefill() {
    for (long j = 0; j < plan.prefillSource(); j++) {
      String id = String.format(PREFILL_ID_PREFIX + "%09d", j);
      String now = Instant.now().toString();
      long amountCents = 100 + (j * 7919) % 1_000_000;
      send(sourceTopic, id, json(id, now, amountCents, 0, "src"), null, -1);
      sendTarget(id, now, amountCents, 0, -1);
      synchronized (this) {
        kinds[Kind.MATCH.ordinal()]++;
        bucketsSeen.set(PairEvents.bucketOf(id, Math.max(plan.buckets(), 1)));
      }
      idsProduced.incrementAndGet();
    }
  }

  /**
   * Sends a target event now, or, with a lagging or bursty target, queues it for its due time:
   * {@link Plan#targetLag} from now, held to the next burst when the target comes in bursts.
   */
  private void sendTarget(String id, String eventTime, long cents, int delta, int ordinal) {
    if (!plan.targetDeferred()) {
      send(
          targetTopic,
          id,
          json(id, eventTime, cents, delta, "tgt"),
          ordinal < 0 ? null : targetAppendMillis,
          ordinal);
      return;
    }
    long due = dueNanos(System.nanoTime(), startNanos, plan.targetLag(), plan.targetBurstEvery());
    deferred.addLast(new Deferred(due, id, eventTime, cents, delta, ordinal));
    releaseDue();
  }

  /**
   * When a target event made at {@code nowNanos} is sent: {@code lag} later, and with bursts at the
   * first multiple of {@code burstEvery} since {@code startNanos} from then on.
   */
  static long dueNanos(long nowNanos, long startNanos, Duration lag, Duration burstEvery) {
    long due = nowNanos + lag.toNanos();
    long every = burstEvery.toNanos();
    if (every <= 0) {
      return due;
    }
    long bursts = Math.floorDiv(due - startNanos + every - 1, every);
    return startNanos + bursts * every;
  }

  /** Sends the deferred target events that are due. */
  private void releaseDue() {
    long now = System.nanoTime();
    while (!deferred.isEmpty() && deferred.peekFirst().releaseNanos() <= now) {
      Deferred d = deferred.pollFirst();
      send(
          targetTopic,
          d.id(),
          json(d.id(), d.eventTime(), d.cents(), d.delta(), "tgt"),
          d.ordinal() < 0 ? null : targetAppendMillis,
          d.ordinal());
    }
  }

  /** True for about {@code share} of the indexes, evenly spaced. */
  private static boolean crosses(long k, double share) {
    return share > 0 && Math.floor((k + 1) * share) > Math.floor(k * share);
  }

  /** The next id that falls into pairing bucket 0, remembered as the one of {@code ordinal}. */
  private String nextInBucketZero(int ordinal) {
    int buckets = Math.max(plan.buckets(), 1);
    while (true) {
      long candidate = hotBucketCandidate++;
      String id = String.format(HOT_BUCKET_ID_PREFIX + "%09d", candidate);
      if (PairEvents.bucketOf(id, buckets) == 0) {
        synchronized (this) {
          if (hotBucketIds == hotBucketCandidates.length) {
            hotBucketCandidates = Arrays.copyOf(hotBucketCandidates, hotBucketIds * 2);
            hotBucketOrdinals = Arrays.copyOf(hotBucketOrdinals, hotBucketIds * 2);
          }
          hotBucketCandidates[hotBucketIds] = candidate;
          hotBucketOrdinals[hotBucketIds++] = ordinal;
        }
        return id;
      }
    }
  }

  /** Sends; on acknowledgement stores the append time in {@code appendMillis[ordinal]} if given. */
  private void send(String topic, String key, String value, long[] appendMillis, int ordinal) {
    producer.send(
        new ProducerRecord<>(topic, key, value),
        (meta, e) -> {
          if (e != null) {
            failure.compareAndSet(null, e);
          } else if (appendMillis != null) {
            appendMillis[ordinal] = meta.timestamp();
          }
        });
    eventsProduced.incrementAndGet();
  }

  /**
   * About 330 bytes; the target has its keys in another order and the amount with a trailing zero
   * (equal only under canonical comparison, docs/design.md#canonical-hash), and a MISMATCH one cent
   * more.
   */
  private static String json(String id, String eventTime, long cents, int delta, String side) {
    String amount = (cents + delta) / 100 + "." + String.format("%02d", (cents + delta) % 100);
    String note =
        "soak record " + id + " with a free-text note long enough to look like a real one";
    if (side.equals("src")) {
      return "{\"id\":\""
          + id
          + "\",\"eventTime\":\""
          + eventTime
          + "\",\"status\":\"PAID\","
          + "\"amount\":"
          + amount
          + ",\"currency\":\"EUR\",\"customer\":{\"city\":\"Lyon\","
          + "\"tier\":\"gold\"},\"lines\":[{\"sku\":\"A-1\",\"qty\":2},{\"sku\":\"B-7\",\"qty\":1}],"
          + "\"note\":\""
          + note
          + "\"}";
    }
    return "{\"note\":\""
        + note
        + "\",\"lines\":[{\"qty\":2,\"sku\":\"A-1\"},{\"qty\":1,\"sku\":"
        + "\"B-7\"}],\"customer\":{\"tier\":\"gold\",\"city\":\"Lyon\"},\"currency\":\"EUR\","
        + "\"amount\":"
        + amount
        + "0,\"status\":\"PAID\",\"eventTime\":\""
        + eventTime
        + "\","
        + "\"id\":\""
        + id
        + "\"}";
  }

  @Override
  public void close() {
    thread.interrupt();
    producer.close(java.time.Duration.ofSeconds(30));
  }
}
