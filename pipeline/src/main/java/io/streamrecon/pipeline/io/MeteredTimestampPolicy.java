package io.streamrecon.pipeline.io;

import io.streamrecon.model.MetricNames;
import io.streamrecon.model.Side;
import java.util.Locale;
import java.util.Optional;
import org.apache.beam.sdk.io.UnboundedSource;
import org.apache.beam.sdk.io.kafka.KafkaRecord;
import org.apache.beam.sdk.io.kafka.TimestampPolicy;
import org.apache.beam.sdk.io.kafka.TimestampPolicyFactory;
import org.apache.beam.sdk.metrics.Gauge;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.kafka.common.TopicPartition;
import org.joda.time.Instant;

/**
 * A partition's timestamp policy that also keeps two gauges per partition, labelled by side, topic
 * and partition: the records between the reader and the latest offset ({@link
 * MetricNames#KAFKA_RECORDS_BEHIND}, as KafkaIO last measured it) and the partition's watermark
 * ({@link MetricNames#KAFKA_WATERMARK_MILLIS}). KafkaIO reports its backlog per reader split only,
 * and a split holds many partitions (on the SparkRunner, all of a topic's).
 */
final class MeteredTimestampPolicy extends TimestampPolicy<byte[], byte[]> {
  private final TimestampPolicy<byte[], byte[]> policy;
  private final Gauge behind;
  private final Gauge watermark;

  private MeteredTimestampPolicy(
      TimestampPolicy<byte[], byte[]> policy, Side side, TopicPartition partition) {
    this.policy = policy;
    String[] labels = {
      "side", side.name().toLowerCase(Locale.ROOT),
      "topic", partition.topic(),
      "partition", Integer.toString(partition.partition())
    };
    this.behind =
        Metrics.gauge(
            MetricNames.NAMESPACE, MetricNames.labelled(MetricNames.KAFKA_RECORDS_BEHIND, labels));
    this.watermark =
        Metrics.gauge(
            MetricNames.NAMESPACE,
            MetricNames.labelled(MetricNames.KAFKA_WATERMARK_MILLIS, labels));
  }

  @Override
  public Instant getTimestampForRecord(PartitionContext ctx, KafkaRecord<byte[], byte[]> record) {
    reportBacklog(ctx);
    return policy.getTimestampForRecord(ctx, record);
  }

  @Override
  public Instant getWatermark(PartitionContext ctx) {
    reportBacklog(ctx);
    Instant w = policy.getWatermark(ctx);
    if (w.isAfter(BoundedWindow.TIMESTAMP_MIN_VALUE)) {
      watermark.set(w.getMillis());
    }
    return w;
  }

  /** The policy this one meters. */
  TimestampPolicy<byte[], byte[]> policy() {
    return policy;
  }

  private void reportBacklog(PartitionContext ctx) {
    long backlog = ctx.getMessageBacklog();
    if (backlog != UnboundedSource.UnboundedReader.BACKLOG_UNKNOWN) {
      behind.set(backlog);
    }
  }

  /** Wraps the policies of another factory. */
  static final class Factory implements TimestampPolicyFactory<byte[], byte[]> {
    private static final long serialVersionUID = 1L;
    private final TimestampPolicyFactory<byte[], byte[]> policies;
    private final Side side;

    Factory(TimestampPolicyFactory<byte[], byte[]> policies, Side side) {
      this.policies = policies;
      this.side = side;
    }

    @Override
    public TimestampPolicy<byte[], byte[]> createTimestampPolicy(
        TopicPartition tp, Optional<Instant> previousWatermark) {
      return new MeteredTimestampPolicy(
          policies.createTimestampPolicy(tp, previousWatermark), side, tp);
    }
  }
}
