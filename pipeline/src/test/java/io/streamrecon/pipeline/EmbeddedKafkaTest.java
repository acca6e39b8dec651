package io.streamrecon.pipeline;

import static org.junit.Assert.assertEquals;

import io.streamrecon.pipeline.testing.EmbeddedKafka;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.Test;

/** The test broker itself: what is produced can be consumed back, in order. */
public class EmbeddedKafkaTest {
  @Test
  public void producesAndConsumes() throws Exception {
    try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
      kafka.createTopics("t");
      kafka.produceLines("t", List.of("a", "b", "c"));
      Map<String, Object> config =
          Map.of(
              ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
              kafka.bootstrapServers(),
              ConsumerConfig.GROUP_ID_CONFIG,
              "check",
              ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
              "earliest",
              ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
              ByteArrayDeserializer.class,
              ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
              ByteArrayDeserializer.class);
      List<String> seen = new ArrayList<>();
      try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config)) {
        consumer.subscribe(List.of("t"));
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (seen.size() < 3 && System.nanoTime() < deadline) {
          for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
            seen.add(new String(r.value(), StandardCharsets.UTF_8));
          }
        }
      }
      assertEquals(List.of("a", "b", "c"), seen);
    }
  }
}
