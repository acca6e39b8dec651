package io.streamrecon.deltalake;

import java.io.IOException;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.joda.time.Instant;

/**
 * The data files of one bundle of a {@code DeltaLakeIO} write, for the DoFns that write them:
 * opened at the bundle's first row, finished (closed and described) at its end, abandoned when a
 * bundle fails. Not thread-safe; one per DoFn instance.
 */
public final class BundleFileWriter<T> {
  private final Configuration conf;
  private final String warehouse;
  private final String table;
  private final String runId;
  private final TableLayout<T> layout;
  private DataFileWriter<T> writer;

  /**
   * Rows of the largest file of the previous bundle: the best guess of the next files' size, to
   * size their bloom filters (a runner's bundles are alike in steady state).
   */
  private long expectedRows = DataFileWriter.DEFAULT_EXPECTED_ROWS;

  @SuppressWarnings("unchecked")
  public BundleFileWriter(String warehouse, String table, String runId) {
    this.conf = new Configuration();
    this.warehouse = warehouse;
    this.table = table;
    this.runId = runId;
    this.layout = (TableLayout<T>) TableLayouts.forName(table);
  }

  /** Forgets files left over from a bundle that failed: they must never be committed. */
  public void abandon() {
    if (writer != null) {
      writer.close();
      writer = null;
    }
  }

  public void write(T element, Instant timestamp) throws IOException {
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

  /** Closes the bundle's files and describes them; none when the bundle wrote no row. */
  public List<DataFile> finish() throws IOException {
    if (writer == null) {
      return List.of();
    }
    List<DataFile> files = writer.finish();
    writer = null;
    long largest = 0;
    for (DataFile file : files) {
      largest = Math.max(largest, file.numRecords());
    }
    expectedRows = Math.max(DataFileWriter.DEFAULT_EXPECTED_ROWS, largest);
    return files;
  }
}
