package io.streamrecon.pipeline.run;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class WarehouseTest {
  @Rule public final TemporaryFolder tmp = new TemporaryFolder();

  @Test
  public void pathsAndFileUrisAreLocalOtherSchemesAreNot() {
    assertTrue(Warehouse.of("./warehouse").isLocal());
    assertTrue(Warehouse.of("/data/wh").isLocal());
    assertTrue(Warehouse.of("file:/data/wh").isLocal());
    assertTrue(Warehouse.of("C:relative").isLocal());
    assertFalse(Warehouse.of("s3a://bucket/wh").isLocal());
    assertFalse(Warehouse.of("hdfs://nn:8020/wh").isLocal());
  }

  @Test
  public void theUriIsAbsoluteWithoutTrailingSlash() {
    assertEquals("file:///data/wh", Warehouse.of("/data/wh/").uri());
    assertEquals("file:///data/wh", Warehouse.of("file:/data/x/../wh").uri());
    assertEquals("s3a://bucket/wh", Warehouse.of(" s3a://bucket/wh/ ").uri());
    assertEquals(
        Path.of("wh").toAbsolutePath().toUri().toString().replaceAll("/$", ""),
        Warehouse.of("wh").uri());
  }

  @Test
  public void aTableExistsWhereItsTransactionLogIs() throws Exception {
    Path root = tmp.getRoot().toPath();
    Warehouse w = Warehouse.of(root.toString());
    assertFalse(w.tableExists("deltas"));
    Files.createDirectories(root.resolve("deltas"));
    assertFalse("a directory without a log is no table", w.tableExists("deltas"));
    Files.createDirectories(root.resolve("deltas/_delta_log"));
    assertTrue(w.tableExists("deltas"));
    assertTrue(Warehouse.of(root.toUri().toString()).tableExists("deltas"));
    assertTrue(
        "remote without its file system on the class path: left to the reader",
        Warehouse.of("s3a://b/wh").tableExists("deltas"));
    assertEquals(root + "/deltas", w.tablePath("deltas"));
  }

  @Test
  public void anEmptyWarehouseIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> Warehouse.of(" "));
  }
}
