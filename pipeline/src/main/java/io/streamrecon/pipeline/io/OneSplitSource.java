package io.streamrecon.pipeline.io;

import java.io.IOException;
import java.util.List;
import org.apache.beam.sdk.io.UnboundedSource;
import org.apache.beam.sdk.options.PipelineOptions;

/**
 * An unbounded source that the runner cannot split: asked for any number of splits, it gives the
 * delegate split once, so that one reader reads every partition of the topic.
 *
 * <p>Why: Beam's classic SparkRunner makes a source's watermark the <em>latest</em> of its splits'
 * watermarks (each split reads some Kafka partitions). When one split runs behind its sibling (a
 * restart that left a backlog, a slow fetch) by more than the allowed lateness, its records come
 * in behind that watermark and land in {@code late_events}, though nothing about them is late.
 * KafkaIO's reader makes its own watermark the <em>earliest</em> of its partitions', so with one
 * split per topic no partition can be overtaken. The cost is one Kafka consumer per topic, which
 * is not what bounds a micro-batch.
 *
 * @param <T> element type
 * @param <M> checkpoint mark type, the delegate's
 */
final class OneSplitSource<T, M extends UnboundedSource.CheckpointMark>
    extends DelegatingUnboundedSource<T, M> {
  private static final long serialVersionUID = 1L;

  OneSplitSource(UnboundedSource<T, M> delegate) {
    super(delegate);
  }

  @Override
  public List<? extends UnboundedSource<T, M>> split(
      int desiredNumSplits, PipelineOptions options) throws Exception {
    return delegate.split(1, options);
  }

  @Override
  public UnboundedReader<T> createReader(PipelineOptions options, M checkpointMark)
      throws IOException {
    return delegate.createReader(options, checkpointMark);
  }
}
