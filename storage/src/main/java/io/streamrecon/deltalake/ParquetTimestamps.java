package io.streamrecon.deltalake;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * Reads a Parquet timestamp as epoch milliseconds, whoever wrote the file: streamrecon's INT64
 * micros, other writers' INT64 millis or nanos, or Spark's legacy INT96 (should another engine have
 * rewritten the files).
 */
public final class ParquetTimestamps {
  /** The Julian day number of 1970-01-01, the epoch of INT96's day count. */
  private static final long JULIAN_DAY_OF_EPOCH = 2_440_588L;

  private ParquetTimestamps() {}

  /** The timestamp in field {@code i} of {@code g}, of Parquet type {@code type}. */
  public static long millis(Group g, int i, PrimitiveType type) {
    if (type.getPrimitiveTypeName() == PrimitiveTypeName.INT96) {
      ByteBuffer b = g.getInt96(i, 0).toByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
      long nanosOfDay = b.getLong();
      long julianDay = b.getInt();
      return (julianDay - JULIAN_DAY_OF_EPOCH) * 86_400_000L + nanosOfDay / 1_000_000L;
    }
    long value = g.getLong(i, 0);
    if (type.getLogicalTypeAnnotation()
        instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation ts) {
      return switch (ts.getUnit()) {
        case MILLIS -> value;
        case MICROS -> Math.floorDiv(value, 1000L);
        case NANOS -> Math.floorDiv(value, 1_000_000L);
      };
    }
    return Math.floorDiv(value, 1000L);
  }
}
