package io.streamrecon.deltalake;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamrecon.json.CanonicalJson;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import org.joda.time.Instant;

/**
 * Per-file statistics in the Delta protocol's format: {@code numRecords} and, for every column
 * marked {@link ColumnSpec#withStats()}, {@code minValues}, {@code maxValues} and {@code
 * nullCount}. Delta readers (Spark data skipping, our own fallback lookup) skip a file when these
 * bounds exclude a predicate, so the bounds must be valid: a min never above any value, a max never
 * below.
 */
final class FileStats {

  /** Same prefix length as Delta's own writer ({@code dataSkippingStringPrefixLength}). */
  static final int STRING_PREFIX_CODE_POINTS = 32;

  /** Largest code point: appended to a truncated max so that it stays an upper bound. */
  private static final String MAX_CODE_POINT =
      new String(Character.toChars(Character.MAX_CODE_POINT));

  /** Delta's stats timestamp format (UTC, millisecond precision). */
  static final DateTimeFormatter TIMESTAMP_FORMAT =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSXXX").withZone(ZoneOffset.UTC);

  static final ObjectMapper JSON = new ObjectMapper();

  private final List<ColumnSpec> columns;
  private final Object[] min;
  private final Object[] max;
  private final long[] nullCount;
  private long numRecords;

  FileStats(TableLayout<?> layout) {
    this.columns = layout.dataColumns().stream().filter(c -> c.stats && c.isLeaf()).toList();
    this.min = new Object[columns.size()];
    this.max = new Object[columns.size()];
    this.nullCount = new long[columns.size()];
  }

  void add(Object record, RowContext context) {
    addValues(c -> c.getter.get(record, context));
  }

  /** Adds a row given by its column values (a row read back, when a file is rewritten). */
  void addValues(java.util.function.Function<ColumnSpec, Object> valueOf) {
    numRecords++;
    for (int i = 0; i < columns.size(); i++) {
      ColumnSpec c = columns.get(i);
      Object v = valueOf.apply(c);
      if (v == null) {
        nullCount[i]++;
        continue;
      }
      if (v instanceof byte[] bytes) {
        v = new String(bytes, StandardCharsets.UTF_8);
      }
      if (c.kind == ColumnSpec.Kind.BOOLEAN) {
        continue; // Delta keeps no min/max for booleans
      }
      if (min[i] == null || compare(v, min[i]) < 0) {
        min[i] = v;
      }
      if (max[i] == null || compare(v, max[i]) > 0) {
        max[i] = v;
      }
    }
  }

  long numRecords() {
    return numRecords;
  }

  /** The stats JSON object as Delta readers expect it (not yet string-encoded for the log). */
  String toJson() {
    ObjectNode root = JSON.createObjectNode();
    root.put("numRecords", numRecords);
    ObjectNode mins = root.putObject("minValues");
    ObjectNode maxs = root.putObject("maxValues");
    ObjectNode nulls = root.putObject("nullCount");
    for (int i = 0; i < columns.size(); i++) {
      String name = columns.get(i).name;
      if (min[i] != null) {
        putValue(mins, name, min[i], false);
        putValue(maxs, name, max[i], true);
      }
      nulls.put(name, nullCount[i]);
    }
    try {
      return JSON.writeValueAsString(root);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void putValue(ObjectNode node, String name, Object value, boolean upperBound) {
    if (value instanceof String s) {
      String bound = upperBound ? truncatedMax(s) : truncatedMin(s);
      if (bound != null) {
        node.put(name, bound);
      }
    } else if (value instanceof Integer n) {
      node.put(name, n);
    } else if (value instanceof Long n) {
      node.put(name, n);
    } else if (value instanceof Instant t) {
      node.put(name, formatTimestamp(t));
    } else if (value instanceof LocalDate d) {
      node.put(name, d.toString());
    } else {
      throw new IllegalArgumentException("no stats for " + value.getClass());
    }
  }

  static String formatTimestamp(Instant t) {
    return TIMESTAMP_FORMAT.format(java.time.Instant.ofEpochMilli(t.getMillis()));
  }

  /** A prefix is never greater than the string it was cut from. */
  static String truncatedMin(String s) {
    if (s.codePointCount(0, s.length()) <= STRING_PREFIX_CODE_POINTS) {
      return s;
    }
    return s.substring(0, s.offsetByCodePoints(0, STRING_PREFIX_CODE_POINTS));
  }

  /**
   * The prefix followed by U+10FFFF is greater than every string that starts with the prefix,
   * unless the cut-off part itself starts with U+10FFFF; then no bound is written (readers treat a
   * missing max as "cannot skip").
   */
  static String truncatedMax(String s) {
    if (s.codePointCount(0, s.length()) <= STRING_PREFIX_CODE_POINTS) {
      return s;
    }
    int cut = s.offsetByCodePoints(0, STRING_PREFIX_CODE_POINTS);
    if (s.codePointAt(cut) == Character.MAX_CODE_POINT) {
      return null;
    }
    return s.substring(0, cut) + MAX_CODE_POINT;
  }

  @SuppressWarnings("unchecked")
  static int compare(Object a, Object b) {
    if (a instanceof String x && b instanceof String y) {
      return compareCodePoints(x, y);
    }
    return ((Comparable<Object>) a).compareTo(b);
  }

  /**
   * Code point order, which is the UTF-8 byte order Spark and Parquet compare strings by (Java's
   * {@link String#compareTo} orders UTF-16 units, which differs above U+FFFF).
   */
  static int compareCodePoints(String a, String b) {
    return CanonicalJson.compareCodePoints(a, b);
  }

  // ------------------------------------------------------------------ reading stats back

  /**
   * Whether a file whose stats JSON is {@code statsJson} may contain {@code value} in the string
   * column {@code column}. Missing or unreadable stats never exclude a file.
   */
  static boolean mayContain(String statsJson, String column, String value) {
    if (statsJson == null || statsJson.isEmpty()) {
      return true;
    }
    try {
      JsonNode stats = JSON.readTree(statsJson);
      JsonNode lo = stats.path("minValues").path(column);
      JsonNode hi = stats.path("maxValues").path(column);
      if (lo.isTextual() && compareCodePoints(value, lo.asText()) < 0) {
        return false;
      }
      if (hi.isTextual() && compareCodePoints(value, hi.asText()) > 0) {
        return false;
      }
      JsonNode nulls = stats.path("nullCount").path(column);
      JsonNode records = stats.path("numRecords");
      return !(nulls.isNumber() && records.isNumber() && nulls.asLong() == records.asLong());
    } catch (IOException e) {
      return true;
    }
  }

  /** {@code numRecords} of a stats JSON, or -1 when absent. */
  static long numRecords(String statsJson) {
    if (statsJson == null || statsJson.isEmpty()) {
      return -1;
    }
    try {
      JsonNode n = JSON.readTree(statsJson).path("numRecords");
      return n.isNumber() ? n.asLong() : -1;
    } catch (IOException e) {
      return -1;
    }
  }
}
