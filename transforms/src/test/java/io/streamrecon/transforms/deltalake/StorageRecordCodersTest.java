package io.streamrecon.transforms.deltalake;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;

import io.streamrecon.deltalake.CommittedRows;
import io.streamrecon.deltalake.DataFile;
import io.streamrecon.model.Side;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.beam.sdk.testing.CoderProperties;
import org.apache.beam.sdk.util.CoderUtils;
import org.joda.time.Instant;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.JUnit4;

/**
 * The coders of the storage records that flow between the Beam IO's steps keep their bytes: a
 * streaming job's checkpoint holds them, so the bytes below, written by these coders when they
 * still sat on the records themselves, must decode and be written again unchanged.
 */
@RunWith(JUnit4.class)
public class StorageRecordCodersTest {
  private static final String DATA_FILE_BYTES =
      "010a7261775f6576656e74730137736964653d534f555243452f6576656e745f646174653d323032342d30332d"
          + "30312f706172742d302e736e617070792e70617271756574020104736964650106534f55524345010a6576"
          + "656e745f64617465010a323032342d30332d3031959aef3a80d095ffbc31ac0201127b226e756d5265636f"
          + "726473223a3330307d04010203ff01000180d4a697bf63";

  private static final String COMMITTED_ROWS_BYTES =
      "01065441524745542a0137736964653d5441524745542f6576656e745f646174653d323032342d30332d3031"
          + "2f706172742d312e736e617070792e706172717565740001275f73747265616d7265636f6e5f726f775f6b"
          + "6579732f72756e2d312f706172742d312e6b657973030007e0a71203";

  private static DataFile dataFile() {
    Map<String, String> partitions = new LinkedHashMap<>();
    partitions.put("side", "SOURCE");
    partitions.put("event_date", "2024-03-01");
    return new DataFile(
        "raw_events",
        "side=SOURCE/event_date=2024-03-01/part-0.snappy.parquet",
        partitions,
        123456789L,
        1_700_000_000_000L,
        300L,
        "{\"numRecords\":300}",
        new byte[] {1, 2, 3, (byte) 0xff},
        "",
        new Instant(1_709_287_200_000L));
  }

  private static CommittedRows committedRows() {
    return new CommittedRows(
        Side.TARGET,
        42L,
        "side=TARGET/event_date=2024-03-01/part-1.snappy.parquet",
        new byte[0],
        "_streamrecon_row_keys/run-1/part-1.keys",
        new long[] {0L, 7L, 300_000L},
        3L);
  }

  @Test
  public void dataFileKeepsItsBytes() throws Exception {
    byte[] bytes = HexFormat.of().parseHex(DATA_FILE_BYTES);
    assertArrayEquals(bytes, CoderUtils.encodeToByteArray(DataFileCoder.of(), dataFile()));
    assertEquals(dataFile(), CoderUtils.decodeFromByteArray(DataFileCoder.of(), bytes));
    CoderProperties.coderDecodeEncodeEqual(DataFileCoder.of(), dataFile());
    CoderProperties.coderDeterministic(DataFileCoder.of(), dataFile(), dataFile());
  }

  @Test
  public void committedRowsKeepTheirBytes() throws Exception {
    byte[] bytes = HexFormat.of().parseHex(COMMITTED_ROWS_BYTES);
    assertArrayEquals(
        bytes, CoderUtils.encodeToByteArray(CommittedRowsCoder.of(), committedRows()));
    assertEquals(committedRows(), CoderUtils.decodeFromByteArray(CommittedRowsCoder.of(), bytes));
    CoderProperties.coderDecodeEncodeEqual(CommittedRowsCoder.of(), committedRows());
  }
}
