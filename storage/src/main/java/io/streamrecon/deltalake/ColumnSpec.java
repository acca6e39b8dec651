package io.streamrecon.deltalake;

import java.util.List;
import java.util.Objects;

/**
 * One column of a Delta Lake table written by {@code DeltaLakeIO}: its name, type, how to get its
 * value from a record, and whether it is a partition column or carries per-file statistics. One
 * definition drives the Delta schema, the Parquet schema, the Parquet writer, the statistics and
 * the reader, so the four can never disagree.
 */
public final class ColumnSpec {

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

  public final String name;
  final Kind kind;
  final boolean nullable;
  final boolean stats;
  final boolean partition;
  final boolean dictionary;
  final boolean bloomFilter;
  final Getter getter;
  final List<ColumnSpec> children;

  private ColumnSpec(
      String name,
      Kind kind,
      boolean nullable,
      boolean stats,
      boolean partition,
      boolean dictionary,
      boolean bloomFilter,
      Getter getter,
      List<ColumnSpec> children) {
    this.name = Objects.requireNonNull(name);
    this.kind = Objects.requireNonNull(kind);
    this.nullable = nullable;
    this.stats = stats;
    this.partition = partition;
    this.dictionary = dictionary;
    this.bloomFilter = bloomFilter;
    this.getter = Objects.requireNonNull(getter);
    this.children = List.copyOf(children);
  }

  static ColumnSpec of(String name, Kind kind, Getter getter) {
    return new ColumnSpec(name, kind, false, false, false, true, false, getter, List.of());
  }

  static ColumnSpec struct(String name, Getter getter, List<ColumnSpec> children) {
    return new ColumnSpec(name, Kind.STRUCT, false, false, false, true, false, getter, children);
  }

  static ColumnSpec arrayOfStruct(String name, Getter getter, List<ColumnSpec> children) {
    return new ColumnSpec(
        name, Kind.ARRAY_OF_STRUCT, false, false, false, true, false, getter, children);
  }

  ColumnSpec nullable() {
    return new ColumnSpec(
        name, kind, true, stats, partition, dictionary, bloomFilter, getter, children);
  }

  /** Collect numRecords-style min/max/nullCount for this column in every AddFile. */
  ColumnSpec withStats() {
    return new ColumnSpec(
        name, kind, nullable, true, partition, dictionary, bloomFilter, getter, children);
  }

  ColumnSpec partition() {
    return new ColumnSpec(
        name, kind, nullable, stats, true, dictionary, bloomFilter, getter, children);
  }

  /** High-cardinality columns (hashes, payloads) only waste time trying a dictionary. */
  ColumnSpec noDictionary() {
    return new ColumnSpec(
        name, kind, nullable, stats, partition, false, bloomFilter, getter, children);
  }

  /**
   * Write a Parquet bloom filter of this column in every row group: a key lookup then skips a file
   * whose ids are spread over the whole key range (as streamed) after reading a few KB, where
   * min/max statistics exclude nothing and the values, being nearly all distinct, are not
   * dictionary-encoded.
   */
  ColumnSpec withBloomFilter() {
    return new ColumnSpec(
        name, kind, nullable, stats, partition, dictionary, true, getter, children);
  }

  /** The same column without a bloom filter (benchmarks compare the cost). */
  ColumnSpec withoutBloomFilter() {
    return new ColumnSpec(
        name, kind, nullable, stats, partition, dictionary, false, getter, children);
  }

  boolean isLeaf() {
    return kind != Kind.STRUCT && kind != Kind.ARRAY_OF_STRUCT;
  }

  @Override
  public String toString() {
    return name + ":" + kind;
  }
}
