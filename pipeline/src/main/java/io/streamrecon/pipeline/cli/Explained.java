package io.streamrecon.pipeline.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** One raw_events row as {@code explain} prints it: its metadata line and its payload. */
record Explained(String side, Map<String, Object> metadata, JsonNode payload, String rawPayload) {
  static final String PAYLOAD = "payload";

  static Explained of(Map<String, Object> row) {
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
  static List<Map<String, Object>> sorted(List<Map<String, Object>> rows) {
    List<Map<String, Object>> copy = new ArrayList<>(rows);
    copy.sort(
        Comparator.comparing((Map<String, Object> r) -> String.valueOf(r.get("side")))
            .thenComparing(r -> String.valueOf(r.get("event_time"))));
    return copy;
  }

  /**
   * One line per pointer of {@code deltas} whose raw event is no longer stored (no row with its
   * side and hash): raw event retention removed it, and the verdict outlives it.
   */
  static List<String> expiredPointers(
      List<io.streamrecon.model.DeltaRecord> deltas, List<Map<String, Object>> rows) {
    java.util.Set<String> stored = new java.util.HashSet<>();
    for (Map<String, Object> r : rows) {
      stored.add(r.get("side") + "/" + r.get("sha256"));
    }
    java.util.Set<String> lines = new java.util.LinkedHashSet<>();
    for (io.streamrecon.model.DeltaRecord d : deltas) {
      for (io.streamrecon.model.Pointer p :
          java.util.Arrays.asList(d.sourcePointer(), d.targetPointer())) {
        if (p != null && !stored.contains(p.side() + "/" + p.sha256())) {
          lines.add(
              p.side()
                  + " event "
                  + p.describe()
                  + " (sha256 "
                  + p.sha256()
                  + "): expired, no longer stored in raw_events (removed by retention)");
        }
      }
    }
    return new ArrayList<>(lines);
  }

  String header() {
    Object partition = metadata.get("origin_partition");
    String origin =
        partition == null
            ? metadata.get("origin_stream") + ":" + metadata.get("origin_offset")
            : metadata.get("origin_stream") + "/" + partition + "@" + metadata.get("origin_offset");
    return side
        + " event at "
        + metadata.get("event_time")
        + ", sha256 "
        + metadata.get("sha256")
        + "\n  from "
        + origin
        + ", ingested "
        + metadata.get("ingest_time")
        + " by run "
        + metadata.get("run_id")
        + "\n  stored in raw_events/"
        + metadata.get("_data_file")
        + " row "
        + metadata.get("_row_index");
  }

  String prettyPayload() {
    return payload.isTextual() ? rawPayload : payload.toPrettyString();
  }
}
