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
public final class DataFileFormat {
  private DataFileFormat() {}

  /** Smaller than Parquet's 128 MiB default: a bundle may keep a file open per partition. */
  static final int ROW_GROUP_BYTES = 32 << 20;

  /**
   * Parquet's page size, 64 KiB instead of its 1 MiB default: a payload fetch decompresses every
   * page that holds a wanted row, and the fetch reads its verdicts in chunks whose rows are spread
   * over every file. With 1 MiB pages (about 370 payloads of 2.8 KB) a chunk of 10,000 MISMATCHes
   * hit nearly every page of a 1M-record run, so every chunk decompressed the whole payload column
   * again; a 64 KiB page holds about 23, so a chunk touches a few percent of them. The offset and
   * column indexes gain one entry per page (about 150 bytes, 0.2 % of a payload page).
   */
  static final int PAGE_BYTES = 64 << 10;

  /**
   * How many rows Parquet writes between two page size checks (its default is 100). Parquet 1.13
   * checks again after this many rows whatever the rows' size, so the default lets a payload page
   * grow to 100 rows (280 KB) before its size is looked at.
   */
  static final int ROWS_PER_PAGE_SIZE_CHECK = 8;

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
   *     caps it at {@code parquet.bloom.filter.max.bytes}, 1 MiB); a file that holds more keys gets
   *     a less selective filter, never a wrong one
   */
  static <B extends ParquetWriter.Builder<?, B>> B configure(
      B builder, TableLayout<?> layout, long expectedRows) {
    B b =
        builder
            .withWriteMode(ParquetFileWriter.Mode.CREATE)
            .withCompressionCodec(CompressionCodecName.SNAPPY)
            .withRowGroupSize((long) ROW_GROUP_BYTES)
            .withPageSize(PAGE_BYTES)
            .withMinRowCountForPageSizeCheck(ROWS_PER_PAGE_SIZE_CHECK)
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
   * file, which parses Hadoop's default XML resources again: a large share of a lookup that opens
   * many files.
   */
  public static <T> ParquetReader.Builder<T> reader(ReadSupport<T> support, InputFile file) {
    return new ParquetReader.Builder<T>(file) {
      @Override
      protected ReadSupport<T> getReadSupport() {
        return support;
      }
    };
  }
}
