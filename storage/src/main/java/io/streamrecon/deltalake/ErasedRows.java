package io.streamrecon.deltalake;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamrecon.json.EventParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Set;
import java.util.TreeSet;

/**
 * What erasing natural ids does to one stored row (docs/design.md#erasure): the rows of {@code
 * raw_events} and {@code late_events} of the ids go; a {@code deltas} row of the ids stays with its
 * difference values cleared; a {@code dead_letters} row whose input parses far enough to show one
 * of the ids stays with its {@code raw} emptied and {@code raw_encoding} set to {@link
 * #ERASED_ENCODING}. Rows are column name to value, as {@link DeltaLakeCompaction#toRow} reads them
 * (top-level strings as UTF-8 bytes). Applying it to a row it already erased changes nothing.
 */
final class ErasedRows {
  /** {@code raw_encoding} of a dead letter whose raw input was erased ({@code raw} is empty). */
  static final String ERASED_ENCODING = "erased";

  private final Set<String> ids;
  private final NavigableSet<String> ordered = new TreeSet<>(FileStats::compareCodePoints);
  private final EventParser parser;

  /**
   * @param ids the natural ids to erase
   * @param parser reads the natural id of a dead letter's raw input, as the run's key fields do
   */
  ErasedRows(Set<String> ids, EventParser parser) {
    if (ids.isEmpty()) {
      throw new IllegalArgumentException("no natural id to erase");
    }
    this.ids = Set.copyOf(ids);
    this.ordered.addAll(ids);
    this.parser = parser;
  }

  Set<String> ids() {
    return ids;
  }

  /**
   * What erasure leaves of a row.
   *
   * @param row the row to store instead, or {@code null} when the row goes
   * @param changed whether the row differs from the stored one (a file is rewritten for it)
   * @param valuesCleared difference values (source or target) set to null
   * @param naturalId the id the row was changed for, {@code null} when unchanged
   */
  record RowAfterErasure(
      Map<String, Object> row, boolean changed, long valuesCleared, String naturalId) {
    static RowAfterErasure unchanged(Map<String, Object> row) {
      return new RowAfterErasure(row, false, 0, null);
    }
  }

  /**
   * Whether a data file whose statistics are {@code statsJson} can hold a row to erase: some id
   * lies within its {@code natural_id} min and max. Missing or unreadable stats never exclude a
   * file. One parse and one search per file, however many ids.
   */
  boolean mayHold(String table, String statsJson) {
    if (WarehouseTables.DEAD_LETTERS.equals(table)) {
      return true; // no natural_id column: the raw input has to be read
    }
    if (statsJson == null || statsJson.isEmpty()) {
      return true;
    }
    JsonNode stats;
    try {
      stats = FileStats.JSON.readTree(statsJson);
    } catch (IOException e) {
      return true;
    }
    JsonNode lo = stats.path("minValues").path(PayloadReader.NATURAL_ID);
    JsonNode hi = stats.path("maxValues").path(PayloadReader.NATURAL_ID);
    JsonNode nulls = stats.path("nullCount").path(PayloadReader.NATURAL_ID);
    JsonNode records = stats.path("numRecords");
    if (nulls.isNumber() && records.isNumber() && nulls.asLong() == records.asLong()) {
      return false;
    }
    // The least id at or above the minimum (a prefix of the true minimum when cut) is the one to
    // compare with the maximum (cut maxima end in the highest code point).
    String first = lo.isTextual() ? ordered.ceiling(lo.asText()) : ordered.first();
    return first != null
        && (!hi.isTextual() || FileStats.compareCodePoints(first, hi.asText()) <= 0);
  }

  RowAfterErasure apply(String table, Map<String, Object> row) {
    return switch (table) {
      case WarehouseTables.RAW_EVENTS, WarehouseTables.LATE_EVENTS -> {
        String id = text(row.get(PayloadReader.NATURAL_ID));
        yield ids.contains(id)
            ? new RowAfterErasure(null, true, 0, id)
            : RowAfterErasure.unchanged(row);
      }
      case WarehouseTables.DELTAS -> deltas(row);
      case WarehouseTables.DEAD_LETTERS -> deadLetter(row);
      default -> throw new IllegalArgumentException("unknown table " + table);
    };
  }

  @SuppressWarnings("unchecked")
  private RowAfterErasure deltas(Map<String, Object> row) {
    Object differences = row.get("differences");
    String id = text(row.get(PayloadReader.NATURAL_ID));
    if (!ids.contains(id) || differences == null) {
      return RowAfterErasure.unchanged(row);
    }
    long cleared = 0;
    List<Map<String, Object>> kept = new ArrayList<>();
    for (Map<String, Object> d : (List<Map<String, Object>>) differences) {
      Map<String, Object> copy = new LinkedHashMap<>(d);
      for (String side : List.of("source", "target")) {
        if (copy.get(side) != null) {
          copy.put(side, null);
          cleared++;
        }
      }
      kept.add(copy);
    }
    if (cleared == 0) {
      return RowAfterErasure.unchanged(row);
    }
    Map<String, Object> erased = new LinkedHashMap<>(row);
    erased.put("differences", kept);
    return new RowAfterErasure(erased, true, cleared, id);
  }

  private RowAfterErasure deadLetter(Map<String, Object> row) {
    String encoding = text(row.get("raw_encoding"));
    String raw = text(row.get("raw"));
    if (ERASED_ENCODING.equals(encoding) || raw == null) {
      return RowAfterErasure.unchanged(row);
    }
    byte[] input;
    try {
      input =
          TableLayouts.RAW_BASE64.equals(encoding)
              ? Base64.getDecoder().decode(raw)
              : raw.getBytes(StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return RowAfterErasure.unchanged(row); // not base64 after all: no id can be read from it
    }
    String id = parser.naturalIdOf(input);
    if (id == null || !ids.contains(id)) {
      return RowAfterErasure.unchanged(row);
    }
    Map<String, Object> erased = new LinkedHashMap<>(row);
    erased.put("raw", new byte[0]);
    erased.put("raw_encoding", ERASED_ENCODING.getBytes(StandardCharsets.UTF_8));
    return new RowAfterErasure(erased, true, 1, id);
  }

  private static String text(Object value) {
    return value instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : (String) value;
  }
}
