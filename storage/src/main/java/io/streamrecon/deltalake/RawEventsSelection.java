package io.streamrecon.deltalake;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.Serializable;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.Collection;
import java.util.List;
import java.util.NavigableSet;
import java.util.TreeSet;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.filter2.predicate.FilterApi;
import org.apache.parquet.filter2.predicate.FilterPredicate;
import org.apache.parquet.io.api.Binary;
import org.joda.time.Instant;

/**
 * Which stored events a {@code ReadRawEvents} selects: runs, a half-open event-time window and
 * natural ids, each optional, all of them together. Decides which data files can hold a selected
 * row (by the {@code event_date} partition and the files' min/max statistics, which never exclude a
 * file they cannot vouch for) and which rows are selected.
 */
public final class RawEventsSelection implements Serializable {
  private static final long serialVersionUID = 1L;

  public static final String RUN_ID = "run_id";
  public static final String EVENT_TIME = "event_time";
  static final String EVENT_DATE = "event_date";

  public static final RawEventsSelection ALL =
      new RawEventsSelection(List.of(), List.of(), null, null);

  private final List<String> runIds;
  private final List<String> naturalIds;
  private final Long sinceMillis;
  private final Long untilMillis;
  // Sorted by code point, the order of Delta's string statistics.
  private transient NavigableSet<String> runIdSet;
  private transient NavigableSet<String> naturalIdSet;

  private RawEventsSelection(
      List<String> runIds, List<String> naturalIds, Long sinceMillis, Long untilMillis) {
    this.runIds = List.copyOf(runIds);
    this.naturalIds = List.copyOf(naturalIds);
    this.sinceMillis = sinceMillis;
    this.untilMillis = untilMillis;
  }

  public RawEventsSelection withRunIds(Collection<String> ids) {
    return new RawEventsSelection(distinct("runIds", ids), naturalIds, sinceMillis, untilMillis);
  }

  public RawEventsSelection withNaturalIds(Collection<String> ids) {
    return new RawEventsSelection(runIds, distinct("naturalIds", ids), sinceMillis, untilMillis);
  }

  public RawEventsSelection withEventTimeRange(Instant since, Instant until) {
    if (since != null && until != null && !since.isBefore(until)) {
      throw new IllegalArgumentException(
          "eventTimeRange: since (" + since + ") must be before until (" + until + ")");
    }
    return new RawEventsSelection(
        runIds,
        naturalIds,
        since == null ? null : since.getMillis(),
        until == null ? null : until.getMillis());
  }

  private static List<String> distinct(String setting, Collection<String> ids) {
    if (ids == null) {
      throw new IllegalArgumentException(setting + " must not be null; pass an empty list for all");
    }
    TreeSet<String> set = new TreeSet<>(FileStats::compareCodePoints);
    for (String id : ids) {
      if (id == null || id.isEmpty()) {
        throw new IllegalArgumentException(setting + " must not hold a null or empty id");
      }
      set.add(id);
    }
    return List.copyOf(set);
  }

  List<String> runIds() {
    return runIds;
  }

  List<String> naturalIds() {
    return naturalIds;
  }

  Long sinceMillis() {
    return sinceMillis;
  }

  Long untilMillis() {
    return untilMillis;
  }

  private NavigableSet<String> runIdSet() {
    if (runIdSet == null) {
      runIdSet = sorted(runIds);
    }
    return runIdSet;
  }

  private NavigableSet<String> naturalIdSet() {
    if (naturalIdSet == null) {
      naturalIdSet = sorted(naturalIds);
    }
    return naturalIdSet;
  }

  private static NavigableSet<String> sorted(List<String> ids) {
    TreeSet<String> set = new TreeSet<>(FileStats::compareCodePoints);
    set.addAll(ids);
    return set;
  }

  // ------------------------------------------------------------------ files

  /** Whether a data file with these partition values and stats may hold a selected row. */
  public boolean admitsFile(DeltaLakeSnapshot.TableFile file) {
    if (!admitsEventDate(file.partitionValues().get(EVENT_DATE))) {
      return false;
    }
    if (runIds.isEmpty() && naturalIds.isEmpty() && sinceMillis == null && untilMillis == null) {
      return true;
    }
    JsonNode stats = parseStats(file.stats());
    if (stats == null) {
      return true;
    }
    return admitsRange(stats, RUN_ID, runIdSet())
        && admitsRange(stats, PayloadReader.NATURAL_ID, naturalIdSet())
        && admitsEventTimes(stats);
  }

  private boolean admitsEventDate(String date) {
    if (date == null || (sinceMillis == null && untilMillis == null)) {
      return true;
    }
    LocalDate day;
    try {
      day = LocalDate.parse(date);
    } catch (DateTimeParseException e) {
      return true;
    }
    if (sinceMillis != null && day.isBefore(utcDate(sinceMillis))) {
      return false;
    }
    return untilMillis == null || !day.isAfter(utcDate(untilMillis - 1));
  }

  private static LocalDate utcDate(long millis) {
    return java.time.Instant.ofEpochMilli(millis).atZone(ZoneOffset.UTC).toLocalDate();
  }

  /** False only when no id of the set lies within the column's min/max. */
  private static boolean admitsRange(JsonNode stats, String column, NavigableSet<String> ids) {
    if (ids.isEmpty()) {
      return true;
    }
    JsonNode lo = stats.path("minValues").path(column);
    JsonNode hi = stats.path("maxValues").path(column);
    String first = lo.isTextual() ? ids.ceiling(lo.asText()) : ids.first();
    if (first == null) {
      return false;
    }
    return !hi.isTextual() || FileStats.compareCodePoints(first, hi.asText()) <= 0;
  }

  private boolean admitsEventTimes(JsonNode stats) {
    Long min = timestampMillis(stats.path("minValues").path(EVENT_TIME));
    Long max = timestampMillis(stats.path("maxValues").path(EVENT_TIME));
    // Statistics are cut to milliseconds: a max may lie up to 1 ms below the true value.
    if (sinceMillis != null && max != null && max + 1 <= sinceMillis) {
      return false;
    }
    return untilMillis == null || min == null || min < untilMillis;
  }

  private static Long timestampMillis(JsonNode value) {
    if (!value.isTextual()) {
      return null;
    }
    try {
      return OffsetDateTime.parse(value.asText()).toInstant().toEpochMilli();
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  private static JsonNode parseStats(String json) {
    if (json == null || json.isEmpty()) {
      return null;
    }
    try {
      return FileStats.JSON.readTree(json);
    } catch (IOException e) {
      return null;
    }
  }

  // ------------------------------------------------------------------ rows

  /** Whether a row with these values is selected. */
  public boolean admitsRow(String runId, String naturalId, long eventTimeMillis) {
    return (runIds.isEmpty() || runIdSet().contains(runId))
        && (naturalIds.isEmpty() || naturalIdSet().contains(naturalId))
        && (sinceMillis == null || eventTimeMillis >= sinceMillis)
        && (untilMillis == null || eventTimeMillis < untilMillis);
  }

  /**
   * The Parquet filter on the string columns, which skips row groups by their statistics,
   * dictionaries and natural_id bloom filters; {@link #admitsRow} stays the judge of every row.
   */
  public FilterCompat.Filter parquetFilter() {
    FilterPredicate p = null;
    if (!runIds.isEmpty()) {
      p = FilterApi.in(FilterApi.binaryColumn(RUN_ID), binaries(runIds));
    }
    if (!naturalIds.isEmpty()) {
      FilterPredicate ids =
          FilterApi.in(FilterApi.binaryColumn(PayloadReader.NATURAL_ID), binaries(naturalIds));
      p = p == null ? ids : FilterApi.and(p, ids);
    }
    return p == null ? FilterCompat.NOOP : FilterCompat.get(p);
  }

  private static java.util.Set<Binary> binaries(List<String> values) {
    java.util.Set<Binary> set = new java.util.HashSet<>();
    for (String v : values) {
      set.add(Binary.fromString(v));
    }
    return set;
  }

  /** For logs and the replay's record. */
  @Override
  public String toString() {
    return "runs "
        + (runIds.isEmpty() ? "all" : runIds)
        + ", event time "
        + (sinceMillis == null ? "-" : new Instant(sinceMillis))
        + " .. "
        + (untilMillis == null ? "-" : new Instant(untilMillis))
        + ", natural ids "
        + (naturalIds.isEmpty() ? "all" : naturalIds.size());
  }
}
