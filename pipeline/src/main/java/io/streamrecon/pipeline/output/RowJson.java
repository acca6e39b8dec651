package io.streamrecon.pipeline.output;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.streamrecon.json.JsonSupport;
import io.streamrecon.model.DeadLetter;
import io.streamrecon.model.DeltaRecord;
import io.streamrecon.model.Difference;
import io.streamrecon.model.EventRef;
import io.streamrecon.model.LateEvent;
import io.streamrecon.model.Origin;
import io.streamrecon.model.Pointer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.joda.time.Instant;

/**
 * JSON renderings of table rows for {@code show} and {@code explain}, with the field names of the
 * tables (docs/design.md#deltarecord): differences as {@code {path, kind, source, target}} with the
 * values as JSON (not as quoted JSON text), an absent side omitted; instants as ISO-8601 UTC.
 * Stored JSON is read with the limits events were accepted under ({@link JsonSupport#mapper()}), so
 * every value a run stored reads back as JSON, however long its strings.
 */
public final class RowJson {
  static final ObjectMapper MAPPER = JsonSupport.mapper();

  private RowJson() {}

  public static ObjectNode delta(DeltaRecord d) {
    ObjectNode o = MAPPER.createObjectNode();
    o.put("verdictId", d.verdictId());
    o.put("supersedes", d.supersedes());
    o.put("naturalId", d.naturalId());
    o.put("status", d.status().name());
    ArrayNode diffs = o.putArray("differences");
    for (Difference diff : d.differences()) {
      diffs.add(difference(diff));
    }
    o.put("sourceHash", d.sourceHash());
    o.put("targetHash", d.targetHash());
    o.put("sourceEventTime", instant(d.sourceEventTime()));
    o.put("targetEventTime", instant(d.targetEventTime()));
    o.set("sourcePointer", pointer(d.sourcePointer()));
    o.set("targetPointer", pointer(d.targetPointer()));
    o.put("detectedAt", instant(d.detectedAt()));
    o.put("runId", d.runId());
    o.put("rulesId", d.rulesId());
    return o;
  }

  public static ObjectNode difference(Difference diff) {
    ObjectNode o = MAPPER.createObjectNode();
    o.put("path", diff.path());
    o.put("kind", diff.kind().name());
    if (diff.source() != null) {
      o.set("source", json(diff.source()));
    }
    if (diff.target() != null) {
      o.set("target", json(diff.target()));
    }
    return o;
  }

  public static ObjectNode deadLetter(DeadLetter d) {
    ObjectNode o = MAPPER.createObjectNode();
    o.put("side", d.side().name());
    o.put("raw", new String(d.raw(), StandardCharsets.UTF_8));
    o.put("error", d.error());
    o.put("stage", d.stage());
    o.set("origin", origin(d.origin()));
    o.put("failedAt", instant(d.failedAt()));
    return o;
  }

  public static ObjectNode lateEvent(LateEvent l) {
    ObjectNode o = MAPPER.createObjectNode();
    EventRef e = l.event();
    o.put("side", e.side().name());
    o.put("naturalId", e.naturalId());
    o.put("eventTime", instant(e.eventTime()));
    o.put("sha256", e.sha256());
    o.set("pointer", pointer(e.pointer()));
    o.put("watermark", instant(l.watermark()));
    return o;
  }

  static ObjectNode origin(Origin origin) {
    ObjectNode o = MAPPER.createObjectNode();
    if (origin.isFile()) {
      o.put("file", origin.stream());
      o.put("line", origin.offset());
    } else {
      o.put("topic", origin.stream());
      o.put("partition", origin.partition());
      o.put("offset", origin.offset());
    }
    return o;
  }

  static JsonNode pointer(Pointer p) {
    if (p == null) {
      return MAPPER.nullNode();
    }
    ObjectNode o = MAPPER.createObjectNode();
    o.put("tableVersion", p.tableVersion());
    o.put("dataFile", p.dataFile());
    o.put("rowIndex", p.rowIndex());
    o.put("side", p.side().name());
    o.put("naturalId", p.naturalId());
    o.put("sha256", p.sha256());
    return o;
  }

  /** The JSON value of a stored text; text that is not JSON stays a string. */
  static JsonNode json(String text) {
    try {
      JsonNode n = MAPPER.readTree(text);
      return n == null ? TextNode.valueOf(text) : n;
    } catch (IOException e) {
      return TextNode.valueOf(text);
    }
  }

  static String instant(Instant i) {
    return i == null ? null : i.toString();
  }
}
