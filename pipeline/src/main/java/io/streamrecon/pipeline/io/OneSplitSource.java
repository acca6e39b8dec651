package io.streamrecon.pipeline.io;

import java.io.IOException;
import java.util.List;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.io.UnboundedSource;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.transforms.display.DisplayData;

/**
 * An unbounded source that the runner cannot split: asked for any number of splits, it gives the
 * delegate split once, so that one reader reads every partition of the topic.
 *
 * <p>Why: Beam's classic SparkRunner makes a source's watermark the <em>latest</em> of its splits'
 * watermarks (each split reads some Kafka partitions). When one split runs behind its sibling (a
 * restart that left a backlog, a slow fetch) by more than the allowed lateness, its records come in
 * behind that watermark and land in {@code late_events}, though nothing about them is late.
 * KafkaIO's reader makes its own watermark the <em>earliest</em> of its partitions', so with one
 * split per topic no partition can be overtaken. The cost is one Kafka consumer per topic, which is
 * not what bounds a micro-batch.
 *
 * @param <T> element type
 * @param <M> checkpoint mark type, the delegate's
 */
final class OneSplitSource<T, M extends UnboundedSource.CheckpointMark>
    extends UnboundedSource<T, M> {
  private static final long serialVersionUID = 1L;
  // Spark streaming checkpoints hold the DStream graph, this source in it, Java-serialized: its
  // class, fields and superclass are part of every restored job's state, so they stay as they are.
  private final UnboundedSource<T, M> delegate;

  OneSplitSource(UnboundedSource<T, M> delegate) {
    this.delegate = delegate;
  }

  @Override
  public List<? extends UnboundedSource<T, M>> split(int desiredNumSplits, PipelineOptions options)
      throws Exception {
    return delegate.split(1, options);
  }

  @Override
  public UnboundedReader<T> createReader(PipelineOptions options, M checkpointMark)
      throws IOException {
    return delegate.createReader(options, checkpointMark);
  }

  @Override
  public Coder<M> getCheckpointMarkCoder() {
    return delegate.getCheckpointMarkCoder();
  }

  @Override
  public boolean requiresDeduping() {
    return delegate.requiresDeduping();
  }

  @Override
  public boolean offsetBasedDeduplicationSupported() {
    return delegate.offsetBasedDeduplicationSupported();
  }

  @Override
  public Coder<T> getOutputCoder() {
    return delegate.getOutputCoder();
  }

  @Override
  public void validate() {
    delegate.validate();
  }

  @Override
  public void populateDisplayData(DisplayData.Builder builder) {
    delegate.populateDisplayData(builder);
  }
}
