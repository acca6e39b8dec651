package io.streamrecon.deltalake;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;

import io.streamrecon.json.EventParser;
import io.streamrecon.json.ParseConfig;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.Test;

/** What erasure does to single rows, table by table. */
public class ErasedRowsTest {
  private final ErasedRows erase =
      new ErasedRows(Set.of("a-1", "[\"x\",\"7\"]"), new EventParser(ParseConfig.defaults()));

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static Map<String, Object> row(Object... keyValues) {
    Map<String, Object> row = new LinkedHashMap<>();
    for (int i = 0; i < keyValues.length; i += 2) {
      row.put((String) keyValues[i], keyValues[i + 1]);
    }
    return row;
  }

  @Test
  public void rawAndLateEventsOfTheIdsGoAndOthersStay() {
    for (String table : List.of(WarehouseTables.RAW_EVENTS, WarehouseTables.LATE_EVENTS)) {
      ErasedRows.RowAfterErasure gone =
          erase.apply(table, row("natural_id", utf8("a-1"), "payload", utf8("{}")));
      assertNull(gone.row());
      assertTrue(gone.changed());
      Map<String, Object> other = row("natural_id", utf8("a-10"), "payload", utf8("{}"));
      ErasedRows.RowAfterErasure kept = erase.apply(table, other);
      assertSame(other, kept.row());
      assertFalse(kept.changed());
    }
  }

  @Test
  public void deltasKeepTheRowAndLoseOnlyTheDifferenceValues() {
    List<Map<String, Object>> diffs = new ArrayList<>();
    diffs.add(row("path", "/n", "kind", "CHANGED", "source", "1", "target", "2"));
    diffs.add(row("path", "/m", "kind", "ONLY_IN_SOURCE", "source", "\"s\"", "target", null));
    Map<String, Object> stored =
        row(
            "verdict_id",
            utf8("v1"),
            "natural_id",
            utf8("a-1"),
            "status",
            utf8("MISMATCH"),
            "differences",
            diffs,
            "source_hash",
            utf8("h1"),
            "target_hash",
            utf8("h2"));
    ErasedRows.RowAfterErasure o = erase.apply(WarehouseTables.DELTAS, stored);
    assertTrue(o.changed());
    assertEquals(3, o.valuesCleared());
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> after = (List<Map<String, Object>>) o.row().get("differences");
    assertEquals(
        List.of(
            row("path", "/n", "kind", "CHANGED", "source", null, "target", null),
            row("path", "/m", "kind", "ONLY_IN_SOURCE", "source", null, "target", null)),
        after);
    assertArrayEquals(utf8("h1"), (byte[]) o.row().get("source_hash"));
    assertArrayEquals(utf8("MISMATCH"), (byte[]) o.row().get("status"));
    // The stored row is not changed in place: a failed rewrite must not leave it altered.
    assertEquals("1", diffs.get(0).get("source"));
    // Again on its result: nothing left to clear.
    ErasedRows.RowAfterErasure again = erase.apply(WarehouseTables.DELTAS, o.row());
    assertFalse(again.changed());
    assertEquals(0, again.valuesCleared());
    // Another id's values stay.
    Map<String, Object> other = new LinkedHashMap<>(stored);
    other.put("natural_id", utf8("b-1"));
    assertFalse(erase.apply(WarehouseTables.DELTAS, other).changed());
  }

  @Test
  public void deadLettersThatShowTheIdLoseTheirRawInput() {
    Map<String, Object> late =
        row(
            "side",
            utf8("SOURCE"),
            "raw",
            utf8("{\"id\":\"a-1\",\"eventTime\":\"not a time\",\"card\":\"4111\"}"),
            "raw_encoding",
            utf8(TableLayouts.RAW_UTF8),
            "error",
            utf8("bad time"));
    ErasedRows.RowAfterErasure o = erase.apply(WarehouseTables.DEAD_LETTERS, late);
    assertTrue(o.changed());
    assertArrayEquals(new byte[0], (byte[]) o.row().get("raw"));
    assertArrayEquals(utf8(ErasedRows.ERASED_ENCODING), (byte[]) o.row().get("raw_encoding"));
    assertArrayEquals(utf8("bad time"), (byte[]) o.row().get("error"));
    assertFalse(erase.apply(WarehouseTables.DEAD_LETTERS, o.row()).changed());

    // A number id, and raw input stored as base64, are read too.
    ErasedRows numeric = new ErasedRows(Set.of("42"), new EventParser(ParseConfig.defaults()));
    Map<String, Object> base64 =
        row(
            "raw", utf8(Base64.getEncoder().encodeToString(utf8("{\"id\":42}"))),
            "raw_encoding", utf8(TableLayouts.RAW_BASE64));
    assertTrue(numeric.apply(WarehouseTables.DEAD_LETTERS, base64).changed());

    // What cannot be told stays: broken JSON, another id, no id field.
    for (String raw :
        List.of("{\"id\":\"a-1\",", "{\"id\":\"a-2\"}", "{\"other\":\"a-1\"}", "a-1")) {
      Map<String, Object> kept = row("raw", utf8(raw), "raw_encoding", utf8(TableLayouts.RAW_UTF8));
      assertFalse(raw, erase.apply(WarehouseTables.DEAD_LETTERS, kept).changed());
    }
  }

  @Test
  public void deadLettersOfCompositeKeysAreToldByTheRunsKeyFields() {
    ErasedRows composite =
        new ErasedRows(
            Set.of("[\"x\",\"7\"]"),
            new EventParser(ParseConfig.defaults().withKeyFields(List.of("/a", "/b"))));
    Map<String, Object> dl =
        row("raw", utf8("{\"a\":\"x\",\"b\":7}"), "raw_encoding", utf8(TableLayouts.RAW_UTF8));
    assertTrue(composite.apply(WarehouseTables.DEAD_LETTERS, dl).changed());
  }

  @Test
  public void filesAreSkippedByNaturalIdStatisticsExceptDeadLetters() {
    String stats =
        "{\"numRecords\":3,\"minValues\":{\"natural_id\":\"b\"},"
            + "\"maxValues\":{\"natural_id\":\"c\"}}";
    assertFalse(erase.mayHold(WarehouseTables.RAW_EVENTS, stats));
    assertTrue(erase.mayHold(WarehouseTables.DEAD_LETTERS, stats));
    String admits =
        "{\"numRecords\":3,\"minValues\":{\"natural_id\":\"a\"},"
            + "\"maxValues\":{\"natural_id\":\"b\"}}";
    assertTrue(erase.mayHold(WarehouseTables.DELTAS, admits));
    // Ids on both sides of a file's range, none inside it.
    ErasedRows around =
        new ErasedRows(Set.of("a-1", "a-9", "zz"), new EventParser(ParseConfig.defaults()));
    String between =
        "{\"numRecords\":3,\"minValues\":{\"natural_id\":\"a-2\"},"
            + "\"maxValues\":{\"natural_id\":\"a-8\"}}";
    assertFalse(around.mayHold(WarehouseTables.LATE_EVENTS, between));
    ErasedRows inside =
        new ErasedRows(Set.of("a-1", "a-5", "zz"), new EventParser(ParseConfig.defaults()));
    assertTrue(inside.mayHold(WarehouseTables.LATE_EVENTS, between));
    assertTrue(inside.mayHold(WarehouseTables.RAW_EVENTS, null));
    // A maximum cut at 32 code points ends in the highest code point: an id it prefixes is in.
    String cut =
        "{\"numRecords\":3,\"minValues\":{\"natural_id\":\"a\"},"
            + "\"maxValues\":{\"natural_id\":\"a-5\uDBFF\uDFFF\"}}";
    ErasedRows longId =
        new ErasedRows(Set.of("a-5" + "x".repeat(40)), new EventParser(ParseConfig.defaults()));
    assertTrue(longId.mayHold(WarehouseTables.RAW_EVENTS, cut));
  }
}
