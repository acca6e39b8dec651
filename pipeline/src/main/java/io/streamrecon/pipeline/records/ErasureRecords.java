package io.streamrecon.pipeline.records;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamrecon.deltalake.DeltaLakeMaintenance.ForgetResult;
import io.streamrecon.deltalake.WarehouseIds;
import io.streamrecon.model.DeltaRecord;
import io.streamrecon.model.Pointer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The audit records of erasures, {@code <warehouse>/_erasures/<erasureId>.json}: which natural ids
 * {@code forget} erased, when, and what it did to each table (rows removed, values cleared, files
 * rewritten, the commit version that {@code DESCRIBE HISTORY} lists). {@code explain} reads them to
 * say that an id was erased (docs/design.md#erasure).
 */
public final class ErasureRecords {
  /** The directory of the erasures' records, outside every table. */
  public static final String DIR = "_erasures";

  /** {@code state} of a record written before the first commit: the erasure may be partial. */
  public static final String STARTED = "started";

  /** {@code state} of a record whose erasure committed every table it had to change. */
  public static final String DONE = "done";

  private ErasureRecords() {}

  /** One erasure that named an id. */
  public record Erasure(String erasureId, String erasedAt, String state) {}

  static Path recordPath(String warehouse, String erasureId) {
    return new Path(
        new Path(warehouse, DIR), WarehouseIds.checkStored("erasure id", erasureId) + ".json");
  }

  /** Writes (or completes) the record of an erasure and returns its path. */
  public static Path write(
      String warehouse,
      String erasureId,
      String erasedAt,
      String state,
      Collection<String> naturalIds,
      List<String> keyFields,
      List<ForgetResult> results) {
    ObjectMapper json = new ObjectMapper();
    ObjectNode root = json.createObjectNode();
    root.put("erasureId", erasureId);
    root.put("erasedAt", erasedAt);
    root.put("state", state);
    ArrayNode ids = root.putArray("naturalIds");
    naturalIds.stream().sorted().forEach(ids::add);
    ArrayNode keys = root.putArray("keyFields");
    keyFields.forEach(keys::add);
    ObjectNode tables = root.putObject("tables");
    for (ForgetResult r : results) {
      ObjectNode t = tables.putObject(r.table());
      t.put("rowsRemoved", r.rowsRemoved());
      t.put("valuesCleared", r.valuesCleared());
      t.put("filesRewritten", r.filesRewritten());
      t.put("filesAdded", r.filesAdded());
      if (r.nothingErased()) {
        t.putNull("version");
      } else {
        t.put("version", r.version());
      }
    }
    Path file = recordPath(warehouse, erasureId);
    JsonRecords.write(file, root, "the erasure's record");
    return file;
  }

  /** Removes the record of an erasure that changed no table. */
  public static void delete(String warehouse, String erasureId) {
    Path file = recordPath(warehouse, erasureId);
    try {
      file.getFileSystem(new Configuration()).delete(file, false);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot remove the erasure's record " + file, e);
    }
  }

  /** The erasures that named {@code naturalId}, oldest first. */
  public static List<Erasure> of(String warehouse, String naturalId) {
    Path dir = new Path(warehouse, DIR);
    List<Erasure> found = new ArrayList<>();
    ObjectMapper json = new ObjectMapper();
    try {
      FileSystem fs = dir.getFileSystem(new Configuration());
      if (!fs.exists(dir)) {
        return found;
      }
      for (FileStatus f : fs.listStatus(dir)) {
        if (!f.getPath().getName().endsWith(".json")) {
          continue;
        }
        JsonNode record;
        try (InputStream in = fs.open(f.getPath())) {
          record = json.readTree(in);
        }
        for (JsonNode id : record.path("naturalIds")) {
          if (naturalId.equals(id.asText())) {
            found.add(
                new Erasure(
                    record.path("erasureId").asText(),
                    record.path("erasedAt").asText(),
                    record.path("state").asText(DONE)));
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the erasure records under " + dir, e);
    }
    found.sort(Comparator.comparing(Erasure::erasedAt));
    return found;
  }

  /** What {@code explain} prints for an erased id, after its header. */
  public static String line(String naturalId, Erasure e) {
    if (!DONE.equals(e.state())) {
      return "natural id "
          + naturalId
          + ": an erasure started at "
          + e.erasedAt()
          + " did not record its end (record "
          + DIR
          + "/"
          + e.erasureId()
          + ".json), so it may be partial: run forget again; when it says nothing erased, the"
          + " erasure is complete";
    }
    return "natural id "
        + naturalId
        + " was erased at "
        + e.erasedAt()
        + " (forget, record "
        + DIR
        + "/"
        + e.erasureId()
        + ".json): its payloads, raw inputs and difference values are no longer stored; its"
        + " verdicts are kept without values";
  }

  /**
   * One line per pointer of {@code deltas} whose raw event is no longer stored, for an erased id:
   * the payload was erased, not expired.
   */
  public static List<String> erasedPointers(
      List<DeltaRecord> deltas, List<Map<String, Object>> rows, Erasure e) {
    Set<String> stored = new HashSet<>();
    for (Map<String, Object> r : rows) {
      stored.add(r.get("side") + "/" + r.get("sha256"));
    }
    Set<String> lines = new LinkedHashSet<>();
    for (DeltaRecord d : deltas) {
      for (Pointer p : Arrays.asList(d.sourcePointer(), d.targetPointer())) {
        if (p != null && !stored.contains(p.side() + "/" + p.sha256())) {
          lines.add(
              p.side()
                  + " event "
                  + p.describe()
                  + " (sha256 "
                  + p.sha256()
                  + "): erased at "
                  + e.erasedAt()
                  + ", no longer stored in raw_events");
        }
      }
    }
    return new ArrayList<>(lines);
  }
}
