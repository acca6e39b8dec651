package io.streamrecon.deltalake;

import io.streamrecon.model.DataFileName;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.hadoop.util.HadoopOutputFile;

/**
 * Copies an uncommitted data file without some of its rows (copies of rows already stored), into a
 * new file next to it, with fresh statistics and row keys. The original is left alone: a retried
 * commit of the same pane may still need it, and VACUUM removes it as it is never committed.
 */
final class DataFileRewriter {
  private DataFileRewriter() {}

  /**
   * @param keep which rows of {@code source} to copy, by row index
   * @return the new file, or {@code null} when no row is kept
   */
  static DataFile withoutRows(
      Configuration conf, Path tableRoot, TableLayout<?> layout, DataFile source, boolean[] keep)
      throws IOException {
    if (keep.length != source.numRecords()) {
      throw new IllegalStateException(
          source + " has " + source.numRecords() + " rows, " + keep.length + " to keep or drop");
    }
    String directory = TableLayout.partitionDirectory(source.partitionValues());
    String name = DataFileName.newName();
    String relative = directory.isEmpty() ? name : directory + "/" + name;
    Path target = new Path(tableRoot, relative);
    FileStats stats = new FileStats(layout);
    ByteArrayOutputStream rowKeys = new ByteArrayOutputStream();
    long keeping = 0;
    for (boolean k : keep) {
      keeping += k ? 1 : 0;
    }
    ExampleParquetWriter.Builder builder =
        DataFileFormat.configure(
            ExampleParquetWriter.builder(HadoopOutputFile.fromPath(target, conf))
                .withConf(conf)
                .withType(layout.parquetSchema()),
            layout,
            keeping);
    long kept = 0;
    try (RowKeys.Reader keys = source.keyReader(conf, tableRoot);
        ParquetReader<Group> reader =
            DataFileFormat.reader(
                    new GroupReadSupport(),
                    HadoopInputFile.fromPath(new Path(tableRoot, source.path()), conf))
                .build();
        ParquetWriter<Group> writer = builder.build()) {
      int row = 0;
      for (Group g = reader.read(); g != null; g = reader.read(), row++) {
        RowKeys.Row key = keys.next();
        if (row >= keep.length || key == null) {
          throw new IllegalStateException(source + " has more rows than its keys");
        }
        if (keep[row]) {
          Group current = g;
          writer.write(current);
          stats.addValues(c -> DeltaLakeTables.value(current, c));
          RowKeys.write(key, rowKeys);
          kept++;
        }
      }
      if (row != keep.length || keys.next() != null) {
        throw new IllegalStateException(
            source + " has " + row + " rows, not the " + keep.length + " its row keys describe");
      }
    }
    if (kept == 0) {
      target.getFileSystem(conf).delete(target, false);
      return null;
    }
    FileStatus status = target.getFileSystem(conf).getFileStatus(target);
    return new DataFile(
        source.table(),
        relative,
        source.partitionValues(),
        status.getLen(),
        status.getModificationTime(),
        kept,
        stats.toJson(),
        rowKeys.toByteArray(),
        "",
        source.earliest());
  }
}
