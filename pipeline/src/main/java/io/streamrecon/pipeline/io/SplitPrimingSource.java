package io.streamrecon.pipeline.io;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.io.UnboundedSource;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.transforms.display.DisplayData;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.joda.time.Instant;

/**
 * An unbounded source whose readers emit one marker element when they start without a record, so
 * that the runner opens the split's output at once. Downstream drops the markers.
 *
 * <p>Why: Beam 2.70's {@code FlinkUnboundedSourceReader} creates a split's Flink {@code
 * SourceOutput}, and so emits that split's watermark, only when the split's first record is
 * emitted. A Kafka partition that gets no record after a start or a restore therefore sends no
 * watermark at all, and when a reader subtask holds only such partitions the event-time clock of
 * everything downstream stays where it was: open entries never expire and old events are not late.
 * With the marker each split's watermark (the restored one, then the idle rule's) flows from the
 * first poll on.
 *
 * @param <T> element type
 * @param <M> checkpoint mark type, the delegate's
 */
final class SplitPrimingSource<T, M extends UnboundedSource.CheckpointMark>
    extends UnboundedSource<T, M> {
  private static final long serialVersionUID = 1L;
  // Flink checkpoints hold this source Java-serialized: its class, fields and superclass are part
  // of every restored job's state, so they stay as they are.
  private final UnboundedSource<T, M> delegate;
  private final SerializableFunction<Instant, T> marker;

  /**
   * @param marker makes the marker element for the given timestamp (the reader's watermark when it
   *     started); downstream must recognise it
   */
  SplitPrimingSource(UnboundedSource<T, M> delegate, SerializableFunction<Instant, T> marker) {
    this.delegate = delegate;
    this.marker = marker;
  }

  @Override
  public List<SplitPrimingSource<T, M>> split(int desiredNumSplits, PipelineOptions options)
      throws Exception {
    List<SplitPrimingSource<T, M>> splits = new ArrayList<>();
    for (UnboundedSource<T, M> s : delegate.split(desiredNumSplits, options)) {
      splits.add(new SplitPrimingSource<>(s, marker));
    }
    return splits;
  }

  @Override
  public UnboundedReader<T> createReader(PipelineOptions options, M checkpointMark)
      throws IOException {
    return new Reader(delegate.createReader(options, checkpointMark));
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

  /** The delegate's reader, with a marker as first element when its start finds nothing. */
  private final class Reader extends UnboundedReader<T> {
    private final UnboundedReader<T> inner;
    private T currentMarker;
    private Instant markerTimestamp;

    Reader(UnboundedReader<T> inner) {
      this.inner = inner;
    }

    @Override
    public boolean start() throws IOException {
      if (inner.start()) {
        return true;
      }
      Instant w = inner.getWatermark();
      markerTimestamp = w == null ? BoundedWindow.TIMESTAMP_MIN_VALUE : w;
      currentMarker = marker.apply(markerTimestamp);
      return true;
    }

    @Override
    public boolean advance() throws IOException {
      // After a marker the delegate's start found nothing, so its next record comes from here.
      currentMarker = null;
      return inner.advance();
    }

    @Override
    public T getCurrent() throws NoSuchElementException {
      return currentMarker != null ? currentMarker : inner.getCurrent();
    }

    @Override
    public Instant getCurrentTimestamp() throws NoSuchElementException {
      return currentMarker != null ? markerTimestamp : inner.getCurrentTimestamp();
    }

    @Override
    public byte[] getCurrentRecordId() throws NoSuchElementException {
      return currentMarker != null ? new byte[0] : inner.getCurrentRecordId();
    }

    @Override
    public byte[] getCurrentRecordOffset() {
      return currentMarker != null ? new byte[0] : inner.getCurrentRecordOffset();
    }

    @Override
    public Instant getWatermark() {
      return inner.getWatermark();
    }

    @Override
    public CheckpointMark getCheckpointMark() {
      return inner.getCheckpointMark();
    }

    @Override
    public long getSplitBacklogBytes() {
      return inner.getSplitBacklogBytes();
    }

    @Override
    public long getTotalBacklogBytes() {
      return inner.getTotalBacklogBytes();
    }

    @Override
    public UnboundedSource<T, ?> getCurrentSource() {
      return SplitPrimingSource.this;
    }

    @Override
    public void close() throws IOException {
      inner.close();
    }
  }
}
