package io.streamrecon.deltalake;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamrecon.model.DeltaRecord;
import io.streamrecon.model.Pointer;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * A warehouse written by release 0.1.0 (delta-standalone, protocol (1,2)), kept in the test
 * resources as that release left it, reads and explains as before through the Delta Kernel read
 * path.
 */
public class ReleaseWarehouseTest {
  /**
   * The release's warehouse in this module's test resources, found from the storage module or a
   * module beside it (the Beam IO's tests in transforms append to it too).
   */
  static final Path RELEASE = releaseDirectory();

  private static final ObjectMapper JSON = new ObjectMapper();

  @Rule public TemporaryFolder tmp = new TemporaryFolder();
  private String warehouse;

  @Before
  public void copyRelease() throws Exception {
    warehouse = copy(tmp.newFolder("wh").toPath());
  }

  private static Path releaseDirectory() {
    Path inModule = Paths.get("src/test/resources/warehouses/release-0.1.0");
    return Files.isDirectory(inModule) ? inModule : Paths.get("../storage").resolve(inModule);
  }

  /** Copies the release's three tables (not the inputs beside them) into {@code dir}. */
  public static String copy(Path dir) throws Exception {
    for (String table : List.of("raw_events", "deltas", "dead_letters")) {
      org.apache.commons.io.FileUtils.copyDirectory(
          RELEASE.resolve(table).toFile(), dir.resolve(table).toFile());
    }
    return dir.toString();
  }

  public static Set<String> expectedVerdictIds() throws Exception {
    Set<String> ids = new TreeSet<>();
    for (String line : Files.readAllLines(RELEASE.resolve("expected-deltas.jsonl"))) {
      ids.add(JSON.readTree(line).get("verdictId").asText());
    }
    return ids;
  }

  @Test
  public void readsEveryTableAsTheReleaseShowedIt() throws Exception {
    List<DeltaRecord> deltas = DeltaLakeTables.readDeltas(warehouse);
    assertEquals(
        expectedVerdictIds(),
        deltas.stream().map(DeltaRecord::verdictId).collect(Collectors.toCollection(TreeSet::new)));
    assertEquals(8, DeltaLakeTables.readDeadLetters(warehouse).size());
    assertEquals(187, DeltaLakeTables.readRows(warehouse, WarehouseTables.RAW_EVENTS).size());
    assertEquals(0, DeltaLakeTables.tableVersion(warehouse, WarehouseTables.DELTAS));
  }

  @Test
  public void explainsANaturalIdFromItsPointersAsTheReleaseDid() throws Exception {
    String expected =
        Files.readString(RELEASE.resolve("expected-explain-ord-00008.txt"), StandardCharsets.UTF_8);
    List<Map<String, Object>> raw = DeltaLakeLookup.findRawEvents(warehouse, "ord-00008");
    assertEquals(2, raw.size());
    List<DeltaRecord> deltas = DeltaLakeLookup.findDeltas(warehouse, "ord-00008");
    assertEquals(1, deltas.size());
    assertTrue(expected.contains(deltas.get(0).verdictId()));
    List<Pointer> pointers = new ArrayList<>();
    pointers.add(deltas.get(0).sourcePointer());
    pointers.add(deltas.get(0).targetPointer());
    Map<Pointer, byte[]> payloads =
        new PayloadReader(new Configuration(), warehouse)
            .read(pointers, new PayloadReaderTest.Counts());
    for (Pointer p : pointers) {
      byte[] payload = payloads.get(p);
      assertNotNull(p.toString(), payload);
      Object stored =
          raw.stream()
              .filter(r -> p.side().name().equals(r.get("side")))
              .findFirst()
              .orElseThrow()
              .get(PayloadReader.PAYLOAD);
      assertEquals(stored, new String(payload, StandardCharsets.UTF_8));
      assertTrue(expected.contains(p.dataFile()));
    }
  }

  /** The copy holds only what the release wrote: no checkpoint, no file of a later release. */
  @Test
  public void theCopyIsTheReleaseAsWritten() throws Exception {
    try (Stream<Path> files = Files.walk(Paths.get(warehouse))) {
      assertTrue(files.map(Path::toString).noneMatch(f -> f.endsWith(".checkpoint.parquet")));
    }
    assertTrue(new File(warehouse, "deltas/_delta_log/00000000000000000000.json").isFile());
  }
}
