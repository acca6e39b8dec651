package io.streamrecon.pipeline.io;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.not;
import static org.junit.Assert.assertEquals;

import io.streamrecon.model.Side;
import io.streamrecon.pipeline.metrics.PrometheusSeries;
import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.beam.runners.core.metrics.MetricsContainerStepMap;
import org.apache.beam.sdk.io.kafka.KafkaRecord;
import org.apache.beam.sdk.io.kafka.KafkaTimestampType;
import org.apache.beam.sdk.io.kafka.TimestampPolicy;
import org.apache.beam.sdk.io.kafka.TimestampPolicy.PartitionContext;
import org.apache.beam.sdk.metrics.MetricsEnvironment;
import org.apache.kafka.common.TopicPartition;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.Test;

/**
 * The Kafka read keeps, per partition, the records behind the latest offset and the watermark,
 * exported as {@code streamrecon_kafka_records_behind_latest} and {@code
 * streamrecon_watermark_seconds} with side, topic and partition labels.
 */
public class MeteredTimestampPolicyTest {
  private static final Instant NOW = Instant.now();

  private static PartitionContext backlog(long records) {
    return new PartitionContext() {
      @Override
      public long getMessageBacklog() {
        return records;
      }

      @Override
      public Instant getBacklogCheckTime() {
        return NOW;
      }
    };
  }

  @Test
  public void eachPartitionReportsItsBacklogAndWatermark() throws IOException {
    TimestampPolicy<byte[], byte[]> policy =
        ReadKafka.of(Side.SOURCE, InputSpec.parse("source", "kafka://127.0.0.1:9/orders"))
            .withTimeField("/t")
            .withMaxOutOfOrderness(Duration.standardSeconds(5))
            .kafkaRead()
            .getTimestampPolicyFactory()
            .createTimestampPolicy(new TopicPartition("orders", 3), Optional.empty());
    Instant eventTime = NOW.minus(Duration.standardMinutes(1));
    byte[] value = ("{\"t\":\"" + eventTime + "\"}").getBytes(StandardCharsets.UTF_8);
    KafkaRecord<byte[], byte[]> record =
        new KafkaRecord<>(
            "orders", 3, 10L, NOW.getMillis(), KafkaTimestampType.CREATE_TIME, null, null, value);
    MetricsContainerStepMap metrics = new MetricsContainerStepMap();

    Instant watermark;
    try (Closeable c =
        MetricsEnvironment.scopedMetricsContainer(metrics.getContainer("ReadSource"))) {
      assertEquals(eventTime, policy.getTimestampForRecord(backlog(42), record));
      watermark = policy.getWatermark(backlog(41));
    }

    String text =
        PrometheusSeries.render(
            MetricsContainerStepMap.asAttemptedOnlyMetricResults(metrics).allMetrics());
    assertThat(
        text,
        containsString(
            "streamrecon_kafka_records_behind_latest"
                + "{partition=\"3\",side=\"source\",topic=\"orders\"} 41\n"));
    assertEquals(eventTime.minus(Duration.standardSeconds(5)), watermark);
    assertThat(
        text,
        containsString(
            "streamrecon_watermark_seconds{partition=\"3\",side=\"source\",topic=\"orders\"} "
                + watermark.getMillis() / 1000.0
                + "\n"));
  }

  @Test
  public void anUnknownBacklogAndAnEmptyPartitionReportNothing() throws IOException {
    TimestampPolicy<byte[], byte[]> policy =
        ReadKafka.of(Side.TARGET, InputSpec.parse("target", "kafka://127.0.0.1:9/orders"))
            .kafkaRead()
            .getTimestampPolicyFactory()
            .createTimestampPolicy(new TopicPartition("orders", 0), Optional.empty());
    MetricsContainerStepMap metrics = new MetricsContainerStepMap();

    try (Closeable c =
        MetricsEnvironment.scopedMetricsContainer(metrics.getContainer("ReadTarget"))) {
      policy.getWatermark(backlog(-1));
    }

    String text =
        PrometheusSeries.render(
            MetricsContainerStepMap.asAttemptedOnlyMetricResults(metrics).allMetrics());
    assertThat(text, not(containsString("kafka_records_behind_latest")));
    assertThat(text, not(containsString("watermark_seconds")));
  }
}
