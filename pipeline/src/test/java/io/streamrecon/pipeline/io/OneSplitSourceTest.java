package io.streamrecon.pipeline.io;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.streamrecon.model.Side;
import io.streamrecon.pipeline.testing.EmbeddedKafka;
import java.nio.charset.StandardCharsets;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.beam.sdk.io.UnboundedSource;
import org.apache.beam.sdk.io.kafka.KafkaCheckpointMark;
import org.apache.beam.sdk.io.kafka.KafkaRecord;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.Test;

/**
 * On a real broker, a topic whose two partitions are an hour apart in event time: split as the
 * runner asks, the latest split watermark (what Beam's classic SparkRunner takes for the source)
 * passes the records of the partition behind; kept as one split, the reader's watermark is the
 * earliest of the partitions', so no partition is overtaken.
 */
public class OneSplitSourceTest {
  private static final Duration BOUND = Duration.standardSeconds(30);
  private final PipelineOptions options = PipelineOptionsFactory.create();

  @Test
  public void oneSplitReadsEveryPartitionAndHoldsTheWatermarkAtTheEarliest() throws Exception {
    java.time.Instant now = java.time.Instant.now().truncatedTo(ChronoUnit.SECONDS);
    Instant ahead = new Instant(now.minus(1, ChronoUnit.HOURS).toEpochMilli());
    Instant behind = new Instant(now.minus(2, ChronoUnit.HOURS).toEpochMilli());
    try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
      createTopic(kafka, "two", 2);
      produce(kafka, "two", 0, List.of(line("a-1", ahead), line("a-2", ahead)));
      produce(kafka, "two", 1, List.of(line("b-1", behind), line("b-2", behind)));
      UnboundedSource<KafkaRecord<byte[], byte[]>, KafkaCheckpointMark> kafkaSource =
          ReadKafka.makeSource(
              ReadKafka.of(Side.SOURCE, InputSpec.parse("--source", kafka.uri("two")))
                  .withMaxOutOfOrderness(BOUND)
                  .kafkaRead());

      List<? extends UnboundedSource<KafkaRecord<byte[], byte[]>, KafkaCheckpointMark>> split =
          kafkaSource.split(2, options);
      assertEquals(2, split.size());
      Instant latest = new Instant(Long.MIN_VALUE);
      for (var s : split) {
        Instant w = readAll(s, 2);
        latest = w.isAfter(latest) ? w : latest;
      }
      assertEquals("the latest split watermark", ahead.minus(BOUND), latest);

      List<? extends UnboundedSource<KafkaRecord<byte[], byte[]>, KafkaCheckpointMark>> one =
          new OneSplitSource<>(kafkaSource).split(2, options);
      assertEquals(1, one.size());
      assertEquals("the one split's watermark", behind.minus(BOUND), readAll(one.get(0), 4));
    }
  }

  /** Reads {@code n} records from a fresh reader of the split and returns its watermark then. */
  private Instant readAll(
      UnboundedSource<KafkaRecord<byte[], byte[]>, KafkaCheckpointMark> s, int n) throws Exception {
    try (UnboundedSource.UnboundedReader<KafkaRecord<byte[], byte[]>> r =
        s.createReader(options, null)) {
      int read = 0;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      boolean more = r.start();
      while (read < n) {
        if (more) {
          read++;
        }
        assertTrue("read " + read + " of " + n + " records", System.nanoTime() < deadline);
        if (read < n) {
          more = r.advance();
        }
      }
      return r.getWatermark();
    }
  }

  private static String line(String id, Instant eventTime) {
    return "{\"id\":\"" + id + "\",\"eventTime\":\"" + eventTime + "\"}";
  }

  private static void createTopic(EmbeddedKafka kafka, String topic, int partitions)
      throws Exception {
    try (Admin admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
      admin
          .createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
          .all()
          .get(60, TimeUnit.SECONDS);
    }
  }

  private static void produce(EmbeddedKafka kafka, String topic, int partition, List<String> lines)
      throws Exception {
    Map<String, Object> config =
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            kafka.bootstrapServers(),
            ProducerConfig.ACKS_CONFIG,
            "all",
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
            ByteArraySerializer.class,
            ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
            ByteArraySerializer.class);
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config)) {
      List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
      for (String l : lines) {
        sent.add(
            producer.send(
                new ProducerRecord<>(topic, partition, null, l.getBytes(StandardCharsets.UTF_8))));
      }
      for (var f : sent) {
        f.get(60, TimeUnit.SECONDS);
      }
    }
  }
}
