package io.streamrecon.deltalake;

import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.ReadSupport;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.InputFile;

/**
 * The Parquet settings of every data file the project writes (a bundle's files, a compaction's, a
 * file rewritten without copies), so that all of them have the same encodings and bloom filters.
 */
final class DataFileFormat {
  private DataFileFormat() {}

  /** Smaller than Parquet's 128 MiB default: a bundle may keep a file open per partition. */
  static final int ROW_GROUP_BYTES = 32 << 20;

  /**
   * Fewest keys a bloom filter is sized for (2 KiB at 1% false positives): an under-sized filter
   * only loses selectivity, never a row, and a few KB is small next to a file's own overhead.
   */
  static final long MIN_BLOOM_KEYS = 1_000;

  /** Parquet's default false positive rate: a lookup opens about 1 file in 100 needlessly. */
  static final double BLOOM_FPP = ParquetProperties.DEFAULT_BLOOM_FILTER_FPP;

  /**
   * Applies the settings to a writer builder.
   *
   * @param expectedRows the rows the file will probably hold: a bloom filter is sized once, when
   *     the file is opened, for this many distinct keys (at least {@link #MIN_BLOOM_KEYS}; Parquet
   *     caps it at {@code parquet.bloom.filter.max.bytes}, 1 MiB); a file that holds more keys
   *     gets a less selective filter, never a wrong one
   */
  static <B extends ParquetWriter.Builder<?, B>> B configure(
      B builder, TableLayout<?> layout, long expectedRows) {
    B b =
        builder
            .withWriteMode(ParquetFileWriter.Mode.CREATE)
            .withCompressionCodec(CompressionCodecName.SNAPPY)
            .withRowGroupSize((long) ROW_GROUP_BYTES)
            .withDictionaryEncoding(true);
    for (ColumnSpec c : layout.dataColumns()) {
      if (!c.isLeaf()) {
        continue;
      }
      if (!c.dictionary) {
        b = b.withDictionaryEncoding(c.name, false);
      }
      if (c.bloomFilter) {
        b =
            b.withBloomFilterEnabled(c.name, true)
                .withBloomFilterNDV(c.name, bloomKeys(expectedRows))
                .withBloomFilterFPP(c.name, BLOOM_FPP);
      }
    }
    return b;
  }

  static long bloomKeys(long expectedRows) {
    return Math.max(MIN_BLOOM_KEYS, expectedRows);
  }

  /**
   * A reader builder over a file opened with the caller's configuration. {@code
   * ParquetReader.builder(support, path)} makes a fresh Hadoop {@code Configuration} for every
   * file, which parses Hadoop's default XML resources again: measured at a third of a 100-file
   * lookup.
   */
  static <T> ParquetReader.Builder<T> reader(ReadSupport<T> support, InputFile file) {
    return new ParquetReader.Builder<T>(file) {
      @Override
      protected ReadSupport<T> getReadSupport() {
        return support;
      }
    };
  }
}
