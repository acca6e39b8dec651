package io.streamrecon.deltalake;

import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.MessageType;
import org.joda.time.Instant;

/**
 * Turns records into Parquet rows following a {@link TableLayout}, straight into the {@link
 * RecordConsumer}: no intermediate row objects. Partition columns are not written; Delta readers
 * take them from the AddFile's partition values.
 */
final class RowWriteSupport<T> extends WriteSupport<T> {
  /** The footer key naming the table a data file was written for. */
  static final String TABLE_KEY = "streamrecon.table";

  private final TableLayout<T> layout;
  private final MessageType schema;
  private final List<ColumnSpec> dataColumns;
  private RecordConsumer consumer;
  private RowContext context;

  RowWriteSupport(TableLayout<T> layout) {
    this.layout = layout;
    this.schema = layout.parquetSchema();
    this.dataColumns = layout.dataColumns();
  }

  /** The context of the rows written next (run id, write time). */
  void setContext(RowContext context) {
    this.context = context;
  }

  @Override
  public WriteContext init(Configuration configuration) {
    return new WriteContext(schema, Map.of(TABLE_KEY, layout.name));
  }

  @Override
  public void prepareForWrite(RecordConsumer recordConsumer) {
    this.consumer = recordConsumer;
  }

  @Override
  public String getName() {
    return "streamrecon";
  }

  @Override
  public void write(T record) {
    consumer.startMessage();
    writeFields(dataColumns, record);
    consumer.endMessage();
  }

  private void writeFields(List<ColumnSpec> columns, Object record) {
    for (int i = 0; i < columns.size(); i++) {
      ColumnSpec c = columns.get(i);
      Object value = c.getter.get(record, context);
      if (value == null) {
        if (!c.nullable) {
          throw new IllegalArgumentException(
              "column " + layout.name + "." + c.name + " is NOT NULL but the value is null");
        }
        continue;
      }
      consumer.startField(c.name, i);
      writeValue(c, value);
      consumer.endField(c.name, i);
    }
  }

  private void writeValue(ColumnSpec c, Object value) {
    switch (c.kind) {
      case STRING ->
          consumer.addBinary(
              value instanceof byte[] bytes
                  // Payloads are kept byte for byte as received.
                  ? Binary.fromConstantByteArray(bytes)
                  : Binary.fromString((String) value));
      case INT -> consumer.addInteger((Integer) value);
      case LONG -> consumer.addLong((Long) value);
      case BOOLEAN -> consumer.addBoolean((Boolean) value);
      case TIMESTAMP -> consumer.addLong(Math.multiplyExact(((Instant) value).getMillis(), 1000L));
      case DATE -> consumer.addInteger(Math.toIntExact(((LocalDate) value).toEpochDay()));
      case STRUCT -> {
        consumer.startGroup();
        writeFields(c.children, value);
        consumer.endGroup();
      }
      case ARRAY_OF_STRUCT -> {
        List<?> elements = (List<?>) value;
        consumer.startGroup();
        if (!elements.isEmpty()) {
          consumer.startField("list", 0);
          for (Object element : elements) {
            consumer.startGroup();
            consumer.startField("element", 0);
            consumer.startGroup();
            writeFields(c.children, element);
            consumer.endGroup();
            consumer.endField("element", 0);
            consumer.endGroup();
          }
          consumer.endField("list", 0);
        }
        consumer.endGroup();
      }
    }
  }

  /** A ParquetWriter builder for a given write support. */
  static final class Builder<T> extends ParquetWriter.Builder<T, Builder<T>> {
    private final WriteSupport<T> writeSupport;

    Builder(OutputFile file, WriteSupport<T> writeSupport) {
      super(file);
      this.writeSupport = writeSupport;
    }

    @Override
    protected Builder<T> self() {
      return this;
    }

    @Override
    protected WriteSupport<T> getWriteSupport(Configuration conf) {
      return writeSupport;
    }
  }
}
