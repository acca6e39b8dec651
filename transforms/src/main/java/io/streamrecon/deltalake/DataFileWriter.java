package io.streamrecon.deltalake;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.util.HadoopOutputFile;
import org.joda.time.Instant;

/**
 * Writes the records of one bundle into snappy Parquet files under a table, one open file per
 * partition directory, and describes each file for the committer. Files are invisible to readers
 * until committed; a file of a failed bundle is never committed and is removed by VACUUM.
 *
 * <p>Not thread-safe; one per DoFn instance and bundle.
 */
final class DataFileWriter<T> implements AutoCloseable {

  /** A file is rolled once it grows past this, so a long batch bundle never makes a huge file. */
  static final long MAX_FILE_BYTES = 256L << 20;

  /** Rows a file is expected to hold when the caller has no better guess (sizes bloom filters). */
  static final long DEFAULT_EXPECTED_ROWS = DataFileFormat.MIN_BLOOM_KEYS;

  private static final int SIZE_CHECK_INTERVAL = 1000;

  private final Configuration conf;
  private final Path tableRoot;
  private final TableLayout<T> layout;
  private final String runId;
  private final long maxFileBytes;
  private final long expectedRows;
  private final int inlineKeysMaxBytes;
  private final Map<String, OpenFile> open = new LinkedHashMap<>();
  private final List<DataFile> finished = new ArrayList<>();

  private final class OpenFile {
    final String relativePath;
    final Map<String, String> partitionValues;
    final RowWriteSupport<T> support;
    final ParquetWriter<T> writer;
    final FileStats stats;
    final ByteArrayOutputStream rowKeys = new ByteArrayOutputStream();
    Instant earliest;

    OpenFile(String relativePath, Map<String, String> partitionValues) throws IOException {
      this.relativePath = relativePath;
      this.partitionValues = partitionValues;
      this.support = new RowWriteSupport<>(layout);
      this.stats = new FileStats(layout);
      Path path = new Path(tableRoot, relativePath);
      this.writer =
          DataFileFormat.configure(
                  new RowWriteSupport.Builder<>(HadoopOutputFile.fromPath(path, conf), support)
                      .withConf(conf),
                  layout,
                  expectedRows)
              .build();
    }
  }

  DataFileWriter(Configuration conf, Path tableRoot, TableLayout<T> layout, String runId) {
    this(conf, tableRoot, layout, runId, MAX_FILE_BYTES, DEFAULT_EXPECTED_ROWS);
  }

  /**
   * @param maxFileBytes a file is closed and another opened once it holds this many bytes
   * @param expectedRows rows a file will probably hold, to size its bloom filters (see {@link
   *     DataFileFormat#configure})
   */
  DataFileWriter(
      Configuration conf,
      Path tableRoot,
      TableLayout<T> layout,
      String runId,
      long maxFileBytes,
      long expectedRows) {
    this(conf, tableRoot, layout, runId, maxFileBytes, expectedRows, RowKeys.INLINE_MAX_BYTES);
  }

  /** @param inlineKeysMaxBytes row keys larger than this go to a sidecar ({@link RowKeys}) */
  DataFileWriter(
      Configuration conf,
      Path tableRoot,
      TableLayout<T> layout,
      String runId,
      long maxFileBytes,
      long expectedRows,
      int inlineKeysMaxBytes) {
    this.inlineKeysMaxBytes = inlineKeysMaxBytes;
    this.conf = conf;
    this.tableRoot = tableRoot;
    this.layout = layout;
    this.runId = runId;
    this.maxFileBytes = maxFileBytes;
    this.expectedRows = expectedRows;
  }

  /** Appends a record to the open file of its partition; {@code timestamp} is its element time. */
  void write(T record, Instant timestamp) throws IOException {
    RowContext context = new RowContext(runId, Instant.now());
    Map<String, String> partitionValues = layout.partitionValues(record, context);
    String directory = TableLayout.partitionDirectory(partitionValues);
    OpenFile file = open.get(directory);
    if (file == null) {
      String name = "part-" + UUID.randomUUID() + ".snappy.parquet";
      file = new OpenFile(directory.isEmpty() ? name : directory + "/" + name, partitionValues);
      open.put(directory, file);
    }
    file.support.setContext(context);
    file.writer.write(record);
    file.stats.add(record, context);
    RowKeys.encode(layout, record, file.rowKeys);
    if (file.earliest == null || timestamp.isBefore(file.earliest)) {
      file.earliest = timestamp;
    }
    if (file.stats.numRecords() % SIZE_CHECK_INTERVAL == 0
        && file.writer.getDataSize() >= maxFileBytes) {
      open.remove(directory);
      finished.add(close(file));
    }
  }

  /** Closes every open file and returns the descriptions of all files written since the start. */
  List<DataFile> finish() throws IOException {
    for (OpenFile file : open.values()) {
      finished.add(close(file));
    }
    open.clear();
    List<DataFile> result = List.copyOf(finished);
    finished.clear();
    return result;
  }

  private DataFile close(OpenFile file) throws IOException {
    file.writer.close();
    Path path = new Path(tableRoot, file.relativePath);
    FileStatus status = path.getFileSystem(conf).getFileStatus(path);
    byte[] keys = file.rowKeys.toByteArray();
    String sidecar = "";
    if (keys.length > inlineKeysMaxBytes) {
      sidecar = RowKeys.sidecarPath(runId, file.relativePath);
      RowKeys.writeSidecar(conf, tableRoot, sidecar, keys);
      keys = new byte[0];
    }
    return new DataFile(
        layout.name,
        file.relativePath,
        file.partitionValues,
        status.getLen(),
        status.getModificationTime(),
        file.stats.numRecords(),
        file.stats.toJson(),
        keys,
        sidecar,
        file.earliest);
  }

  /** Abandons open files (bundle failed): closes and deletes them, best effort. */
  @Override
  public void close() {
    for (OpenFile file : open.values()) {
      Path path = new Path(tableRoot, file.relativePath);
      try {
        file.writer.close();
      } catch (IOException | RuntimeException e) {
        // The file is never committed; a half-written file cannot be read anyway.
      }
      try {
        FileSystem fs = path.getFileSystem(conf);
        fs.delete(path, false);
      } catch (IOException e) {
        // Left for VACUUM, which removes files no commit references.
      }
    }
    open.clear();
    finished.clear();
  }
}
