package io.streamrecon.model;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.UUID;
import org.junit.Test;

/** New data files are named so that a pointer stores their path in its compact form. */
public class DataFileNameTest {
  private static byte[] encoded(String path) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ModelCoders.writeDataFile(path, out);
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
    assertEquals(path, ModelCoders.readDataFile(new ByteArrayInputStream(bytes)));
    String other = "side=TARGET/event_date=2024-03-01/other.parquet";
    assertEquals(other, ModelCoders.readDataFile(new ByteArrayInputStream(encoded(other))));
  }
}
