package io.streamrecon.pipeline.output;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamrecon.model.DeltaRecord;
import io.streamrecon.model.Pointer;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** One raw_events row as {@code explain} prints it: its metadata line and its payload. */
public record Explained(
    String side, Map<String, Object> metadata, JsonNode payload, String rawPayload) {
  static final String PAYLOAD = "payload";

  public static Explained of(Map<String, Object> row) {
    Map<String, Object> meta = new TreeMap<>();
    Object payload = null;
    for (Map.Entry<String, Object> e : row.entrySet()) {
      if (PAYLOAD.equals(e.getKey())) {
        payload = e.getValue();
      } else {
        meta.put(e.getKey(), e.getValue());
      }
    }
    String text =
        payload instanceof byte[] b
            ? new String(b, StandardCharsets.UTF_8)
            : payload == null ? "" : payload.toString();
    return new Explained(String.valueOf(row.get("side")), meta, RowJson.json(text), text);
  }

  /** Rows by side, then event time, so the last of each side is the latest version. */
  public static List<Map<String, Object>> sorted(List<Map<String, Object>> rows) {
    List<Map<String, Object>> copy = new ArrayList<>(rows);
    copy.sort(
        Comparator.comparing((Map<String, Object> r) -> String.valueOf(r.get("side")))
            .thenComparing(r -> String.valueOf(r.get("event_time"))));
    return copy;
  }

  /** Why a pointer's raw event is no longer stored. */
  public enum Gone {
    /** Raw event retention removed its whole event date. */
    EXPIRED,
    /** Deleted from raw_events (another engine's DELETE, or erased): the date is still kept. */
    DELETED
  }

  private static final Pattern EVENT_DATE = Pattern.compile("event_date=(\\d{4}-\\d{2}-\\d{2})");

  /**
   * Each pointer of {@code deltas} whose raw event is no longer stored (no live row with its side
   * and hash), with why: retention removes every event date before a cutoff, so a pointer into a
   * date before the earliest one still stored ({@code earliestStored}, null when none is) expired;
   * any other was deleted. In the order of {@code deltas}, each pointer once.
   */
  public static Map<Pointer, Gone> gonePointers(
      List<DeltaRecord> deltas, List<Map<String, Object>> rows, LocalDate earliestStored) {
    Set<String> stored = new HashSet<>();
    for (Map<String, Object> r : rows) {
      stored.add(r.get("side") + "/" + r.get("sha256"));
    }
    Map<Pointer, Gone> gone = new LinkedHashMap<>();
    for (DeltaRecord d : deltas) {
      for (Pointer p : Arrays.asList(d.sourcePointer(), d.targetPointer())) {
        if (p != null && !stored.contains(p.side() + "/" + p.sha256())) {
          gone.putIfAbsent(p, expired(p, earliestStored) ? Gone.EXPIRED : Gone.DELETED);
        }
      }
    }
    return gone;
  }

  private static boolean expired(Pointer p, LocalDate earliestStored) {
    Matcher m = EVENT_DATE.matcher(p.dataFile());
    if (!m.find()) {
      return false;
    }
    return earliestStored == null || LocalDate.parse(m.group(1)).isBefore(earliestStored);
  }

  /** The one line {@code explain} prints for a pointer whose raw event is gone. */
  public static String goneLine(Pointer p, Gone why) {
    String head = p.side() + " event " + p.describe() + " (sha256 " + p.sha256() + "): ";
    return why == Gone.EXPIRED
        ? head + "expired, no longer stored in raw_events (removed by retention)"
        : head + "deleted, no longer in raw_events (deleted from the table, not by retention)";
  }

  /** The metadata lines, each value {@linkplain TerminalText#escape escaped}. */
  public String header() {
    Object partition = metadata.get("origin_partition");
    String origin =
        partition == null
            ? value("origin_stream") + ":" + value("origin_offset")
            : value("origin_stream")
                + "/"
                + value("origin_partition")
                + "@"
                + value("origin_offset");
    return TerminalText.escape(side)
        + " event at "
        + value("event_time")
        + ", sha256 "
        + value("sha256")
        + "\n  from "
        + origin
        + ", ingested "
        + value("ingest_time")
        + " by run "
        + value("run_id")
        + "\n  stored in raw_events/"
        + value("_data_file")
        + " row "
        + value("_row_index");
  }

  private String value(String column) {
    return TerminalText.escape(String.valueOf(metadata.get(column)));
  }

  /** The payload as indented JSON, or escaped as it was stored when it is not JSON. */
  public String prettyPayload() {
    return payload.isTextual() ? TerminalText.escape(rawPayload) : payload.toPrettyString();
  }
}
