package io.streamrecon.deltalake;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.List;
import java.util.Map;
import org.joda.time.Instant;
import org.junit.Test;

/** Which data files and rows a replay's selection reads. */
public class RawEventsSelectionTest {
  private static DeltaLakeSnapshot.TableFile file(String date, String stats) {
    return new DeltaLakeSnapshot.TableFile(
        "side=SOURCE/event_date=" + date + "/f.parquet",
        Map.of("side", "SOURCE", "event_date", date),
        100,
        stats);
  }

  private static String stats(
      String minRun, String maxRun, String minId, String maxId, String minTime, String maxTime) {
    return "{\"numRecords\":10,\"minValues\":{\"run_id\":\""
        + minRun
        + "\",\"natural_id\":\""
        + minId
        + "\",\"event_time\":\""
        + minTime
        + "\"},\"maxValues\":{\"run_id\":\""
        + maxRun
        + "\",\"natural_id\":\""
        + maxId
        + "\",\"event_time\":\""
        + maxTime
        + "\"},\"nullCount\":{\"run_id\":0}}";
  }

  private static final String DAY = "2026-03-01";
  private static final String STATS =
      stats("run-b", "run-d", "k10", "k20", "2026-03-01T08:00:00.000Z", "2026-03-01T09:00:00.000Z");

  @Test
  public void filesArePrunedByRunAndNaturalIdStatistics() {
    RawEventsSelection all = RawEventsSelection.ALL;
    assertTrue(all.admitsFile(file(DAY, STATS)));
    assertTrue(all.withRunIds(List.of("run-c")).admitsFile(file(DAY, STATS)));
    assertTrue(all.withRunIds(List.of("run-a", "run-d")).admitsFile(file(DAY, STATS)));
    assertFalse(all.withRunIds(List.of("run-a", "run-e")).admitsFile(file(DAY, STATS)));
    assertTrue(all.withNaturalIds(List.of("k15")).admitsFile(file(DAY, STATS)));
    assertFalse(all.withNaturalIds(List.of("k09", "k3")).admitsFile(file(DAY, STATS)));
    // Without statistics a file is never skipped.
    assertTrue(all.withRunIds(List.of("run-z")).admitsFile(file(DAY, null)));
  }

  @Test
  public void filesArePrunedByEventDateAndEventTime() {
    RawEventsSelection day =
        RawEventsSelection.ALL.withEventTimeRange(
            Instant.parse("2026-03-01T00:00:00Z"), Instant.parse("2026-03-02T00:00:00Z"));
    assertTrue(day.admitsFile(file(DAY, STATS)));
    assertFalse(day.admitsFile(file("2026-02-28", STATS)));
    // until is exclusive: the next day's partition cannot hold a selected row.
    assertFalse(day.admitsFile(file("2026-03-02", STATS)));
    RawEventsSelection later =
        RawEventsSelection.ALL.withEventTimeRange(Instant.parse("2026-03-01T09:00:01Z"), null);
    assertFalse(later.admitsFile(file(DAY, STATS)));
    RawEventsSelection edge =
        RawEventsSelection.ALL.withEventTimeRange(null, Instant.parse("2026-03-01T08:00:00Z"));
    assertFalse(edge.admitsFile(file(DAY, STATS)));
    RawEventsSelection within =
        RawEventsSelection.ALL.withEventTimeRange(
            Instant.parse("2026-03-01T09:00:00Z"), Instant.parse("2026-03-01T09:00:01Z"));
    assertTrue(within.admitsFile(file(DAY, STATS)));
  }

  @Test
  public void rowsAreSelectedByEverySetting() {
    RawEventsSelection s =
        RawEventsSelection.ALL
            .withRunIds(List.of("r1"))
            .withNaturalIds(List.of("a", "b"))
            .withEventTimeRange(new Instant(100), new Instant(200));
    assertTrue(s.admitsRow("r1", "a", 100));
    assertFalse(s.admitsRow("r1", "a", 200));
    assertFalse(s.admitsRow("r2", "a", 150));
    assertFalse(s.admitsRow("r1", "c", 150));
  }

  @Test
  public void settingsAreValidated() {
    try {
      RawEventsSelection.ALL.withEventTimeRange(new Instant(5), new Instant(5));
      throw new AssertionError("empty range accepted");
    } catch (IllegalArgumentException e) {
      assertTrue(e.getMessage(), e.getMessage().startsWith("eventTimeRange"));
    }
    try {
      RawEventsSelection.ALL.withNaturalIds(List.of(""));
      throw new AssertionError("empty id accepted");
    } catch (IllegalArgumentException e) {
      assertTrue(e.getMessage(), e.getMessage().startsWith("naturalIds"));
    }
    assertEquals(
        List.of("a", "b"), RawEventsSelection.ALL.withRunIds(List.of("b", "a", "b")).runIds());
  }
}
