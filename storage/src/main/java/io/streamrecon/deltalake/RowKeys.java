package io.streamrecon.deltalake;

import io.streamrecon.model.ModelBytes;
import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PushbackInputStream;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * The per-row keys a {@link DataFile} carries to its committer, in row order: each row's content
 * identity ({@link TableLayout#identity}), which the committer checks for copies already stored,
 * and the layout's extra row metadata (raw_events: natural id, event time, hash, from which the
 * pointers are built), so that the committer never reads an uncommitted file back unless it has to
 * drop copies from it.
 *
 * <p><b>Sidecars.</b> Keys of more than {@link #INLINE_MAX_BYTES} (a batch run's files: about 150
 * bytes per row, 13 MB for a 256 MB raw_events file) are written to a sidecar file under {@link
 * #SIDECAR_DIRECTORY} of the table, and the {@link DataFile} and {@link CommittedRows} carry its
 * path instead. A batch run commits its whole input in one pane, and runners hold a grouped pane
 * (and the commit's outputs for it) in memory at once: carried inline, every row's keys of the run
 * were live together (the 1M-record Spark batch's largest live heap). The directory starts with
 * {@code _}, so Delta readers and VACUUM leave it alone; a bounded run removes its own sidecars
 * when it ends ({@link #removeSidecarsOfRun}), and {@code DeltaLakeMaintenance.vacuum} removes any
 * older than its retention (a streaming run's, or a failed run's).
 */
public final class RowKeys {
  private RowKeys() {}

  /** Largest row keys a {@link DataFile} carries inline. */
  static final int INLINE_MAX_BYTES = 1 << 20;

  /** Where sidecars live, relative to the table root: {@code <dir>/<runId>/<data file>.keys}. */
  static final String SIDECAR_DIRECTORY = "_streamrecon_row_keys";

  /** The sidecar path (relative to the table root) for a data file written by a run. */
  public static String sidecarPath(String runId, String dataFilePath) {
    String name = dataFilePath.substring(dataFilePath.lastIndexOf('/') + 1);
    return SIDECAR_DIRECTORY + "/" + runId + "/" + name + ".keys";
  }

  /** The read buffer of a sidecar being streamed. */
  private static final int SIDECAR_BUFFER_BYTES = 64 << 10;

  /**
   * Reads the keys ({@code inline}, or the sidecar's content when {@code sidecar} is not empty) one
   * row at a time: a batch run's file has some 100,000 rows, whose decoded keys (tens of MB for a
   * raw_events file) need never be live at once.
   */
  static Reader reader(byte[] inline, String sidecar, Configuration conf, Path tableRoot)
      throws IOException {
    if (sidecar.isEmpty()) {
      return new Reader(new ByteArrayInputStream(inline));
    }
    if (conf == null || tableRoot == null) {
      throw new IllegalStateException("row keys in sidecar " + sidecar + " need the table root");
    }
    Path path = new Path(tableRoot, sidecar);
    return new Reader(
        new BufferedInputStream(path.getFileSystem(conf).open(path), SIDECAR_BUFFER_BYTES));
  }

  /** The rows of some row keys, in order; see {@link #reader}. */
  static final class Reader implements Closeable {
    private final PushbackInputStream in;

    Reader(InputStream in) {
      this.in = new PushbackInputStream(in, 1);
    }

    /** The next row, or {@code null} after the last. */
    Row next() throws IOException {
      int first = in.read();
      if (first < 0) {
        return null;
      }
      in.unread(first);
      return new Row(ModelBytes.readString(in), ModelBytes.readBytes(in));
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }

  /** Removes the sidecars a run wrote under a table (the run is over: nothing replays them). */
  static void removeSidecarsOfRun(Configuration conf, Path tableRoot, String runId)
      throws IOException {
    Path sidecars = new Path(tableRoot, SIDECAR_DIRECTORY);
    Path dir = new Path(sidecars, runId);
    ContainedPaths.deleteRecursively(dir.getFileSystem(conf), sidecars, dir);
  }

  /** One row's keys: its identity and the layout's extra bytes (empty when it has none). */
  public record Row(String identity, byte[] extra) {}

  static <T> void encode(TableLayout<T> layout, T record, OutputStream out) throws IOException {
    ModelBytes.writeString(layout.identityOf(record), out);
    if (layout.rowKeys == null) {
      ModelBytes.writeBytes(new byte[0], out);
    } else {
      ByteArrayOutputStream extra = new ByteArrayOutputStream(64);
      layout.rowKeys.encode(record, extra);
      ModelBytes.writeBytes(extra.toByteArray(), out);
    }
  }

  public static void write(Row row, OutputStream out) throws IOException {
    ModelBytes.writeString(row.identity(), out);
    ModelBytes.writeBytes(row.extra(), out);
  }

  static List<Row> decode(byte[] rowKeys) {
    List<Row> rows = new ArrayList<>();
    try (Reader reader = new Reader(new ByteArrayInputStream(rowKeys))) {
      for (Row row = reader.next(); row != null; row = reader.next()) {
        rows.add(row);
      }
    } catch (IOException e) {
      throw new IllegalStateException("corrupt row keys of a data file", e);
    }
    return rows;
  }

  /**
   * A 64-bit fingerprint of an identity (FNV-1a over the UTF-16 units, then a MurmurHash3
   * finaliser). Only used to rule copies out: a matching fingerprint is always confirmed against
   * the stored row's identity.
   */
  static long fingerprint(String identity) {
    long h = 0xcbf29ce484222325L;
    for (int i = 0; i < identity.length(); i++) {
      h ^= identity.charAt(i);
      h *= 0x100000001b3L;
    }
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb9fe1a85ec53L;
    h ^= h >>> 33;
    return h;
  }
}
