package io.streamrecon.runners.cluster;

import io.streamrecon.pipeline.testing.KafkaBrokerProcess;
import io.streamrecon.pipeline.testing.Scenario;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/** What the clusters' streaming tests share: the scenario into Kafka, verdicts out of a table. */
final class StreamingInput {
  private StreamingInput() {}

  /** Produces {@code lines} to {@code topic}, acknowledged by the broker. */
  static void produce(KafkaBrokerProcess kafka, String topic, List<String> lines)
      throws Exception {
    Map<String, Object> config =
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
            ProducerConfig.ACKS_CONFIG, "all",
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
            ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
      for (String line : lines) {
        producer.send(new ProducerRecord<>(topic, line));
      }
      producer.flush();
    }
  }

  /** The final verdicts a running job has committed so far (none before its first commit). */
  static Set<String> currentView(Path wh) {
    return Files.isDirectory(wh.resolve("deltas").resolve("_delta_log"))
        ? Scenario.finalView(wh)
        : Set.of();
  }

  /** What the job's committed verdicts lack, and have beyond, {@code expected}. */
  static String difference(Set<String> expected, Path wh) {
    Set<String> now = currentView(wh);
    Set<String> missing = new TreeSet<>(expected);
    missing.removeAll(now);
    Set<String> extra = new TreeSet<>(now);
    extra.removeAll(expected);
    return "missing " + missing + ", unexpected " + extra;
  }
}
