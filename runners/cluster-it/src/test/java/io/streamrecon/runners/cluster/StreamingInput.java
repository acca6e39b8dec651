package io.streamrecon.runners.cluster;

import static org.junit.Assert.assertTrue;

import io.streamrecon.pipeline.testing.KafkaBrokerProcess;
import io.streamrecon.pipeline.testing.Scenario;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/** What the clusters' streaming tests share: the scenario into Kafka, verdicts out of a table. */
final class StreamingInput {
  private StreamingInput() {}

  /** Produces {@code lines} to {@code topic}, acknowledged by the broker. */
  static void produce(KafkaBrokerProcess kafka, String topic, List<String> lines) throws Exception {
    Map<String, Object> config =
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            kafka.bootstrapServers(),
            ProducerConfig.ACKS_CONFIG,
            "all",
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
            StringSerializer.class,
            ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
            StringSerializer.class);
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

  /**
   * Waits until the job in {@code child} has committed exactly {@code expected}; fails if it ends
   * first or after {@code seconds}, with what is missing and the child's stderr.
   */
  static void awaitVerdicts(Distribution.Child child, Path wh, Set<String> expected, long seconds)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (!expected.equals(currentView(wh))) {
      assertTrue(
          "the streaming run ended early; stderr:\n" + child.stderrTail(), child.process.isAlive());
      assertTrue(
          "the streaming run did not reach the DirectRunner's verdicts in "
              + seconds
              + " s: "
              + difference(expected, wh)
              + "\nstderr:\n"
              + child.stderrTail(),
          System.nanoTime() < deadline);
      // Polling the warehouse another process writes; wakes early if the process ends.
      child.process.waitFor(1, TimeUnit.SECONDS);
    }
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
