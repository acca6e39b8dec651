package io.streamrecon.deltalake;

import java.util.List;

/**
 * The tables of a warehouse (docs/design.md#tables-and-pointers), each a directory named after it
 * under the warehouse, and the check of a warehouse's location that every writer and command makes
 * before it touches one.
 */
public final class WarehouseTables {
  private WarehouseTables() {}

  public static final String RAW_EVENTS = "raw_events";
  public static final String DELTAS = "deltas";
  public static final String DEAD_LETTERS = "dead_letters";
  public static final String LATE_EVENTS = "late_events";

  /** All tables, in the order of docs/design.md#tables-and-pointers. */
  public static final List<String> TABLES = List.of(RAW_EVENTS, DELTAS, DEAD_LETTERS, LATE_EVENTS);

  /**
   * The warehouse as given, once it is known to name a location.
   *
   * @throws IllegalArgumentException when it is null or blank
   */
  public static String checkWarehouse(String value) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(
          "warehouse must be a non-empty local path or Hadoop FileSystem URI, got " + quote(value));
    }
    return value;
  }

  private static String quote(String s) {
    return s == null ? "null" : "\"" + s + "\"";
  }
}
