package io.streamrecon.bench;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.streamrecon.pipeline.testing.EmbeddedKafka;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.Test;

public class SoakProducerTest {
  private static final long SECOND = 1_000_000_000L;

  @Test
  public void aLaggingTargetEventIsDueTheLagAfterItsSource() {
    assertEquals(
        7 * SECOND, SoakProducer.dueNanos(2 * SECOND, 0, Duration.ofSeconds(5), Duration.ZERO));
  }

  @Test
  public void aBurstyTargetEventWaitsForTheNextBurst() {
    Duration every = Duration.ofSeconds(10);
    long start = 100 * SECOND;
    assertEquals(
        start + 10 * SECOND, SoakProducer.dueNanos(start + SECOND, start, Duration.ZERO, every));
    assertEquals(
        "on a burst's moment it goes with that burst",
        start + 20 * SECOND,
        SoakProducer.dueNanos(start + 20 * SECOND, start, Duration.ZERO, every));
    assertEquals(
        "the lag first, then the next burst",
        start + 30 * SECOND,
        SoakProducer.dueNanos(start + 3 * SECOND, start, Duration.ofSeconds(18), every));
  }

  /**
   * On a broker: every target event is appended at least the lag after its source partner, the
   * pre-filled ids come first on the source and match, and the counts include them.
   */
  @Test
  public void theTargetLagsAndThePrefillMatches() throws Exception {
    Duration lag = Duration.ofSeconds(2);
    SoakProducer.Plan plan =
        new SoakProducer.Plan(40, Duration.ofSeconds(1), 0, 0, 16, 7, lag, Duration.ZERO, 10);
    try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
      kafka.createTopics("s", "t");
      try (SoakProducer producer = new SoakProducer(kafka.bootstrapServers(), "s", "t", plan)) {
        producer.start();
        producer.awaitSent();
        assertEquals(50, producer.idsProduced());
        SoakProducer.Counts counts = producer.counts();
        assertEquals(
            50,
            counts.match()
                + counts.mismatch()
                + counts.missingInTarget()
                + counts.missingInSource());
        assertTrue(counts.match() >= 10);
      }
      Map<String, Long> source = appendTimes(kafka, "s");
      Map<String, Long> target = appendTimes(kafka, "t");
      assertTrue(source.keySet().containsAll(List.of("pre-000000000", "pre-000000009")));
      assertTrue(target.keySet().containsAll(List.of("pre-000000000", "pre-000000009")));
      int paired = 0;
      for (Map.Entry<String, Long> e : target.entrySet()) {
        Long sent = source.get(e.getKey());
        if (sent != null) {
          paired++;
          // Record times are milliseconds of the wall clock, the lag is measured in nanoseconds.
          assertTrue(
              e.getKey() + " appended " + (e.getValue() - sent) + " ms after its source",
              e.getValue() - sent >= lag.toMillis() - 1);
        }
      }
      assertTrue("pairs seen: " + paired, paired >= 40);
    }
  }

  /** The record time of each key in a one-partition topic. */
  private static Map<String, Long> appendTimes(EmbeddedKafka kafka, String topic) {
    Map<String, Long> times = new HashMap<>();
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                kafka.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG,
                "t-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "earliest"),
            new StringDeserializer(),
            new StringDeserializer())) {
      TopicPartition tp = new TopicPartition(topic, 0);
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long end = consumer.endOffsets(List.of(tp)).get(tp);
      while (consumer.position(tp) < end) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofSeconds(1))) {
          times.put(r.key(), r.timestamp());
        }
      }
    }
    return times;
  }
}
