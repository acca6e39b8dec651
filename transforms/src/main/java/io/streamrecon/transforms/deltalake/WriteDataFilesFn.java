package io.streamrecon.transforms.deltalake;

import io.streamrecon.deltalake.BundleFileWriter;
import io.streamrecon.deltalake.DataFile;
import io.streamrecon.deltalake.WarehouseTables;
import io.streamrecon.model.DeadLetter;
import io.streamrecon.model.Event;
import io.streamrecon.model.ParsedInput;
import java.io.IOException;
import java.util.function.Consumer;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.windowing.GlobalWindow;
import org.apache.beam.sdk.values.TupleTag;
import org.joda.time.Instant;

/**
 * Stage 1 of a {@link DeltaLakeIO} write: writes the elements of a bundle into Parquet files (one
 * per partition directory, rolled at {@code DataFileWriter.MAX_FILE_BYTES}) and, when the bundle
 * finishes, emits one {@link DataFile} per file, timestamped with the earliest element in it so
 * that the downstream grouping holds the watermark there until the file is committed.
 *
 * <p>Input must be in the global window.
 */
final class WriteDataFilesFn<T> extends DoFn<T, DataFile> {

  private final String warehouse;
  private final String table;
  private final String runId;

  private final Counter filesWritten =
      Metrics.counter(DeltaLakeIO.NAMESPACE, "deltalake_files_written");
  private final Counter rowsWritten =
      Metrics.counter(DeltaLakeIO.NAMESPACE, "deltalake_rows_written");

  private transient BundleFileWriter<T> files;

  WriteDataFilesFn(String warehouse, String table, String runId) {
    this.warehouse = warehouse;
    this.table = table;
    this.runId = runId;
  }

  @Setup
  public void setup() {
    files = new BundleFileWriter<>(warehouse, table, runId);
  }

  @StartBundle
  public void startBundle() {
    files.abandon();
  }

  @ProcessElement
  public void process(@Element T element, @Timestamp Instant timestamp) throws IOException {
    files.write(element, timestamp);
  }

  @FinishBundle
  public void finishBundle(FinishBundleContext context) throws IOException {
    emitFinished(file -> context.output(file, file.earliest(), GlobalWindow.INSTANCE));
  }

  /** Finishes the bundle's files and hands each to {@code out}, counted. */
  void emitFinished(Consumer<DataFile> out) throws IOException {
    for (DataFile file : files.finish()) {
      out.accept(file);
      filesWritten.inc();
      rowsWritten.inc(file.numRecords());
    }
  }

  @Teardown
  public void teardown() {
    if (files != null) {
      files.abandon();
    }
  }

  /**
   * {@link WriteDataFilesFn} for raw events that come with the dead letters of their parsing:
   * writes the events and passes each dead letter on to {@code deadLetters}, unchanged, with its
   * timestamp.
   */
  static final class FromParsedInputs extends DoFn<ParsedInput, DataFile> {
    private final WriteDataFilesFn<Event> events;
    private final TupleTag<DeadLetter> deadLetters;

    FromParsedInputs(String warehouse, String runId, TupleTag<DeadLetter> deadLetters) {
      this.events = new WriteDataFilesFn<>(warehouse, WarehouseTables.RAW_EVENTS, runId);
      this.deadLetters = deadLetters;
    }

    @Setup
    public void setup() {
      events.setup();
    }

    @StartBundle
    public void startBundle() {
      events.startBundle();
    }

    @ProcessElement
    public void process(
        @Element ParsedInput outcome, @Timestamp Instant timestamp, MultiOutputReceiver out)
        throws IOException {
      if (outcome.parsed()) {
        events.process(outcome.event(), timestamp);
      } else {
        out.get(deadLetters).output(outcome.deadLetter());
      }
    }

    @FinishBundle
    public void finishBundle(FinishBundleContext context) throws IOException {
      events.emitFinished(file -> context.output(file, file.earliest(), GlobalWindow.INSTANCE));
    }

    @Teardown
    public void teardown() {
      events.teardown();
    }
  }
}
