package io.streamrecon.bench;

import io.streamrecon.transforms.PairingBuckets;
import java.time.Duration;
import java.time.Instant;
import java.util.BitSet;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The soak's live stream: {@link Plan#ids} distinct natural ids, spread evenly over {@link
 * Plan#duration}, each sent to the source and (unless it is missing there) the target topic at
 * its due time, with that time as its event time. 90% of the ids match, 5% differ in one field,
 * 2.5% never reach the target and 2.5% never reach the source. Optionally one hot natural id
 * carries {@link Plan#hotShare} of the pairs (a new version every time, so every one of its events
 * touches its entry), and {@link Plan#hotBucketShare} of the ids are drawn so that they all fall
 * into pairing bucket 0.
 */
final class SoakProducer implements AutoCloseable {
  static final String HOT_ID = "hot-000000";

  /** What to produce. */
  record Plan(int ids, Duration duration, double hotShare, double hotBucketShare, int buckets,
      long seed) {
    long slots() {
      return (long) Math.ceil(ids / (1 - hotShare));
    }
  }

  /** The verdicts the distinct ids must end with (the hot id's are not counted here). */
  record Counts(long match, long mismatch, long missingInTarget, long missingInSource) {}

  private enum Kind { MATCH, MISMATCH, MISSING_IN_TARGET, MISSING_IN_SOURCE }

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
  private volatile Instant endedAt;
  private long hotBucketCandidate;

  SoakProducer(String bootstrap, String sourceTopic, String targetTopic, Plan plan) {
    this.producer =
        new KafkaProducer<>(
            Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.LINGER_MS_CONFIG, 20,
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true),
            new StringSerializer(),
            new StringSerializer());
    this.sourceTopic = sourceTopic;
    this.targetTopic = targetTopic;
    this.plan = plan;
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

  long idsProduced() {
    return idsProduced.get();
  }

  long eventsProduced() {
    return eventsProduced.get();
  }

  /**
   * The runner keys the pairing has seen so far: the distinct buckets of the ids produced, or
   * with {@code buckets == 0} (one key per natural id) every id produced. The SparkRunner keeps
   * every key it has seen for ever (STACK.md), so this is its key count.
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
      long start = System.nanoTime();
      long nextId = 0;
      long hotVersion = 0;
      for (long k = 0; k < slots && nextId < plan.ids(); k++) {
        long due = start + (long) (k * perSlotNanos);
        long wait = due - System.nanoTime();
        if (wait > 1_000_000) {
          TimeUnit.NANOSECONDS.sleep(wait);
        }
        String now = Instant.now().toString();
        if (crosses(k, plan.hotShare())) {
          hotVersion++;
          send(sourceTopic, HOT_ID, json(HOT_ID, now, hotVersion, 0, "src"));
          send(targetTopic, HOT_ID, json(HOT_ID, now, hotVersion, 0, "tgt"));
          synchronized (this) {
            bucketsSeen.set(PairingBuckets.of(HOT_ID, Math.max(plan.buckets(), 1)));
          }
          continue;
        }
        long i = nextId++;
        String id = crosses(i, plan.hotBucketShare()) ? nextInBucketZero() : String.format("ord-%09d", i);
        SplittableRandom r = new SplittableRandom(plan.seed() * 0x9E3779B97F4A7C15L + i);
        double u = r.nextDouble();
        Kind kind = u < 0.90 ? Kind.MATCH : u < 0.95 ? Kind.MISMATCH
            : u < 0.975 ? Kind.MISSING_IN_TARGET : Kind.MISSING_IN_SOURCE;
        long amountCents = 100 + r.nextInt(1_000_000);
        if (kind != Kind.MISSING_IN_SOURCE) {
          send(sourceTopic, id, json(id, now, amountCents, 0, "src"));
        }
        if (kind != Kind.MISSING_IN_TARGET) {
          send(targetTopic, id, json(id, now, amountCents, kind == Kind.MISMATCH ? 1 : 0, "tgt"));
        }
        synchronized (this) {
          kinds[kind.ordinal()]++;
          bucketsSeen.set(PairingBuckets.of(id, Math.max(plan.buckets(), 1)));
        }
        idsProduced.incrementAndGet();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      failure.set(e);
    } finally {
      endedAt = Instant.now();
    }
  }

  /** True for about {@code share} of the indexes, evenly spaced. */
  private static boolean crosses(long k, double share) {
    return share > 0 && Math.floor((k + 1) * share) > Math.floor(k * share);
  }

  private String nextInBucketZero() {
    int buckets = Math.max(plan.buckets(), 1);
    while (true) {
      String id = String.format("hb-%09d", hotBucketCandidate++);
      if (PairingBuckets.of(id, buckets) == 0) {
        return id;
      }
    }
  }

  private void send(String topic, String key, String value) {
    producer.send(new ProducerRecord<>(topic, key, value), (meta, e) -> {
      if (e != null) {
        failure.compareAndSet(null, e);
      }
    });
    eventsProduced.incrementAndGet();
  }

  /**
   * About 330 bytes; the target has its keys in another order and the amount with a trailing
   * zero (equal only under canonical comparison, SPEC §3), and a MISMATCH one cent more.
   */
  private static String json(String id, String eventTime, long cents, int delta, String side) {
    String amount = (cents + delta) / 100 + "." + String.format("%02d", (cents + delta) % 100);
    String note = "soak record " + id + " with a free-text note long enough to look like a real one";
    if (side.equals("src")) {
      return "{\"id\":\"" + id + "\",\"eventTime\":\"" + eventTime + "\",\"status\":\"PAID\","
          + "\"amount\":" + amount + ",\"currency\":\"EUR\",\"customer\":{\"city\":\"Lyon\","
          + "\"tier\":\"gold\"},\"lines\":[{\"sku\":\"A-1\",\"qty\":2},{\"sku\":\"B-7\",\"qty\":1}],"
          + "\"note\":\"" + note + "\"}";
    }
    return "{\"note\":\"" + note + "\",\"lines\":[{\"qty\":2,\"sku\":\"A-1\"},{\"qty\":1,\"sku\":"
        + "\"B-7\"}],\"customer\":{\"tier\":\"gold\",\"city\":\"Lyon\"},\"currency\":\"EUR\","
        + "\"amount\":" + amount + "0,\"status\":\"PAID\",\"eventTime\":\"" + eventTime + "\","
        + "\"id\":\"" + id + "\"}";
  }

  @Override
  public void close() {
    thread.interrupt();
    producer.close(java.time.Duration.ofSeconds(30));
  }
}
