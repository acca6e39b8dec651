package io.streamrecon.deltalake;

import io.streamrecon.model.DataFileName;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 * <p>A file's row keys ({@link RowKeys}) are kept in memory only while they fit inline; past {@link
 * RowKeys#INLINE_MAX_BYTES} they are streamed to the file's sidecar as they are written, so an open
 * file costs the writer a bounded buffer however many rows it takes (a batch run's 256 MB
 * raw_events file carries about 13 MB of keys, and each task keeps a file open per side).
 *
 * <p>Not thread-safe; one per DoFn instance and bundle.
 */
final class DataFileWriter<T> implements AutoCloseable {

  /** A file is rolled once it grows past this, so a long batch bundle never makes a huge file. */
  static final long MAX_FILE_BYTES = 256L << 20;

  /** Rows a file is expected to hold when the caller has no better guess (sizes bloom filters). */
  static final long DEFAULT_EXPECTED_ROWS = DataFileFormat.MIN_BLOOM_KEYS;

  private static final int SIZE_CHECK_INTERVAL = 1000;

  /** The write buffer of a sidecar being streamed. */
  private static final int SIDECAR_BUFFER_BYTES = 64 << 10;

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

    /** The row keys while they fit inline; null once they go to {@link #sidecar}. */
    ByteArrayOutputStream inlineKeys = new ByteArrayOutputStream();

    /** The sidecar's path relative to the table root, once the keys outgrew the inline limit. */
    String sidecar = "";

    OutputStream sidecarOut;
    Instant earliest;

    OutputStream rowKeys() {
      return inlineKeys != null ? inlineKeys : sidecarOut;
    }

    /** Moves the keys to a sidecar once they no longer fit inline. */
    void spillKeysIfLarge() throws IOException {
      if (inlineKeys == null || inlineKeys.size() <= inlineKeysMaxBytes) {
        return;
      }
      sidecar = RowKeys.sidecarPath(runId, relativePath);
      Path path = new Path(tableRoot, sidecar);
      // Overwrites what a failed attempt of the same bundle may have left.
      sidecarOut =
          new BufferedOutputStream(
              path.getFileSystem(conf).create(path, true), SIDECAR_BUFFER_BYTES);
      inlineKeys.writeTo(sidecarOut);
      inlineKeys = null;
    }

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

  /**
   * @param inlineKeysMaxBytes row keys larger than this go to a sidecar ({@link RowKeys})
   */
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
      String name = DataFileName.newName();
      file = new OpenFile(directory.isEmpty() ? name : directory + "/" + name, partitionValues);
      open.put(directory, file);
    }
    file.support.setContext(context);
    file.writer.write(record);
    file.stats.add(record, context);
    RowKeys.encode(layout, record, file.rowKeys());
    file.spillKeysIfLarge();
    if (file.earliest == null || timestamp.isBefore(file.earliest)) {
      file.earliest = timestamp;
    }
    if (file.stats.numRecords() % SIZE_CHECK_INTERVAL == 0
        && file.writer.getDataSize() >= maxFileBytes) {
      open.remove(directory);
      finished.add(close(file));
    }
  }

  /** Bytes of row keys held in memory for the open files (bounded by the inline limit each). */
  long inlineKeyBytes() {
    long bytes = 0;
    for (OpenFile file : open.values()) {
      bytes += file.inlineKeys == null ? 0 : file.inlineKeys.size();
    }
    return bytes;
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
    byte[] keys;
    if (file.inlineKeys != null) {
      keys = file.inlineKeys.toByteArray();
    } else {
      file.sidecarOut.close();
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
        file.sidecar,
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
      if (file.sidecarOut != null) {
        Path sidecar = new Path(tableRoot, file.sidecar);
        try {
          file.sidecarOut.close();
          sidecar.getFileSystem(conf).delete(sidecar, false);
        } catch (IOException e) {
          // Left for VACUUM, which removes sidecars older than its retention.
        }
      }
    }
    open.clear();
    finished.clear();
  }
}
