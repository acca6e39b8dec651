package io.streamrecon.transforms;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

import io.streamrecon.model.DataFileName;
import io.streamrecon.model.ModelBytes;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.UUID;
import org.junit.Test;

/** New data files are named so that a pointer stores their path in its compact form. */
public class DataFileNameTest {
  private static byte[] encoded(String path) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ModelBytes.writeDataFile(path, out);
    return out.toByteArray();
  }

  @Test
  public void aNewNameMatchesThePatternAndIsUnique() {
    String name = DataFileName.newName();
    assertTrue(name, name.matches(DataFileName.PATTERN));
    assertNotEquals(name, DataFileName.newName());
    UUID uuid = UUID.randomUUID();
    assertEquals("part-" + uuid + ".snappy.parquet", DataFileName.of(uuid));
  }

  @Test
  public void aRawEventsFilePathIsStoredAsSideDateAndUuid() throws Exception {
    String path = "side=TARGET/event_date=2024-03-01/" + DataFileName.newName();
    byte[] bytes = encoded(path);
    // tag, varint epoch day (3 bytes for 2024), two longs: far below the path's 76 characters.
    assertTrue(bytes.length + " bytes", bytes.length <= 20);
    assertEquals(path, ModelBytes.readDataFile(new ByteArrayInputStream(bytes)));
    String other = "side=TARGET/event_date=2024-03-01/other.parquet";
    assertEquals(other, ModelBytes.readDataFile(new ByteArrayInputStream(encoded(other))));
  }

  /**
   * Pairing state and checkpoints hold these bytes: the layout is fixed (tag 3 or 4, varint epoch
   * day, the UUID's two longs high byte first), whatever parses it.
   */
  @Test
  public void theCompactLayoutIsTheStoredOne() throws Exception {
    UUID uuid = UUID.fromString("0f8e3c1a-5b7d-4e2f-9a6c-1d2e3f405162");
    String path = "side=SOURCE/event_date=2026-12-02/" + DataFileName.of(uuid);
    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    expected.write(3);
    org.apache.beam.sdk.util.VarInt.encode(
        java.time.LocalDate.of(2026, 12, 2).toEpochDay(), expected);
    java.io.DataOutputStream data = new java.io.DataOutputStream(expected);
    data.writeLong(uuid.getMostSignificantBits());
    data.writeLong(uuid.getLeastSignificantBits());
    data.flush();
    assertEquals(
        java.util.HexFormat.of().formatHex(expected.toByteArray()),
        java.util.HexFormat.of().formatHex(encoded(path)));
    assertEquals(path, ModelBytes.readDataFile(new ByteArrayInputStream(expected.toByteArray())));
    assertEquals(4, encoded(path.replace("SOURCE", "TARGET"))[0]);
  }

  /** Paths of any other shape are stored as they are, and come back unchanged. */
  @Test
  public void pathsOfAnotherShapeAreStoredAsStrings() throws Exception {
    String name = DataFileName.of(UUID.fromString("0f8e3c1a-5b7d-4e2f-9a6c-1d2e3f405162"));
    for (String path :
        java.util.List.of(
            "side=SOURCE/event_date=2026-02-30/" + name, // no such day
            "side=SOURCE/event_date=2026-1-02/" + name + "x",
            "side=SOURCE/event_date=2026-12-02/" + name.toUpperCase(java.util.Locale.ROOT),
            "side=OTHER_/event_date=2026-12-02/" + name,
            "side=SOURCE/event_date=2026-12-02/" + name.replace('-', '_'),
            "side=SOURCE/event_date=2026-12-02/" + name.replace(".snappy", ".zstd__"),
            "side=SOURCE/event_date=+026-12-02/" + name)) {
      byte[] bytes = encoded(path);
      assertTrue(path, bytes[0] != 3 && bytes[0] != 4);
      assertEquals(path, ModelBytes.readDataFile(new ByteArrayInputStream(bytes)));
    }
  }
}
