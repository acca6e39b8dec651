package io.streamrecon.deltalake;

import io.streamrecon.model.EventRef;
import io.streamrecon.model.ModelBytes;
import io.streamrecon.model.Pointer;
import io.streamrecon.model.Side;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.joda.time.Instant;

/**
 * Committed raw_events rows of one data file whose pointers are still to be made: what the commit
 * step emits instead of the pointers themselves, so that no step holds every pointer of a pane (a
 * batch run commits the whole input in one pane) as live objects at once. {@code
 * CommitFiles.ExpandPointersFn} turns one into its {@code EventRef}s.
 *
 * @param tableVersion the table version the pointers name
 * @param path the data file, relative to the table root
 * @param rowKeys the rows' {@link RowKeys} encoding, in order, when inline; else empty
 * @param rowKeysFile the sidecar holding the encoding, relative to the table root; empty when
 *     inline
 * @param rowIndexes empty when the rows are the whole file, rows 0..n-1 (a file committed now);
 *     else the stored row index of each row (copies recognised as stored by an earlier commit)
 * @param numRecords the number of rows {@code rowKeys} must carry
 */
public record CommittedRows(
    Side side,
    long tableVersion,
    String path,
    byte[] rowKeys,
    String rowKeysFile,
    long[] rowIndexes,
    long numRecords) {

  public CommittedRows {
    Objects.requireNonNull(side, "side");
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(rowKeys, "rowKeys");
    Objects.requireNonNull(rowKeysFile, "rowKeysFile");
    Objects.requireNonNull(rowIndexes, "rowIndexes");
    if (rowIndexes.length > 0 && rowIndexes.length != numRecords) {
      throw new IllegalArgumentException(
          rowIndexes.length + " row indexes for " + numRecords + " rows of " + path);
    }
  }

  /** The row keys one row at a time, streamed from the sidecar when they are not inline. */
  RowKeys.Reader keyReader(
      org.apache.hadoop.conf.Configuration conf, org.apache.hadoop.fs.Path tableRoot)
      throws IOException {
    return RowKeys.reader(rowKeys, rowKeysFile, conf, tableRoot);
  }

  /** The row index of the {@code i}-th row. */
  long rowIndex(int i) {
    return rowIndexes.length == 0 ? i : rowIndexes[i];
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CommittedRows c
        && side == c.side
        && tableVersion == c.tableVersion
        && path.equals(c.path)
        && Arrays.equals(rowKeys, c.rowKeys)
        && rowKeysFile.equals(c.rowKeysFile)
        && Arrays.equals(rowIndexes, c.rowIndexes)
        && numRecords == c.numRecords;
  }

  @Override
  public int hashCode() {
    return Objects.hash(side, tableVersion, path, Arrays.hashCode(rowKeys), numRecords);
  }

  @Override
  public String toString() {
    return "CommittedRows[" + path + "@" + tableVersion + " " + numRecords + " rows]";
  }

  /** The rows of a raw_events file just committed: all of it, rows 0..n-1. */
  public static CommittedRows committedRows(DataFile file, long tableVersion) {
    return new CommittedRows(
        Side.valueOf(file.partitionValues().get("side")),
        tableVersion,
        file.path(),
        file.rowKeys(),
        file.rowKeysFile(),
        new long[0],
        file.numRecords());
  }

  /** Recognised copies grouped by the stored file they point at, in first-seen order. */
  public static List<CommittedRows> recognisedRows(List<DeltaLakeCommitter.Recognised> recognised)
      throws IOException {
    Map<List<Object>, List<DeltaLakeCommitter.Recognised>> byFile = new LinkedHashMap<>();
    for (DeltaLakeCommitter.Recognised r : recognised) {
      WriterHistory.Location at = r.storedAt();
      byFile
          .computeIfAbsent(
              List.of(r.partitionValues().get("side"), at.tableVersion(), at.path()),
              k -> new ArrayList<>())
          .add(r);
    }
    List<CommittedRows> result = new ArrayList<>(byFile.size());
    for (List<DeltaLakeCommitter.Recognised> rs : byFile.values()) {
      ByteArrayOutputStream keys = new ByteArrayOutputStream();
      long[] rowIndexes = new long[rs.size()];
      for (int i = 0; i < rs.size(); i++) {
        RowKeys.write(rs.get(i).row(), keys);
        rowIndexes[i] = rs.get(i).storedAt().rowIndex();
      }
      DeltaLakeCommitter.Recognised first = rs.get(0);
      result.add(
          new CommittedRows(
              Side.valueOf(first.partitionValues().get("side")),
              first.storedAt().tableVersion(),
              first.storedAt().path(),
              keys.toByteArray(),
              "",
              rowIndexes,
              rs.size()));
    }
    return result;
  }

  public static EventRef eventRef(Side side, byte[] extra, long tableVersion, String path, long row)
      throws IOException {
    ByteArrayInputStream keys = new ByteArrayInputStream(extra);
    String naturalId = ModelBytes.readString(keys);
    Instant eventTime = ModelBytes.readInstant(keys);
    String sha256 = ModelBytes.readHash(keys);
    Pointer pointer = new Pointer(tableVersion, path, row, side, naturalId, sha256);
    return new EventRef(side, naturalId, eventTime, sha256, pointer);
  }

  /** The EventRefs of a committed raw_events file whose keys are inline, in row order. */
  public static List<EventRef> eventRefs(DataFile file, long tableVersion) throws IOException {
    return eventRefs(committedRows(file, tableVersion), null, null);
  }

  /**
   * The EventRefs of committed rows, in row order; {@code conf} and {@code tableRoot} (the
   * raw_events table) find a sidecar and may be null when the keys are inline.
   */
  public static List<EventRef> eventRefs(CommittedRows rows, Configuration conf, Path tableRoot)
      throws IOException {
    List<EventRef> refs = new ArrayList<>((int) Math.min(rows.numRecords(), 1 << 16));
    forEachEventRef(rows, conf, tableRoot, refs::add);
    return refs;
  }

  /**
   * Passes on the EventRefs of committed rows in row order, decoding one row's keys at a time
   * (streamed from the sidecar when they are not inline).
   */
  public static void forEachEventRef(
      CommittedRows rows, Configuration conf, Path tableRoot, Consumer<EventRef> out)
      throws IOException {
    long n = 0;
    try (RowKeys.Reader keys = rows.keyReader(conf, tableRoot)) {
      for (RowKeys.Row row = keys.next(); row != null; row = keys.next()) {
        if (n == rows.numRecords()) {
          throw new IllegalStateException(
              rows + " describes " + n + " rows but carries keys of more");
        }
        out.accept(
            eventRef(
                rows.side(),
                row.extra(),
                rows.tableVersion(),
                rows.path(),
                rows.rowIndex((int) n)));
        n++;
      }
    }
    if (n != rows.numRecords()) {
      throw new IllegalStateException(
          rows + " describes " + rows.numRecords() + " rows but carries keys of " + n);
    }
  }
}
