package io.streamrecon.deltalake;

import io.delta.kernel.types.ArrayType;
import io.delta.kernel.types.BooleanType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.DateType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.types.TimestampType;
import java.io.IOException;
import java.io.OutputStream;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Type.Repetition;
import org.apache.parquet.schema.Types;

/**
 * The shape of one Delta Lake table: its columns in schema order (partition columns included), from
 * which the Delta schema, the Parquet file schema (partition columns excluded, as the Delta
 * protocol wants) and the partition directory of a row are derived.
 *
 * @param <T> the record type one row is made from
 */
public final class TableLayout<T> {

  /**
   * Writes the per-row metadata that a pointer needs once the file is committed (raw events only),
   * so that the committer never has to read the data file back.
   */
  @FunctionalInterface
  interface RowKeyEncoder<T> {
    void encode(T record, OutputStream out) throws IOException;
  }

  public final String name;
  final Class<T> type;
  public final List<ColumnSpec> columns;
  final RowKeyEncoder<T> rowKeys;

  /**
   * The columns whose values identify a row by content: two rows with equal values are copies of
   * one input (a replayed Kafka record, a re-emitted verdict), and a writer stores only one.
   */
  final List<ColumnSpec> identity;

  TableLayout(
      String name,
      Class<T> type,
      List<ColumnSpec> columns,
      RowKeyEncoder<T> rowKeys,
      List<String> identityColumns) {
    this.name = Objects.requireNonNull(name);
    this.type = Objects.requireNonNull(type);
    this.columns = List.copyOf(columns);
    this.rowKeys = rowKeys;
    List<ColumnSpec> id = new ArrayList<>();
    for (String c : identityColumns) {
      ColumnSpec spec = column(c);
      if (!spec.isLeaf()) {
        throw new IllegalArgumentException(
            "identity column " + c + " of " + name + " is not a leaf");
      }
      id.add(spec);
    }
    if (id.isEmpty()) {
      throw new IllegalArgumentException("table " + name + " needs identity columns");
    }
    this.identity = List.copyOf(id);
  }

  /** The content identity of a record: its identity column values, joined. */
  String identityOf(T record) {
    StringBuilder key = new StringBuilder();
    for (ColumnSpec c : identity) {
      // Identity columns never depend on the row context (run id, write time).
      appendIdentityPart(key, c.getter.get(record, null));
    }
    return key.toString();
  }

  /** The content identity of a stored row read back as column values (see {@link #identity}). */
  String identityOfRow(Map<String, Object> row) {
    StringBuilder key = new StringBuilder();
    for (ColumnSpec c : identity) {
      appendIdentityPart(key, row.get(c.name));
    }
    return key.toString();
  }

  private static void appendIdentityPart(StringBuilder key, Object value) {
    if (key.length() > 0) {
      key.append('\u001f');
    }
    // Same text for a record's value and the value read back (Instant, Integer, Long, String).
    key.append(value == null ? "\u0000" : value.toString());
  }

  List<ColumnSpec> dataColumns() {
    return columns.stream().filter(c -> !c.partition).toList();
  }

  List<ColumnSpec> partitionColumns() {
    return columns.stream().filter(c -> c.partition).toList();
  }

  List<String> partitionColumnNames() {
    return partitionColumns().stream().map(c -> c.name).toList();
  }

  ColumnSpec column(String columnName) {
    for (ColumnSpec c : columns) {
      if (c.name.equals(columnName)) {
        return c;
      }
    }
    throw new IllegalArgumentException("table " + name + " has no column " + columnName);
  }

  /** Partition column name to its Delta partition value (string form), in partition order. */
  Map<String, String> partitionValues(T record, RowContext context) {
    Map<String, String> values = new LinkedHashMap<>();
    for (ColumnSpec c : partitionColumns()) {
      Object v = c.getter.get(record, context);
      if (v == null) {
        throw new IllegalArgumentException("partition column " + c.name + " is null");
      }
      values.put(c.name, v.toString());
    }
    return values;
  }

  /** {@code a=x/b=y}, the Hive-style directory Delta readers expect; empty when unpartitioned. */
  static String partitionDirectory(Map<String, String> partitionValues) {
    StringBuilder dir = new StringBuilder();
    for (Map.Entry<String, String> e : partitionValues.entrySet()) {
      if (dir.length() > 0) {
        dir.append('/');
      }
      dir.append(e.getKey()).append('=').append(e.getValue());
    }
    return dir.toString();
  }

  /** Converts a partition value from its Delta string form to the column's Java value. */
  static Object partitionValue(ColumnSpec column, String value) {
    if (value == null) {
      return null;
    }
    return switch (column.kind) {
      case STRING -> value;
      case DATE -> LocalDate.parse(value);
      case INT -> Integer.valueOf(value);
      case LONG -> Long.valueOf(value);
      case BOOLEAN -> Boolean.valueOf(value);
      default -> throw new IllegalArgumentException("unsupported partition column " + column);
    };
  }

  // ------------------------------------------------------------------ Delta schema

  StructType deltaSchema() {
    return new StructType(toFields(columns, false));
  }

  private static List<StructField> toFields(List<ColumnSpec> columns, boolean insideArray) {
    List<StructField> fields = new ArrayList<>();
    for (ColumnSpec c : columns) {
      // Delta cannot enforce NOT NULL below an array, and Delta readers refuse such schemas.
      fields.add(new StructField(c.name, deltaType(c, insideArray), c.nullable || insideArray));
    }
    return fields;
  }

  private static DataType deltaType(ColumnSpec c, boolean insideArray) {
    return switch (c.kind) {
      case STRING -> StringType.STRING;
      case INT -> IntegerType.INTEGER;
      case LONG -> LongType.LONG;
      case BOOLEAN -> BooleanType.BOOLEAN;
      case TIMESTAMP -> TimestampType.TIMESTAMP;
      case DATE -> DateType.DATE;
      case STRUCT -> new StructType(toFields(c.children, insideArray));
      case ARRAY_OF_STRUCT -> new ArrayType(new StructType(toFields(c.children, true)), false);
    };
  }

  // ------------------------------------------------------------------ Parquet schema

  MessageType parquetSchema() {
    return new MessageType("spark_schema", toParquet(dataColumns()));
  }

  private static List<Type> toParquet(List<ColumnSpec> columns) {
    List<Type> types = new ArrayList<>();
    for (ColumnSpec c : columns) {
      types.add(parquetType(c));
    }
    return types;
  }

  private static Type parquetType(ColumnSpec c) {
    Repetition repetition = c.nullable ? Repetition.OPTIONAL : Repetition.REQUIRED;
    return switch (c.kind) {
      case STRING ->
          Types.primitive(PrimitiveTypeName.BINARY, repetition)
              .as(LogicalTypeAnnotation.stringType())
              .named(c.name);
      case INT -> Types.primitive(PrimitiveTypeName.INT32, repetition).named(c.name);
      case LONG -> Types.primitive(PrimitiveTypeName.INT64, repetition).named(c.name);
      case BOOLEAN -> Types.primitive(PrimitiveTypeName.BOOLEAN, repetition).named(c.name);
      case TIMESTAMP ->
          Types.primitive(PrimitiveTypeName.INT64, repetition)
              .as(LogicalTypeAnnotation.timestampType(true, TimeUnit.MICROS))
              .named(c.name);
      case DATE ->
          Types.primitive(PrimitiveTypeName.INT32, repetition)
              .as(LogicalTypeAnnotation.dateType())
              .named(c.name);
      case STRUCT -> new GroupType(repetition, c.name, toParquet(c.children));
      case ARRAY_OF_STRUCT ->
          // The three-level LIST layout of the Parquet spec, as Spark writes it.
          Types.buildGroup(repetition)
              .as(LogicalTypeAnnotation.listType())
              .addField(
                  new GroupType(
                      Repetition.REPEATED,
                      "list",
                      new GroupType(Repetition.REQUIRED, "element", toParquet(c.children))))
              .named(c.name);
    };
  }

  @Override
  public String toString() {
    return "TableLayout[" + name + "]";
  }
}
