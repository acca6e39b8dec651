package io.streamrecon.deltalake;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.lessThan;
import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.streamrecon.model.Event;
import io.streamrecon.model.EventRef;
import io.streamrecon.model.Pointer;
import io.streamrecon.model.Side;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class PayloadReaderTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  /** Counts what the reader did; the Beam IO's tests count with it too. */
  public static final class Counts implements PayloadReader.Listener {
    public int opens;
    public long rows;
    public int fallbacks;
    public int skipped;
    public long scanned;
    public List<Pointer> deleted = new ArrayList<>();

    @Override
    public void deleted(Pointer pointer) {
      deleted.add(pointer);
    }

    @Override
    public void rowsScanned(long n) {
      scanned += n;
    }

    @Override
    public void fileOpened() {
      opens++;
    }

    @Override
    public void rowsRead(long n) {
      rows += n;
    }

    @Override
    public void fallback(Pointer pointer) {
      fallbacks++;
    }

    @Override
    public void fileSkippedByStats() {
      skipped++;
    }
  }

  private static Event byId(List<Event> events, String id) {
    return events.stream().filter(e -> e.naturalId().equals(id)).findFirst().orElseThrow();
  }

  @Test
  public void opensEachFileOnceAndReadsOnlyTheWantedRows() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    List<Event> source = TestEvents.events(Side.SOURCE, "s", 50, TestEvents.T0);
    List<Event> target = TestEvents.events(Side.TARGET, "t", 50, TestEvents.T0);
    List<Event> all = new ArrayList<>(source);
    all.addAll(target);
    List<EventRef> refs = RawEventsFixture.commit(warehouse, "app", 0, all);

    List<Pointer> wanted = new ArrayList<>();
    for (EventRef r : refs) {
      if (r.pointer().rowIndex() % 7 == 3) {
        wanted.add(r.pointer());
      }
    }
    Counts counts = new Counts();
    Map<Pointer, byte[]> payloads =
        new PayloadReader(new Configuration(), warehouse).read(wanted, counts);

    assertEquals(2, counts.opens); // one SOURCE file, one TARGET file
    assertEquals(wanted.size(), counts.rows);
    assertEquals(0, counts.fallbacks);
    assertEquals(wanted.size(), payloads.size());
    for (Pointer p : wanted) {
      assertArrayEquals(byId(all, p.naturalId()).payload(), payloads.get(p));
    }
  }

  @Test
  public void manyPointersIntoOneFileOpenItOnce() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    List<Event> events = TestEvents.events(Side.SOURCE, "s", 40, TestEvents.T0);
    List<EventRef> refs = RawEventsFixture.commit(warehouse, "app", 0, events);
    List<Pointer> pointers = new ArrayList<>(refs.stream().map(EventRef::pointer).toList());
    Collections.shuffle(pointers, new java.util.Random(1));
    pointers.add(pointers.get(0)); // the same row twice

    Counts counts = new Counts();
    Map<Pointer, byte[]> payloads =
        new PayloadReader(new Configuration(), warehouse).read(pointers, counts);
    assertEquals(1, counts.opens);
    assertEquals(40, counts.rows);
    for (Pointer p : pointers) {
      assertArrayEquals(byId(events, p.naturalId()).payload(), payloads.get(p));
    }
  }

  @Test
  public void readsRowsSpreadOverManyPages() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    List<Event> events = new ArrayList<>();
    String filler = "x".repeat(2000);
    for (int i = 0; i < 2000; i++) {
      String id = String.format("big-%05d", i);
      events.add(
          TestEvents.event(
              Side.SOURCE,
              id,
              TestEvents.T0.plus(i),
              "{\"id\":\"" + id + "\",\"f\":\"" + filler + i + "\"}"));
    }
    List<EventRef> refs = RawEventsFixture.commit(warehouse, "app", 0, events);
    String file = refs.get(0).pointer().dataFile();
    long pageRows = 0;
    try (ParquetFileReader r =
        ParquetFileReader.open(
            HadoopInputFile.fromPath(
                new org.apache.hadoop.fs.Path(warehouse + "/raw_events/" + file),
                new Configuration()))) {
      var payloadChunk =
          r.getRowGroups().get(0).getColumns().stream()
              .filter(c -> c.getPath().toDotString().equals("payload"))
              .findFirst()
              .orElseThrow();
      var index = r.readOffsetIndex(payloadChunk);
      assertThat("test needs several pages", index.getPageCount(), greaterThan(2));
      for (int page = 0; page < index.getPageCount(); page++) {
        pageRows =
            Math.max(
                pageRows, index.getLastRowIndex(page, 2000) - index.getFirstRowIndex(page) + 1);
      }
      // About 2 KB rows: a page is cut at the first size check past DataFileFormat.PAGE_BYTES.
      assertThat(
          "payload pages are small, so a fetch decodes few rows it does not want",
          pageRows,
          lessThan(
              (long) DataFileFormat.PAGE_BYTES / 2000
                  + DataFileFormat.ROWS_PER_PAGE_SIZE_CHECK
                  + 1));
    }

    List<Pointer> wanted =
        List.of(refs.get(0).pointer(), refs.get(1001).pointer(), refs.get(1999).pointer());
    Counts counts = new Counts();
    Map<Pointer, byte[]> payloads =
        new PayloadReader(new Configuration(), warehouse).read(wanted, counts);
    assertEquals(1, counts.opens);
    assertEquals(3, counts.rows);
    for (Pointer p : wanted) {
      assertArrayEquals(p.naturalId(), byId(events, p.naturalId()).payload(), payloads.get(p));
    }

    Counts one = new Counts();
    Pointer middle = refs.get(1001).pointer();
    Map<Pointer, byte[]> single =
        new PayloadReader(new Configuration(), warehouse).read(List.of(middle), one);
    assertArrayEquals(byId(events, middle.naturalId()).payload(), single.get(middle));
    assertThat("only the page holding the row is decoded", one.scanned, lessThan(pageRows + 1));
  }

  @Test
  public void fallsBackToTheKeyWhenTheFileWasCompactedAway() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    List<Event> first = TestEvents.events(Side.SOURCE, "a", 10, TestEvents.T0);
    List<Event> second = TestEvents.events(Side.SOURCE, "m", 10, TestEvents.T0);
    List<Event> elsewhere = TestEvents.events(Side.SOURCE, "z", 10, TestEvents.T0);
    List<EventRef> firstRefs = RawEventsFixture.commit(warehouse, "app", 0, first);
    List<EventRef> secondRefs = RawEventsFixture.commit(warehouse, "app", 1, second);
    RawEventsFixture.commit(warehouse, "app", 2, elsewhere);

    // OPTIMIZE merges the first two files into one, in another row order; VACUUM deletes them.
    List<Event> merged = new ArrayList<>(second);
    merged.addAll(first);
    Collections.reverse(merged);
    RawEventsFixture.compact(
        warehouse,
        List.of(firstRefs.get(0).pointer().dataFile(), secondRefs.get(0).pointer().dataFile()),
        merged);

    Pointer stale = firstRefs.get(3).pointer();
    Counts counts = new Counts();
    Map<Pointer, byte[]> payloads =
        new PayloadReader(new Configuration(), warehouse).read(List.of(stale), counts);

    assertArrayEquals(first.get(3).payload(), payloads.get(stale));
    assertEquals(1, counts.fallbacks);
    assertEquals("only the merged file is opened", 1, counts.opens);
    assertEquals("the z file is excluded by its natural_id stats", 1, counts.skipped);
  }

  /** A pointer into a file the table never had, and no row with its key: deleted, no error. */
  @Test
  public void aRowThatExistsNowhereAnswersDeleted() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    List<EventRef> refs =
        RawEventsFixture.commit(
            warehouse, "app", 0, TestEvents.events(Side.SOURCE, "a", 3, TestEvents.T0));
    Pointer p = refs.get(0).pointer();
    Pointer gone =
        new Pointer(
            p.tableVersion(),
            p.dataFile()
                .replace(
                    p.dataFile().substring(p.dataFile().length() - 20), "0000000.snappy.parquet"),
            0,
            p.side(),
            p.naturalId(),
            "0".repeat(64));
    Counts counts = new Counts();
    Map<Pointer, byte[]> payloads =
        new PayloadReader(new Configuration(), warehouse).read(List.of(gone, p), counts);
    assertEquals(List.of(gone), counts.deleted);
    assertEquals(Set.of(p), payloads.keySet());
  }

  /**
   * A DELETE with deletion vectors off rewrites the file without the row and leaves the old file on
   * storage until a vacuum: the deleted row's pointer answers deleted, never the old file's
   * payload; the other rows of the old file are found in the new one by their key.
   */
  @Test
  public void aRowDeletedByARewriteAnswersDeletedWhileTheOldFileIsStillStored() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    List<Event> events = TestEvents.events(Side.SOURCE, "d", 5, TestEvents.T0);
    List<EventRef> refs = RawEventsFixture.commit(warehouse, "app", 0, events);
    Pointer deleted = refs.get(2).pointer();
    Pointer kept = refs.get(4).pointer();
    List<Event> rest = new ArrayList<>(events);
    rest.removeIf(e -> e.naturalId().equals(deleted.naturalId()));
    RawEventsFixture.rewriteWithout(warehouse, deleted.dataFile(), rest);
    assertTrue(
        "the old file is still stored",
        java.nio.file.Files.exists(
            tmp.getRoot().toPath().resolve("raw_events").resolve(deleted.dataFile())));

    Counts counts = new Counts();
    Map<Pointer, byte[]> payloads =
        new PayloadReader(new Configuration(), warehouse).read(List.of(deleted, kept), counts);

    assertEquals(List.of(deleted), counts.deleted);
    assertEquals(Set.of(kept), payloads.keySet());
    assertArrayEquals(byId(events, kept.naturalId()).payload(), payloads.get(kept));
    assertEquals(2, counts.fallbacks);
  }

  /** A data file cut short (a partial copy, a disk error): the read fails naming the pointer. */
  @Test
  public void aTruncatedDataFileFailsNamingThePointer() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    List<EventRef> refs =
        RawEventsFixture.commit(
            warehouse, "app", 0, TestEvents.events(Side.SOURCE, "s", 30, TestEvents.T0));
    Pointer p = refs.get(7).pointer();
    java.nio.file.Path file = tmp.getRoot().toPath().resolve("raw_events").resolve(p.dataFile());
    byte[] bytes = java.nio.file.Files.readAllBytes(file);
    java.nio.file.Files.write(file, java.util.Arrays.copyOf(bytes, bytes.length / 2));
    // Hadoop's local file system would otherwise report the checksum, not the file.
    java.nio.file.Files.deleteIfExists(file.resolveSibling("." + file.getFileName() + ".crc"));

    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () -> new PayloadReader(new Configuration(), warehouse).read(List.of(p), new Counts()));
    assertThat(e.getMessage(), containsString(p.describe()));
    assertThat(e.getMessage(), containsString("damaged"));
  }

  /** The file is deleted and no other row has the key: the read fails naming the pointer. */
  @Test
  public void aDeletedDataFileWithoutAFallbackRowFailsNamingThePointer() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    List<EventRef> refs =
        RawEventsFixture.commit(
            warehouse, "app", 0, TestEvents.events(Side.SOURCE, "s", 10, TestEvents.T0));
    // Another file of the same partition, whose stats admit the key but which lacks the row.
    List<Event> others =
        new ArrayList<>(TestEvents.events(Side.SOURCE, "s", 10, TestEvents.T0.plus(1)));
    others.remove(2);
    RawEventsFixture.commit(warehouse, "app", 1, others);
    Pointer p = refs.get(2).pointer();
    java.nio.file.Path file = tmp.getRoot().toPath().resolve("raw_events").resolve(p.dataFile());
    java.nio.file.Files.delete(file);
    java.nio.file.Files.deleteIfExists(file.resolveSibling("." + file.getFileName() + ".crc"));

    Counts counts = new Counts();
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () -> new PayloadReader(new Configuration(), warehouse).read(List.of(p), counts));
    assertThat(e.getMessage(), containsString(p.describe()));
    assertThat(e.getMessage(), containsString("not found"));
    assertEquals(1, counts.fallbacks);
    assertEquals("the other file was searched", 1, counts.opens);
  }
}
