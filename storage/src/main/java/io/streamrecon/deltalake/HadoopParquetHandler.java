package io.streamrecon.deltalake;

import io.delta.kernel.data.ArrayValue;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.MapValue;
import io.delta.kernel.data.Row;
import io.delta.kernel.defaults.internal.data.DefaultRowBasedColumnarBatch;
import io.delta.kernel.engine.FileReadResult;
import io.delta.kernel.engine.ParquetHandler;
import io.delta.kernel.expressions.Column;
import io.delta.kernel.expressions.Predicate;
import io.delta.kernel.internal.data.GenericRow;
import io.delta.kernel.internal.util.VectorUtils;
import io.delta.kernel.types.ArrayType;
import io.delta.kernel.types.BinaryType;
import io.delta.kernel.types.BooleanType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.DateType;
import io.delta.kernel.types.DoubleType;
import io.delta.kernel.types.FloatType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.MapType;
import io.delta.kernel.types.MetadataColumnSpec;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.types.TimestampNTZType;
import io.delta.kernel.types.TimestampType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.DataFileStatus;
import io.delta.kernel.utils.FileStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Type.Repetition;
import org.apache.parquet.schema.Types;

/**
 * Kernel's Parquet handler on the Parquet release we ship: reads and writes the log's checkpoint
 * files (the only Parquet Kernel itself touches here; our data files are written and read by our
 * own code). Rows go through Parquet's example {@link Group} model into Kernel rows: checkpoints
 * hold one row per live file, so row-at-a-time conversion is cheap next to the file reads.
 *
 * <p>Reads give every requested column that the file lacks as null, and the row index for Kernel's
 * row-index metadata column. The predicate is a hint Kernel applies again; it is not used. Writing
 * data files through Kernel is not supported: streamrecon writes its own.
 */
final class HadoopParquetHandler implements ParquetHandler {
  private static final int BATCH_ROWS = 1024;

  private final Configuration conf;

  HadoopParquetHandler(Configuration conf) {
    this.conf = conf;
  }

  // ------------------------------------------------------------------ reading

  @Override
  public CloseableIterator<FileReadResult> readParquetFiles(
      CloseableIterator<FileStatus> files, StructType schema, Optional<Predicate> predicate) {
    return new CloseableIterator<>() {
      private FileStatus current;
      private ParquetReader<Group> reader;
      private long rowIndex;
      private FileReadResult next;

      @Override
      public boolean hasNext() {
        try {
          while (next == null) {
            if (reader == null) {
              if (!files.hasNext()) {
                return false;
              }
              current = files.next();
              reader =
                  DataFileFormat.reader(
                          new GroupReadSupport(),
                          HadoopInputFile.fromPath(new Path(current.getPath()), conf))
                      .build();
              rowIndex = 0;
            }
            List<Row> rows = new ArrayList<>();
            Group g;
            while (rows.size() < BATCH_ROWS && (g = reader.read()) != null) {
              rows.add(toRow(g, schema, rowIndex++));
            }
            if (rows.size() < BATCH_ROWS) {
              reader.close();
              reader = null;
            }
            if (!rows.isEmpty()) {
              next =
                  new FileReadResult(
                      new DefaultRowBasedColumnarBatch(schema, rows), current.getPath());
            }
          }
          return true;
        } catch (IOException e) {
          throw new UncheckedIOException("reading " + current.getPath(), e);
        }
      }

      @Override
      public FileReadResult next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        FileReadResult r = next;
        next = null;
        return r;
      }

      @Override
      public void close() throws IOException {
        try {
          if (reader != null) {
            reader.close();
          }
        } finally {
          files.close();
        }
      }
    };
  }

  private static Row toRow(Group g, StructType schema, long rowIndex) {
    Map<Integer, Object> values = new HashMap<>();
    for (int i = 0; i < schema.length(); i++) {
      StructField f = schema.at(i);
      if (f.isMetadataColumn()) {
        if (f.getMetadataColumnSpec() == MetadataColumnSpec.ROW_INDEX) {
          values.put(i, rowIndex);
          continue;
        }
        throw new UnsupportedOperationException("metadata column " + f.getName());
      }
      Object v = field(g, f.getName(), f.getDataType());
      if (v != null) {
        values.put(i, v);
      }
    }
    return new GenericRow(schema, values);
  }

  private static Object field(Group g, String name, DataType type) {
    GroupType gt = g.getType();
    if (!gt.containsField(name)) {
      return null;
    }
    int i = gt.getFieldIndex(name);
    if (g.getFieldRepetitionCount(i) == 0) {
      return null;
    }
    return value(g, i, gt.getType(i), type);
  }

  private static Object value(Group g, int i, Type parquet, DataType type) {
    if (type instanceof StructType st) {
      return toRow(g.getGroup(i, 0), st, -1);
    }
    if (type instanceof MapType mt) {
      Group map = g.getGroup(i, 0);
      List<Object> keys = new ArrayList<>();
      List<Object> vals = new ArrayList<>();
      int n = map.getType().getFieldCount() == 0 ? 0 : map.getFieldRepetitionCount(0);
      for (int k = 0; k < n; k++) {
        Group kv = map.getGroup(0, k);
        keys.add(field(kv, "key", mt.getKeyType()));
        vals.add(field(kv, "value", mt.getValueType()));
      }
      return mapValue(keys, vals, mt);
    }
    if (type instanceof ArrayType at) {
      Group list = g.getGroup(i, 0);
      List<Object> elements = new ArrayList<>();
      int n = list.getType().getFieldCount() == 0 ? 0 : list.getFieldRepetitionCount(0);
      Type repeated = list.getType().getType(0);
      for (int k = 0; k < n; k++) {
        if (repeated.isPrimitive() || repeated.asGroupType().getFieldCount() != 1) {
          // Two-level list: the repeated field is the element.
          elements.add(value(list, 0, repeated, at.getElementType()));
        } else {
          Group item = list.getGroup(0, k);
          elements.add(
              item.getFieldRepetitionCount(0) == 0
                  ? null
                  : value(item, 0, item.getType().getType(0), at.getElementType()));
        }
      }
      return VectorUtils.buildArrayValue(elements, at.getElementType());
    }
    PrimitiveTypeName p = parquet.asPrimitiveType().getPrimitiveTypeName();
    if (type instanceof StringType) {
      return g.getBinary(i, 0).toStringUsingUTF8();
    }
    if (type instanceof BinaryType) {
      return g.getBinary(i, 0).getBytes();
    }
    if (type instanceof LongType
        || type instanceof TimestampType
        || type instanceof TimestampNTZType) {
      return p == PrimitiveTypeName.INT32 ? (long) g.getInteger(i, 0) : g.getLong(i, 0);
    }
    if (type instanceof IntegerType || type instanceof DateType) {
      return g.getInteger(i, 0);
    }
    if (type instanceof BooleanType) {
      return g.getBoolean(i, 0);
    }
    if (type instanceof DoubleType) {
      return p == PrimitiveTypeName.FLOAT ? (double) g.getFloat(i, 0) : g.getDouble(i, 0);
    }
    if (type instanceof FloatType) {
      return g.getFloat(i, 0);
    }
    throw new UnsupportedOperationException("reading " + type + " from a checkpoint");
  }

  private static MapValue mapValue(List<Object> keys, List<Object> values, MapType type) {
    ColumnVector k = VectorUtils.buildColumnVector(keys, type.getKeyType());
    ColumnVector v = VectorUtils.buildColumnVector(values, type.getValueType());
    return new MapValue() {
      @Override
      public int getSize() {
        return keys.size();
      }

      @Override
      public ColumnVector getKeys() {
        return k;
      }

      @Override
      public ColumnVector getValues() {
        return v;
      }
    };
  }

  // ------------------------------------------------------------------ writing

  @Override
  public CloseableIterator<DataFileStatus> writeParquetFiles(
      String directoryPath, CloseableIterator<FilteredColumnarBatch> data, List<Column> stats) {
    throw new UnsupportedOperationException(
        "streamrecon writes its data files itself, not through Delta Kernel");
  }

  /**
   * Writes a checkpoint: completely under a temporary name in the same directory, then renamed to
   * {@code filePath}, failing with {@link FileAlreadyExistsException} when that exists (another
   * writer checkpointed the version; Kernel then leaves it).
   */
  @Override
  public void writeParquetFileAtomically(
      String filePath, CloseableIterator<FilteredColumnarBatch> data) throws IOException {
    Path target = new Path(filePath);
    FileSystem fs = target.getFileSystem(conf);
    Path temp =
        new Path(target.getParent(), "." + target.getName() + "." + UUID.randomUUID() + ".tmp");
    try (data) {
      if (fs.exists(target)) {
        throw new FileAlreadyExistsException(filePath);
      }
      ParquetWriter<Group> writer = null;
      MessageType messageType = null;
      try {
        while (data.hasNext()) {
          FilteredColumnarBatch batch = data.next();
          StructType schema = batch.getData().getSchema();
          if (writer == null) {
            messageType = messageType(schema);
            writer =
                ExampleParquetWriter.builder(temp)
                    .withConf(conf)
                    .withType(messageType)
                    .withCompressionCodec(CompressionCodecName.SNAPPY)
                    .build();
          }
          SimpleGroupFactory groups = new SimpleGroupFactory(messageType);
          try (CloseableIterator<Row> rows = batch.getRows()) {
            while (rows.hasNext()) {
              Group g = groups.newGroup();
              fill(g, rows.next(), schema);
              writer.write(g);
            }
          }
        }
      } finally {
        if (writer != null) {
          writer.close();
        }
      }
      if (writer == null) {
        return;
      }
      if (fs.exists(target) || !fs.rename(temp, target)) {
        throw new FileAlreadyExistsException(filePath);
      }
    } finally {
      fs.delete(temp, false);
    }
  }

  static MessageType messageType(StructType schema) {
    List<Type> fields = new ArrayList<>();
    for (StructField f : schema.fields()) {
      fields.add(parquetType(f.getName(), f.getDataType()));
    }
    return new MessageType("spark_schema", fields);
  }

  private static Type parquetType(String name, DataType type) {
    if (type instanceof StructType st) {
      List<Type> fields = new ArrayList<>();
      for (StructField f : st.fields()) {
        fields.add(parquetType(f.getName(), f.getDataType()));
      }
      return new GroupType(Repetition.OPTIONAL, name, fields);
    }
    if (type instanceof MapType mt) {
      return Types.optionalMap()
          .key(parquetKeyType(mt.getKeyType()))
          .value(parquetType("value", mt.getValueType()))
          .named(name);
    }
    if (type instanceof ArrayType at) {
      return Types.optionalList().element(parquetType("element", at.getElementType())).named(name);
    }
    if (type instanceof StringType) {
      return Types.optional(PrimitiveTypeName.BINARY)
          .as(LogicalTypeAnnotation.stringType())
          .named(name);
    }
    if (type instanceof LongType) {
      return Types.optional(PrimitiveTypeName.INT64).named(name);
    }
    if (type instanceof IntegerType) {
      return Types.optional(PrimitiveTypeName.INT32).named(name);
    }
    if (type instanceof BooleanType) {
      return Types.optional(PrimitiveTypeName.BOOLEAN).named(name);
    }
    if (type instanceof BinaryType) {
      return Types.optional(PrimitiveTypeName.BINARY).named(name);
    }
    throw new UnsupportedOperationException("writing " + type + " into a checkpoint");
  }

  private static Type parquetKeyType(DataType type) {
    Type t = parquetType("key", type);
    return t.isPrimitive()
        ? Types.required(t.asPrimitiveType().getPrimitiveTypeName())
            .as(t.getLogicalTypeAnnotation())
            .named("key")
        : t;
  }

  private static void fill(Group g, Row row, StructType schema) {
    for (int i = 0; i < schema.length(); i++) {
      if (!row.isNullAt(i)) {
        StructField f = schema.at(i);
        put(g, f.getName(), f.getDataType(), row, i);
      }
    }
  }

  private static void put(Group g, String name, DataType type, Row row, int i) {
    if (type instanceof StructType st) {
      fill(g.addGroup(name), row.getStruct(i), st);
    } else if (type instanceof MapType mt) {
      MapValue map = row.getMap(i);
      Group kvs = g.addGroup(name);
      for (int k = 0; k < map.getSize(); k++) {
        Group kv = kvs.addGroup(0);
        putVector(kv, "key", mt.getKeyType(), map.getKeys(), k);
        putVector(kv, "value", mt.getValueType(), map.getValues(), k);
      }
    } else if (type instanceof ArrayType at) {
      ArrayValue array = row.getArray(i);
      Group list = g.addGroup(name);
      for (int k = 0; k < array.getSize(); k++) {
        putVector(list.addGroup(0), "element", at.getElementType(), array.getElements(), k);
      }
    } else if (type instanceof StringType) {
      g.add(name, row.getString(i));
    } else if (type instanceof LongType) {
      g.add(name, row.getLong(i));
    } else if (type instanceof IntegerType) {
      g.add(name, row.getInt(i));
    } else if (type instanceof BooleanType) {
      g.add(name, row.getBoolean(i));
    } else if (type instanceof BinaryType) {
      g.add(name, Binary.fromReusedByteArray(row.getBinary(i)));
    } else {
      throw new UnsupportedOperationException("writing " + type + " into a checkpoint");
    }
  }

  private static void putVector(Group g, String name, DataType type, ColumnVector v, int k) {
    if (v.isNullAt(k)) {
      return;
    }
    if (type instanceof StructType st) {
      Group s = g.addGroup(name);
      for (int c = 0; c < st.length(); c++) {
        StructField f = st.at(c);
        putVector(s, f.getName(), f.getDataType(), v.getChild(c), k);
      }
    } else if (type instanceof StringType) {
      g.add(name, v.getString(k));
    } else if (type instanceof LongType) {
      g.add(name, v.getLong(k));
    } else if (type instanceof IntegerType) {
      g.add(name, v.getInt(k));
    } else if (type instanceof BooleanType) {
      g.add(name, v.getBoolean(k));
    } else {
      throw new UnsupportedOperationException("writing " + type + " into a checkpoint");
    }
  }
}
