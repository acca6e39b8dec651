package io.streamrecon.deltalake;

import io.streamrecon.model.DeltaRecord;
import io.streamrecon.model.Event;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.hadoop.conf.Configuration;
import org.joda.time.Instant;

/**
 * Appends rows to a streamrecon table from plain Java code, without a pipeline: the data files,
 * statistics, row keys and log entries that a run's writer commits, through the same committer, so
 * that every reader ({@code explain}, {@code report}, {@code show}, replay) finds the table as a
 * run leaves it. For tools that seed, import or generate tables, such as a generator of tables
 * larger than a local runner can produce.
 *
 * <p>Rows go to open data files, one per partition, until {@link #finishFiles()} closes them;
 * {@link #commit} commits every file closed since the last commit in one table version, leaving out
 * the rows its app id stored already, as a run leaves out a replayed pane's. Not thread-safe.
 * {@link #close()} deletes the files still open; closed files that were never committed stay until
 * a vacuum removes them.
 *
 * @param <T> the row type of the table
 */
public final class DeltaLakeAppender<T> implements AutoCloseable {
  private final Configuration conf;
  private final String warehouse;
  private final String runId;
  private final TableLayout<T> layout;
  private final long expectedRowsPerFile;
  private final List<DataFile> finished = new ArrayList<>();
  private DeltaLakeCommitter committer;
  private DataFileWriter<T> writer;
  private boolean used;

  private DeltaLakeAppender(
      Configuration conf,
      String warehouse,
      String runId,
      TableLayout<T> layout,
      long expectedRowsPerFile) {
    this.conf = conf;
    this.warehouse = warehouse;
    this.runId = runId;
    this.layout = layout;
    this.expectedRowsPerFile = expectedRowsPerFile;
  }

  /**
   * An appender to the {@code raw_events} table under {@code warehouse}, its rows stamped with
   * {@code runId} as a run stamps them.
   */
  public static DeltaLakeAppender<Event> rawEvents(
      Configuration conf, String warehouse, String runId) {
    return create(conf, warehouse, runId, TableLayouts.RAW_EVENTS);
  }

  /**
   * An appender to the {@code deltas} table under {@code warehouse}, its rows stamped with {@code
   * runId} as a run stamps them.
   */
  public static DeltaLakeAppender<DeltaRecord> deltas(
      Configuration conf, String warehouse, String runId) {
    return create(conf, warehouse, runId, TableLayouts.DELTAS);
  }

  private static <T> DeltaLakeAppender<T> create(
      Configuration conf, String warehouse, String runId, TableLayout<T> layout) {
    Objects.requireNonNull(conf, "conf");
    WarehouseTables.checkWarehouse(warehouse);
    // The run id names the folder of the appender's row key sidecars.
    if (!WarehouseIds.isValid(runId)) {
      throw new IllegalArgumentException(
          "runId must be "
              + WarehouseIds.FORM
              + ", got "
              + (runId == null ? "null" : "\"" + runId + "\""));
    }
    return new DeltaLakeAppender<>(
        conf, warehouse, runId, layout, DataFileWriter.DEFAULT_EXPECTED_ROWS);
  }

  /**
   * This appender with the rows a data file will probably hold, which sizes the files' Parquet
   * bloom filters; by default they are sized as a run's writer sizes the first file of a bundle,
   * when it knows nothing of the input yet. Only before the first row.
   *
   * @param rows at least 1
   */
  public DeltaLakeAppender<T> withExpectedRowsPerFile(long rows) {
    if (rows < 1) {
      throw new IllegalArgumentException("expectedRowsPerFile must be at least 1, got " + rows);
    }
    checkUnused("withExpectedRowsPerFile");
    return new DeltaLakeAppender<>(conf, warehouse, runId, layout, rows);
  }

  /**
   * This appender writing no Parquet bloom filters, as releases before them wrote files: to compare
   * what the filters save a lookup. Only before the first row.
   */
  public DeltaLakeAppender<T> withoutBloomFilters() {
    checkUnused("withoutBloomFilters");
    TableLayout<T> plain =
        new TableLayout<>(
            layout.name,
            layout.type,
            layout.columns.stream().map(ColumnSpec::withoutBloomFilter).toList(),
            layout.rowKeys,
            layout.identity.stream().map(c -> c.name).toList());
    return new DeltaLakeAppender<>(conf, warehouse, runId, plain, expectedRowsPerFile);
  }

  private void checkUnused(String setting) {
    if (used) {
      throw new IllegalStateException(setting + " must be set before the first row is written");
    }
  }

  /** Appends {@code row} to the open file of its partition; {@code eventTime} is its time. */
  public void write(T row, Instant eventTime) throws IOException {
    used = true;
    if (writer == null) {
      writer =
          new DataFileWriter<>(
              conf,
              DeltaLakeCommitter.tablePath(warehouse, layout.name),
              layout,
              runId,
              DataFileWriter.MAX_FILE_BYTES,
              expectedRowsPerFile);
    }
    writer.write(row, eventTime);
  }

  /**
   * Closes the open data files, so that the next row starts new ones, and describes the files
   * closed as the table's log will once they are committed (not yet live: {@link #commit} makes
   * them so).
   */
  public List<DeltaLakeSnapshot.TableFile> finishFiles() throws IOException {
    if (writer == null) {
      return List.of();
    }
    List<DataFile> files = writer.finish();
    finished.addAll(files);
    return files.stream()
        .map(
            f ->
                new DeltaLakeSnapshot.TableFile(
                    f.path(), f.partitionValues(), f.sizeBytes(), f.stats()))
        .toList();
  }

  /**
   * Closes the open data files and commits every file closed since the last commit in one table
   * version, with a {@code SetTransaction} of {@code appId} at a version of at least {@code
   * txnVersion}. Rows equal by content to rows {@code appId} committed recently are copies and are
   * not stored again (a file with copies is rewritten without them), as a run's writer treats a
   * replayed pane; when every row is a copy nothing is committed.
   *
   * @return the table version that holds the rows: the new one, or when every row was a copy the
   *     one that stored them
   */
  public long commit(String appId, long txnVersion) throws IOException {
    Objects.requireNonNull(appId, "appId");
    finishFiles();
    if (committer == null) {
      committer = new DeltaLakeCommitter(conf, warehouse, layout);
    }
    List<DataFile> files = List.copyOf(finished);
    finished.clear();
    return committer.commit(appId, txnVersion, files).tableVersion();
  }

  /** Deletes the files still open; files closed by {@link #finishFiles()} stay where they are. */
  @Override
  public void close() {
    if (writer != null) {
      writer.close();
      writer = null;
    }
  }
}
