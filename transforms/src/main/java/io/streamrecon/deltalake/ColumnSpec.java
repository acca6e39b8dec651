package io.streamrecon.deltalake;

import java.util.List;
import java.util.Objects;

/**
 * One column of a Delta Lake table written by {@link DeltaLakeIO}: its name, type, how to get its
 * value from a record, and whether it is a partition column or carries per-file statistics. One
 * definition drives the Delta schema, the Parquet schema, the Parquet writer, the statistics and
 * the reader, so the four can never disagree.
 */
final class ColumnSpec {

  /** The logical types the tables use. */
  enum Kind {
    STRING,
    INT,
    LONG,
    BOOLEAN,
    /** An instant, stored as Parquet INT64 TIMESTAMP(MICROS, UTC); Delta {@code timestamp}. */
    TIMESTAMP,
    /** A {@link java.time.LocalDate}; Delta {@code date}. */
    DATE,
    STRUCT,
    ARRAY_OF_STRUCT
  }

  /** Reads a column's value from a record; {@code null} means SQL NULL. */
  @FunctionalInterface
  interface Getter {
    Object get(Object record, RowContext context);
  }

  final String name;
  final Kind kind;
  final boolean nullable;
  final boolean stats;
  final boolean partition;
  final boolean dictionary;
  final Getter getter;
  final List<ColumnSpec> children;

  private ColumnSpec(
      String name,
      Kind kind,
      boolean nullable,
      boolean stats,
      boolean partition,
      boolean dictionary,
      Getter getter,
      List<ColumnSpec> children) {
    this.name = Objects.requireNonNull(name);
    this.kind = Objects.requireNonNull(kind);
    this.nullable = nullable;
    this.stats = stats;
    this.partition = partition;
    this.dictionary = dictionary;
    this.getter = Objects.requireNonNull(getter);
    this.children = List.copyOf(children);
  }

  static ColumnSpec of(String name, Kind kind, Getter getter) {
    return new ColumnSpec(name, kind, false, false, false, true, getter, List.of());
  }

  static ColumnSpec struct(String name, Getter getter, List<ColumnSpec> children) {
    return new ColumnSpec(name, Kind.STRUCT, false, false, false, true, getter, children);
  }

  static ColumnSpec arrayOfStruct(String name, Getter getter, List<ColumnSpec> children) {
    return new ColumnSpec(name, Kind.ARRAY_OF_STRUCT, false, false, false, true, getter, children);
  }

  ColumnSpec nullable() {
    return new ColumnSpec(name, kind, true, stats, partition, dictionary, getter, children);
  }

  /** Collect numRecords-style min/max/nullCount for this column in every AddFile. */
  ColumnSpec withStats() {
    return new ColumnSpec(name, kind, nullable, true, partition, dictionary, getter, children);
  }

  ColumnSpec partition() {
    return new ColumnSpec(name, kind, nullable, stats, true, dictionary, getter, children);
  }

  /** High-cardinality columns (hashes, payloads) only waste time trying a dictionary. */
  ColumnSpec noDictionary() {
    return new ColumnSpec(name, kind, nullable, stats, partition, false, getter, children);
  }

  boolean isLeaf() {
    return kind != Kind.STRUCT && kind != Kind.ARRAY_OF_STRUCT;
  }

  @Override
  public String toString() {
    return name + ":" + kind;
  }
}
