package io.streamrecon.pipeline;

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
