package io.streamrecon.deltalake;

import java.io.IOException;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.windowing.GlobalWindow;
import org.apache.hadoop.conf.Configuration;
import org.joda.time.Instant;

/**
 * Stage 1 of a {@link DeltaLakeIO} write: writes the elements of a bundle into Parquet files (one
 * per partition directory, rolled at {@link DataFileWriter#MAX_FILE_BYTES}) and, when the bundle
 * finishes, emits one {@link DataFile} per file, timestamped with the earliest element in it so
 * that the downstream grouping holds the watermark there until the file is committed.
 *
 * <p>Input must be in the global window.
 */
final class WriteDataFilesFn<T> extends DoFn<T, DataFile> {

  private final String warehouse;
  private final String table;
  private final String runId;

  private final Counter filesWritten = Metrics.counter(DeltaLakeIO.NAMESPACE, "deltalake_files_written");
  private final Counter rowsWritten = Metrics.counter(DeltaLakeIO.NAMESPACE, "deltalake_rows_written");

  private transient Configuration conf;
  private transient TableLayout<T> layout;
  private transient DataFileWriter<T> writer;

  /**
   * Rows of the largest file of the previous bundle: the best guess of the next files' size, to
   * size their bloom filters (a runner's bundles are alike in steady state).
   */
  private transient long expectedRows;

  WriteDataFilesFn(String warehouse, String table, String runId) {
    this.warehouse = warehouse;
    this.table = table;
    this.runId = runId;
  }

  @Setup
  @SuppressWarnings("unchecked")
  public void setup() {
    conf = new Configuration();
    layout = (TableLayout<T>) TableLayouts.forName(table);
    expectedRows = DataFileWriter.DEFAULT_EXPECTED_ROWS;
  }

  @StartBundle
  public void startBundle() {
    if (writer != null) {
      // Left over from a bundle that failed: its files must never be committed.
      writer.close();
      writer = null;
    }
  }

  @ProcessElement
  public void process(@Element T element, @Timestamp Instant timestamp) throws IOException {
    if (writer == null) {
      writer =
          new DataFileWriter<>(
              conf,
              DeltaLakeCommitter.tablePath(warehouse, table),
              layout,
              runId,
              DataFileWriter.MAX_FILE_BYTES,
              expectedRows);
    }
    writer.write(element, timestamp);
  }

  @FinishBundle
  public void finishBundle(FinishBundleContext context) throws IOException {
    if (writer == null) {
      return;
    }
    long largest = 0;
    for (DataFile file : writer.finish()) {
      largest = Math.max(largest, file.numRecords());
      context.output(file, file.earliest(), GlobalWindow.INSTANCE);
      filesWritten.inc();
      rowsWritten.inc(file.numRecords());
    }
    writer = null;
    expectedRows = Math.max(DataFileWriter.DEFAULT_EXPECTED_ROWS, largest);
  }

  @Teardown
  public void teardown() {
    if (writer != null) {
      writer.close();
      writer = null;
    }
  }
}
