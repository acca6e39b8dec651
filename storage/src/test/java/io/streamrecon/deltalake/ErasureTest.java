package io.streamrecon.deltalake;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import io.delta.standalone.DeltaLog;
import io.delta.standalone.VersionLog;
import io.delta.standalone.actions.Action;
import io.delta.standalone.actions.AddFile;
import io.delta.standalone.actions.RemoveFile;
import io.streamrecon.deltalake.DeltaLakeMaintenance.ForgetResult;
import io.streamrecon.json.ParseConfig;
import io.streamrecon.model.DeadLetter;
import io.streamrecon.model.DeltaRecord;
import io.streamrecon.model.Difference;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** Erasure of natural ids from the four tables, through Kernel, as {@code forget} runs it. */
public class ErasureTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  private static final List<String> KEYS = ParseConfig.DEFAULT_KEY_FIELDS;

  private static Map<String, Map<String, Object>> rowsByKey(String warehouse, String table) {
    Map<String, Map<String, Object>> rows = new HashMap<>();
    for (Map<String, Object> r : DeltaLakeTables.readRows(warehouse, table)) {
      String key =
          switch (table) {
            case WarehouseTables.DELTAS -> (String) r.get("verdict_id");
            case WarehouseTables.DEAD_LETTERS -> r.get("side") + "/" + r.get("origin_offset");
            default -> r.get("side") + "/" + r.get("natural_id") + "/" + r.get("sha256");
          };
      assertNull("row stored twice: " + key, rows.put(key, r));
    }
    return rows;
  }

  private static Map<String, ForgetResult> byTable(List<ForgetResult> results) {
    Map<String, ForgetResult> map = new HashMap<>();
    results.forEach(r -> map.put(r.table(), r));
    return map;
  }

  @Test
  public void forgetRemovesPayloadsAndValuesOfTheIdsAndNothingElse() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    ErasureFixture.write(warehouse, 100, 5);
    Map<String, Map<String, Map<String, Object>>> before = new HashMap<>();
    for (String t : WarehouseTables.TABLES) {
      before.put(t, rowsByKey(warehouse, t));
    }
    long rawVersion = DeltaLakeTables.tableVersion(warehouse, WarehouseTables.RAW_EVENTS);
    Set<String> ids = Set.of(ErasureFixture.id(10), ErasureFixture.id(47));

    Map<String, ForgetResult> r =
        byTable(DeltaLakeMaintenance.forget(ErasureFixture.CONF, warehouse, ids, KEYS));

    // raw_events: both sides of both ids; only the files holding them are rewritten (one per
    // partition of the commit that wrote each id: 2 ids x 2 sides).
    assertEquals(4, r.get(WarehouseTables.RAW_EVENTS).rowsRemoved());
    assertEquals(4, r.get(WarehouseTables.RAW_EVENTS).filesRewritten());
    assertEquals(rawVersion + 1, r.get(WarehouseTables.RAW_EVENTS).version());
    assertEquals(4, r.get(WarehouseTables.DELTAS).valuesCleared());
    assertEquals(0, r.get(WarehouseTables.DELTAS).rowsRemoved());
    assertEquals(1, r.get(WarehouseTables.LATE_EVENTS).rowsRemoved());
    assertEquals(1, r.get(WarehouseTables.DEAD_LETTERS).valuesCleared());
    // Which ids each table held, so that the command can name the ids no table held.
    assertEquals(ids, r.get(WarehouseTables.RAW_EVENTS).naturalIdsErased());
    assertEquals(ids, r.get(WarehouseTables.DELTAS).naturalIdsErased());
    assertEquals(1, r.get(WarehouseTables.LATE_EVENTS).naturalIdsErased().size());
    assertEquals(1, r.get(WarehouseTables.DEAD_LETTERS).naturalIdsErased().size());
    assertTrue(ids.containsAll(r.get(WarehouseTables.DEAD_LETTERS).naturalIdsErased()));

    Map<String, Map<String, Object>> raw = rowsByKey(warehouse, WarehouseTables.RAW_EVENTS);
    Map<String, Map<String, Object>> rawBefore = before.get(WarehouseTables.RAW_EVENTS);
    assertEquals(rawBefore.size() - 4, raw.size());
    for (Map.Entry<String, Map<String, Object>> e : rawBefore.entrySet()) {
      if (ids.contains(e.getValue().get("natural_id"))) {
        assertFalse(raw.containsKey(e.getKey()));
      } else {
        // Every other row as it was, ingest time and run id included.
        assertEquals(e.getValue(), raw.get(e.getKey()));
      }
    }

    List<DeltaRecord> deltas = DeltaLakeTables.readDeltas(warehouse);
    assertEquals(100, deltas.size());
    Map<String, Map<String, Object>> deltasBefore = before.get(WarehouseTables.DELTAS);
    for (DeltaRecord d : deltas) {
      DeltaRecord was = DeltaLakeTables.toDeltaRecord(deltasBefore.get(d.verdictId()));
      if (ids.contains(d.naturalId())) {
        // The verdict stays as a fact: status, hashes, times, pointers, paths and kinds.
        assertEquals(was.status(), d.status());
        assertEquals(was.sourceHash(), d.sourceHash());
        assertEquals(was.targetPointer(), d.targetPointer());
        assertEquals(was.detectedAt(), d.detectedAt());
        assertEquals(1, d.differences().size());
        Difference diff = d.differences().get(0);
        assertEquals("/secret", diff.path());
        assertEquals(was.differences().get(0).kind(), diff.kind());
        assertNull(diff.source());
        assertNull(diff.target());
      } else {
        assertEquals(was, d);
      }
    }

    assertEquals(9, DeltaLakeTables.readLateEvents(warehouse).size());
    assertTrue(
        DeltaLakeTables.readLateEvents(warehouse).stream()
            .noneMatch(l -> ids.contains(l.event().naturalId())));

    List<DeadLetter> dead = DeltaLakeTables.readDeadLetters(warehouse);
    assertEquals(11, dead.size());
    for (DeadLetter d : dead) {
      String raw1 = new String(d.raw(), StandardCharsets.UTF_8);
      assertFalse(raw1, raw1.contains("dl-10\""));
      if (d.origin().offset() == 1010) {
        assertEquals("", raw1);
        assertEquals("eventTime is not a time", d.error());
      }
    }
    Set<String> encodings = new HashSet<>();
    for (Map<String, Object> row :
        DeltaLakeTables.readRows(warehouse, WarehouseTables.DEAD_LETTERS)) {
      encodings.add((String) row.get("raw_encoding"));
    }
    assertEquals(Set.of("utf-8", ErasedRows.ERASED_ENCODING), encodings);

    // The commit is an ordinary data change: remove + add, dataChange=true.
    DeltaLog log =
        DeltaLog.forTable(
            ErasureFixture.CONF,
            DeltaLakeCommitter.tablePath(warehouse, WarehouseTables.RAW_EVENTS));
    VersionLog last = null;
    for (java.util.Iterator<VersionLog> it = log.getChanges(rawVersion + 1, true); it.hasNext(); ) {
      last = it.next();
    }
    int removes = 0;
    int adds = 0;
    for (Action a : last.getActions()) {
      if (a instanceof RemoveFile rf) {
        assertTrue(rf.isDataChange());
        removes++;
      } else if (a instanceof AddFile af) {
        assertTrue(af.isDataChange());
        adds++;
      }
    }
    assertEquals(4, removes);
    assertEquals(4, adds);

    // A second run finds nothing and commits nothing.
    List<ForgetResult> again =
        DeltaLakeMaintenance.forget(ErasureFixture.CONF, warehouse, ids, KEYS);
    for (ForgetResult a : again) {
      assertTrue(a.describe(), a.nothingErased());
      assertEquals(a.table() + ": nothing to erase", a.describe());
    }
    assertEquals(
        rawVersion + 1, DeltaLakeTables.tableVersion(warehouse, WarehouseTables.RAW_EVENTS));
  }

  @Test
  public void anIdStoredNowhereChangesNoTable() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    ErasureFixture.write(warehouse, 20, 2);
    Map<String, Long> versions = new HashMap<>();
    for (String t : WarehouseTables.TABLES) {
      versions.put(t, DeltaLakeTables.tableVersion(warehouse, t));
    }
    for (ForgetResult r :
        DeltaLakeMaintenance.forget(ErasureFixture.CONF, warehouse, Set.of("nobody"), KEYS)) {
      assertTrue(r.nothingErased());
      assertEquals(Set.of(), r.naturalIdsErased());
      assertEquals(
          (long) versions.get(r.table()), DeltaLakeTables.tableVersion(warehouse, r.table()));
    }
  }

  /**
   * Compactions run over and over while ids are erased one by one: the compactions remove the files
   * an erasure is rewriting, Kernel refuses that erasure's commit, and it plans again. At the end
   * no row of an erased id is left and every other row is there exactly once.
   */
  @Test(timeout = 180_000)
  public void erasureIsSafeWhileCompactionsRemoveTheSameFiles() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    ErasureFixture.write(warehouse, 200, 20);
    Map<String, Map<String, Object>> before = rowsByKey(warehouse, WarehouseTables.RAW_EVENTS);
    AtomicBoolean done = new AtomicBoolean();
    List<io.streamrecon.model.Event> appended = Collections.synchronizedList(new ArrayList<>());
    ExecutorService pool = Executors.newFixedThreadPool(1);
    Future<Integer> others =
        pool.submit(
            () -> {
              // A writer appends small files and a compaction merges them with the file the
              // erasure is rewriting, removing it first.
              int n = 0;
              while (!done.get()) {
                List<io.streamrecon.model.Event> batch =
                    TestEvents.events(
                        io.streamrecon.model.Side.SOURCE, "new" + n, 3, TestEvents.T0);
                RawEventsFixture.commit(warehouse, "writer", n, batch);
                appended.addAll(batch);
                DeltaLakeMaintenance.compact(
                    ErasureFixture.CONF, warehouse, WarehouseTables.RAW_EVENTS, 1L << 30);
                n++;
              }
              return n;
            });
    Set<String> erased = new HashSet<>();
    List<ForgetResult> results = new ArrayList<>();
    try {
      for (int i = 5; i < 200; i += 13) {
        String id = ErasureFixture.id(i);
        results.addAll(
            DeltaLakeMaintenance.forget(ErasureFixture.CONF, warehouse, Set.of(id), KEYS));
        erased.add(id);
      }
    } finally {
      done.set(true);
      others.get();
      pool.shutdown();
    }
    Map<String, Map<String, Object>> after = rowsByKey(warehouse, WarehouseTables.RAW_EVENTS);
    for (Map.Entry<String, Map<String, Object>> e : before.entrySet()) {
      boolean gone = erased.contains(e.getValue().get("natural_id"));
      assertEquals(e.getKey(), !gone, after.containsKey(e.getKey()));
    }
    for (io.streamrecon.model.Event e : appended) {
      assertTrue(
          e.naturalId(), after.containsKey(e.side() + "/" + e.naturalId() + "/" + e.sha256()));
    }
    assertEquals(before.size() + appended.size() - 2 * erased.size(), after.size());
    long removed =
        results.stream()
            .filter(r -> r.table().equals(WarehouseTables.RAW_EVENTS))
            .mapToLong(ForgetResult::rowsRemoved)
            .sum();
    assertEquals(2L * erased.size(), removed);
    System.out.println(
        "erasures: "
            + erased.size()
            + ", conflicts retried: "
            + results.stream().mapToInt(ForgetResult::conflictsRetried).sum());
  }

  @Test
  public void describeSaysWhatWasErasedPerTable() {
    assertThat(
        new ForgetResult(WarehouseTables.DELTAS, 0, 6, 2, 2, 9, 1, Set.of("a")).describe(),
        containsString(
            "deltas: 6 difference value(s) cleared, rows kept; 2 file(s) rewritten"
                + " into 2 in version 9; 1 conflict(s) retried"));
    assertThat(
        new ForgetResult(WarehouseTables.RAW_EVENTS, 4, 0, 3, 2, 7, 0, Set.of("a")).describe(),
        containsString("raw_events: 4 row(s) removed; 3 file(s) rewritten into 2 in version 7"));
  }
}
