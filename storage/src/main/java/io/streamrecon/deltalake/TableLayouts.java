package io.streamrecon.deltalake;

import static io.streamrecon.deltalake.ColumnSpec.Kind.DATE;
import static io.streamrecon.deltalake.ColumnSpec.Kind.INT;
import static io.streamrecon.deltalake.ColumnSpec.Kind.LONG;
import static io.streamrecon.deltalake.ColumnSpec.Kind.STRING;
import static io.streamrecon.deltalake.ColumnSpec.Kind.TIMESTAMP;

import io.streamrecon.model.DeadLetter;
import io.streamrecon.model.DeltaRecord;
import io.streamrecon.model.Difference;
import io.streamrecon.model.Event;
import io.streamrecon.model.LateEvent;
import io.streamrecon.model.ModelBytes;
import io.streamrecon.model.Origin;
import io.streamrecon.model.Pointer;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.List;
import org.joda.time.Instant;

/** The four tables of docs/design.md#tables-and-pointers, column by column. */
public final class TableLayouts {
  private TableLayouts() {}

  /** Value of {@code raw_encoding} when {@code raw} holds the bytes as UTF-8 text. */
  static final String RAW_UTF8 = "utf-8";

  /**
   * Value of {@code raw_encoding} when the bytes were not valid UTF-8 and {@code raw} is base64.
   */
  public static final String RAW_BASE64 = "base64";

  public static final TableLayout<Event> RAW_EVENTS =
      new TableLayout<>(
          WarehouseTables.RAW_EVENTS,
          Event.class,
          List.of(
              ColumnSpec.of("side", STRING, (r, c) -> ((Event) r).side().name()).partition(),
              ColumnSpec.of("natural_id", STRING, (r, c) -> ((Event) r).naturalId())
                  .withStats()
                  .withBloomFilter(),
              ColumnSpec.of("event_time", TIMESTAMP, (r, c) -> ((Event) r).eventTime()).withStats(),
              ColumnSpec.of("event_date", DATE, (r, c) -> utcDate(((Event) r).eventTime()))
                  .partition(),
              ColumnSpec.of("sha256", STRING, (r, c) -> ((Event) r).sha256())
                  .withStats()
                  .noDictionary(),
              ColumnSpec.of("payload", STRING, (r, c) -> ((Event) r).payload()).noDictionary(),
              ColumnSpec.of("origin_stream", STRING, (r, c) -> ((Event) r).origin().stream())
                  .withStats(),
              ColumnSpec.of("origin_partition", INT, (r, c) -> partitionOf(((Event) r).origin()))
                  .nullable()
                  .withStats(),
              ColumnSpec.of("origin_offset", LONG, (r, c) -> ((Event) r).origin().offset())
                  .withStats(),
              ColumnSpec.of("ingest_time", TIMESTAMP, (r, c) -> c.writeTime()).withStats(),
              ColumnSpec.of("run_id", STRING, (r, c) -> c.runId()).withStats()),
          (event, out) -> {
            ModelBytes.writeString(event.naturalId(), out);
            ModelBytes.writeInstant(event.eventTime(), out);
            ModelBytes.writeHash(event.sha256(), out);
          },
          // One Kafka record (or file line) of one side is one row, however often it is replayed.
          List.of("side", "origin_stream", "origin_partition", "origin_offset"));

  private static List<ColumnSpec> pointerFields() {
    return List.of(
        ColumnSpec.of("table_version", LONG, (r, c) -> ((Pointer) r).tableVersion()),
        ColumnSpec.of("data_file", STRING, (r, c) -> ((Pointer) r).dataFile()),
        ColumnSpec.of("row_index", LONG, (r, c) -> ((Pointer) r).rowIndex()));
  }

  static final TableLayout<DeltaRecord> DELTAS =
      new TableLayout<>(
          WarehouseTables.DELTAS,
          DeltaRecord.class,
          List.of(
              ColumnSpec.of("verdict_id", STRING, (r, c) -> ((DeltaRecord) r).verdictId())
                  .withStats()
                  .noDictionary(),
              ColumnSpec.of("supersedes", STRING, (r, c) -> ((DeltaRecord) r).supersedes())
                  .nullable()
                  .withStats()
                  .noDictionary(),
              ColumnSpec.of("natural_id", STRING, (r, c) -> ((DeltaRecord) r).naturalId())
                  .withStats()
                  .withBloomFilter(),
              ColumnSpec.of("status", STRING, (r, c) -> ((DeltaRecord) r).status().name())
                  .withStats(),
              ColumnSpec.arrayOfStruct(
                  "differences",
                  (r, c) -> ((DeltaRecord) r).differences(),
                  List.of(
                      ColumnSpec.of("path", STRING, (r, c) -> ((Difference) r).path()),
                      ColumnSpec.of("kind", STRING, (r, c) -> ((Difference) r).kind().name()),
                      ColumnSpec.of("source", STRING, (r, c) -> ((Difference) r).source())
                          .nullable(),
                      ColumnSpec.of("target", STRING, (r, c) -> ((Difference) r).target())
                          .nullable())),
              ColumnSpec.of("source_hash", STRING, (r, c) -> ((DeltaRecord) r).sourceHash())
                  .nullable()
                  .withStats()
                  .noDictionary(),
              ColumnSpec.of("target_hash", STRING, (r, c) -> ((DeltaRecord) r).targetHash())
                  .nullable()
                  .withStats()
                  .noDictionary(),
              ColumnSpec.of(
                      "source_event_time", TIMESTAMP, (r, c) -> ((DeltaRecord) r).sourceEventTime())
                  .nullable()
                  .withStats(),
              ColumnSpec.of(
                      "target_event_time", TIMESTAMP, (r, c) -> ((DeltaRecord) r).targetEventTime())
                  .nullable()
                  .withStats(),
              ColumnSpec.struct(
                      "source_pointer",
                      (r, c) -> ((DeltaRecord) r).sourcePointer(),
                      pointerFields())
                  .nullable(),
              ColumnSpec.struct(
                      "target_pointer",
                      (r, c) -> ((DeltaRecord) r).targetPointer(),
                      pointerFields())
                  .nullable(),
              ColumnSpec.of("detected_at", TIMESTAMP, (r, c) -> ((DeltaRecord) r).detectedAt())
                  .withStats(),
              ColumnSpec.of("run_id", STRING, (r, c) -> ((DeltaRecord) r).runId()).withStats(),
              // Added after the first release: nullable, so older tables gain it by a schema
              // update (DeltaLakeCommitter) and their rows read back null.
              ColumnSpec.of("rules_id", STRING, (r, c) -> ((DeltaRecord) r).rulesId())
                  .nullable()
                  .withStats()
                  .noDictionary()),
          null,
          List.of("verdict_id"));

  static final TableLayout<DeadLetter> DEAD_LETTERS =
      new TableLayout<>(
          WarehouseTables.DEAD_LETTERS,
          DeadLetter.class,
          List.of(
              ColumnSpec.of("side", STRING, (r, c) -> ((DeadLetter) r).side().name()).withStats(),
              ColumnSpec.of("raw", STRING, (r, c) -> rawText(((DeadLetter) r).raw()))
                  .noDictionary(),
              ColumnSpec.of("raw_encoding", STRING, (r, c) -> rawEncoding(((DeadLetter) r).raw()))
                  .withStats(),
              ColumnSpec.of("error", STRING, (r, c) -> ((DeadLetter) r).error()).withStats(),
              ColumnSpec.of("stage", STRING, (r, c) -> ((DeadLetter) r).stage()).withStats(),
              ColumnSpec.of("origin_stream", STRING, (r, c) -> ((DeadLetter) r).origin().stream())
                  .withStats(),
              ColumnSpec.of(
                      "origin_partition", INT, (r, c) -> partitionOf(((DeadLetter) r).origin()))
                  .nullable()
                  .withStats(),
              ColumnSpec.of("origin_offset", LONG, (r, c) -> ((DeadLetter) r).origin().offset())
                  .withStats(),
              ColumnSpec.of("failed_at", TIMESTAMP, (r, c) -> ((DeadLetter) r).failedAt())
                  .withStats(),
              ColumnSpec.of("run_id", STRING, (r, c) -> c.runId()).withStats()),
          null,
          List.of("side", "origin_stream", "origin_partition", "origin_offset", "stage"));

  static final TableLayout<LateEvent> LATE_EVENTS =
      new TableLayout<>(
          WarehouseTables.LATE_EVENTS,
          LateEvent.class,
          List.of(
              ColumnSpec.of("side", STRING, (r, c) -> ((LateEvent) r).event().side().name())
                  .withStats(),
              ColumnSpec.of("natural_id", STRING, (r, c) -> ((LateEvent) r).event().naturalId())
                  .withStats()
                  .withBloomFilter(),
              ColumnSpec.of("event_time", TIMESTAMP, (r, c) -> ((LateEvent) r).event().eventTime())
                  .withStats(),
              ColumnSpec.of("sha256", STRING, (r, c) -> ((LateEvent) r).event().sha256())
                  .withStats()
                  .noDictionary(),
              ColumnSpec.struct(
                  "pointer", (r, c) -> ((LateEvent) r).event().pointer(), pointerFields()),
              ColumnSpec.of("watermark", TIMESTAMP, (r, c) -> ((LateEvent) r).watermark())
                  .withStats(),
              ColumnSpec.of("run_id", STRING, (r, c) -> c.runId()).withStats()),
          null,
          // The stored event's identity; its pointer may differ between copies of a replay.
          List.of("side", "natural_id", "sha256", "event_time"));

  public static TableLayout<?> forName(String table) {
    return switch (table) {
      case WarehouseTables.RAW_EVENTS -> RAW_EVENTS;
      case WarehouseTables.DELTAS -> DELTAS;
      case WarehouseTables.DEAD_LETTERS -> DEAD_LETTERS;
      case WarehouseTables.LATE_EVENTS -> LATE_EVENTS;
      default ->
          throw new IllegalArgumentException(
              "unknown table " + table + "; expected one of " + WarehouseTables.TABLES);
    };
  }

  /** The event date of raw_events partitions: the UTC calendar date of the event time. */
  public static LocalDate utcDate(Instant instant) {
    return java.time.Instant.ofEpochMilli(instant.getMillis()).atZone(ZoneOffset.UTC).toLocalDate();
  }

  /** File origins have no partition; NULL reads better in SQL than the in-memory -1. */
  private static Integer partitionOf(Origin origin) {
    return origin.isFile() ? null : origin.partition();
  }

  static boolean isUtf8(byte[] raw) {
    try {
      StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(raw));
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }

  static String rawEncoding(byte[] raw) {
    return isUtf8(raw) ? RAW_UTF8 : RAW_BASE64;
  }

  static String rawText(byte[] raw) {
    return isUtf8(raw)
        ? new String(raw, StandardCharsets.UTF_8)
        : Base64.getEncoder().encodeToString(raw);
  }
}
