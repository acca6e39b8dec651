package io.streamrecon.pipeline.io;

import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.io.UnboundedSource;
import org.apache.beam.sdk.transforms.display.DisplayData;

/**
 * An unbounded source that is another source in all but how it splits or reads: coders,
 * deduplication, validation and display data are the delegate's, so a runner checkpoints and
 * dedupes a wrapped KafkaIO source exactly as it would KafkaIO's own.
 *
 * @param <T> element type
 * @param <M> checkpoint mark type, the delegate's
 */
abstract class DelegatingUnboundedSource<T, M extends UnboundedSource.CheckpointMark>
    extends UnboundedSource<T, M> {
  private static final long serialVersionUID = 1L;
  final UnboundedSource<T, M> delegate;

  DelegatingUnboundedSource(UnboundedSource<T, M> delegate) {
    this.delegate = delegate;
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
