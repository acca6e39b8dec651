package io.streamrecon.pipeline.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamrecon.deltalake.DeletedRows;
import io.streamrecon.deltalake.DeltaLakeSnapshot;
import io.streamrecon.deltalake.DeltaLakeSnapshot.TableFile;
import io.streamrecon.deltalake.ParquetTimestamps;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.api.InitContext;
import org.apache.parquet.hadoop.api.ReadSupport;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

/**
 * Reads the current snapshot of one Delta Lake table of a warehouse, column-projected: only the
 * named columns are decoded (Parquet projection), so the report never touches {@code payload} or
 * pointer columns. Files are listed from the Delta Lake log with their stats, so a caller can skip
 * a file (by its {@code run_id} range) or count it without opening it.
 */
final class TableScan {
  static final ObjectMapper JSON = new ObjectMapper();

  private final Configuration conf = new Configuration();
  private final Path root;
  private final List<TableFile> files;
  private final boolean exists;
  private final DeltaLakeSnapshot snapshot;

  TableScan(String warehouse, String table) {
    this.root = new Path(warehouse, table);
    this.snapshot = DeltaLakeSnapshot.latest(conf, root);
    this.exists = snapshot != null;
    this.files = snapshot == null ? List.of() : snapshot.files();
  }

  /**
   * False when no run wrote the table (a run creates dead_letters and late_events only if needed).
   */
  boolean exists() {
    return exists;
  }

  List<TableFile> files() {
    return files;
  }

  /**
   * Calls {@code row} for every live row of {@code file} (rows its deletion vector deletes are
   * skipped), decoding only {@code columns}. Safe to call from several threads for different files:
   * the reads share this scan's Hadoop configuration, which they only read ({@code Configuration}
   * reads are synchronised).
   */
  void scan(TableFile file, List<String> columns, Consumer<Group> row) {
    Projection projection = new Projection(columns);
    // ParquetReader.builder(support, path) and a copied Configuration both parse Hadoop's default
    // XML resources again for every file; a builder over an InputFile reuses this configuration.
    try (ParquetReader<Group> reader =
        new ParquetReader.Builder<Group>(
            HadoopInputFile.fromPath(new Path(root, file.path()), conf)) {
          @Override
          protected ReadSupport<Group> getReadSupport() {
            return projection;
          }
        }.build()) {
      DeletedRows deleted =
          file.deletionVector() == null ? DeletedRows.NONE : snapshot.deletedRows(file);
      for (Group g = reader.read(); g != null; g = reader.read()) {
        if (!deleted.contains(reader.getCurrentRowIndex())) {
          row.accept(g);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + file.path() + " of " + root, e);
    }
  }

  /** The parsed stats of a file, or null when it has none. */
  static JsonNode stats(TableFile file) {
    String s = file.stats();
    if (s == null || s.isEmpty()) {
      return null;
    }
    try {
      JsonNode n = JSON.readTree(s);
      // A writer that did not encode the stats as a string leaves an object; both are accepted.
      return n.isTextual() ? JSON.readTree(n.asText()) : n;
    } catch (IOException e) {
      return null;
    }
  }

  /**
   * The single run id of a file when its stats prove every row has it (min equals max; a cut
   * string's max carries a U+10FFFF suffix, so equality means uncut), else null.
   */
  static String singleRunId(JsonNode stats) {
    if (stats == null) {
      return null;
    }
    JsonNode min = stats.path("minValues").path("run_id");
    JsonNode max = stats.path("maxValues").path("run_id");
    JsonNode nulls = stats.path("nullCount").path("run_id");
    if (min.isTextual() && min.equals(max) && (nulls.isMissingNode() || nulls.asLong() == 0)) {
      return min.asText();
    }
    return null;
  }

  /** False only when the stats prove no row of the file has run id {@code runId}. */
  static boolean mayHaveRun(JsonNode stats, String runId) {
    if (runId == null || stats == null) {
      return true;
    }
    JsonNode min = stats.path("minValues").path("run_id");
    JsonNode max = stats.path("maxValues").path("run_id");
    if (!min.isTextual() || !max.isTextual()) {
      return true;
    }
    return min.asText().compareTo(runId) <= 0 && max.asText().compareTo(runId) >= 0;
  }

  static long numRecords(JsonNode stats) {
    return stats == null ? -1 : stats.path("numRecords").asLong(-1);
  }

  // ------------------------------------------------------------------ values

  static String string(Group g, String field) {
    int i = present(g, field);
    return i < 0 ? null : g.getBinary(i, 0).toStringUsingUTF8();
  }

  /** A timestamp as epoch milliseconds, or {@link Long#MIN_VALUE} when null. */
  static long millis(Group g, String field) {
    int i = present(g, field);
    if (i < 0) {
      return Long.MIN_VALUE;
    }
    return ParquetTimestamps.millis(g, i, g.getType().getType(i).asPrimitiveType());
  }

  /** The struct elements of an array-of-struct column (two- or three-level lists). */
  static List<Group> structs(Group g, String field) {
    int i = present(g, field);
    if (i < 0) {
      return List.of();
    }
    Group list = g.getGroup(i, 0);
    int n = list.getType().getFieldCount() == 0 ? 0 : list.getFieldRepetitionCount(0);
    List<Group> out = new ArrayList<>(n);
    for (int k = 0; k < n; k++) {
      Group item = list.getGroup(0, k);
      GroupType t = item.getType();
      out.add(t.getFieldCount() == 1 && !t.getType(0).isPrimitive() ? item.getGroup(0, 0) : item);
    }
    return out;
  }

  private static int present(Group g, String field) {
    GroupType type = g.getType();
    if (!type.containsField(field)) {
      return -1;
    }
    int i = type.getFieldIndex(field);
    return g.getFieldRepetitionCount(i) == 0 ? -1 : i;
  }

  /** Requests only the named columns, typed as the file declares them; absent ones are skipped. */
  private static final class Projection extends GroupReadSupport {
    private final List<String> columns;

    Projection(List<String> columns) {
      this.columns = columns;
    }

    @Override
    public ReadContext init(InitContext context) {
      MessageType file = context.getFileSchema();
      List<Type> fields = new ArrayList<>();
      for (String c : columns) {
        if (file.containsField(c)) {
          fields.add(file.getType(c));
        }
      }
      return new ReadContext(new MessageType(file.getName(), fields));
    }
  }
}
