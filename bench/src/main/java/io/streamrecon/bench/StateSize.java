package io.streamrecon.bench;

import io.streamrecon.json.EventParser;
import io.streamrecon.json.InvalidEventException;
import io.streamrecon.json.ParseConfig;
import io.streamrecon.model.Event;
import io.streamrecon.model.EventRef;
import io.streamrecon.model.ModelBytes;
import io.streamrecon.model.Origin;
import io.streamrecon.model.Pointer;
import io.streamrecon.model.RawInput;
import io.streamrecon.model.Side;
import io.streamrecon.pipeline.io.LineReader;
import io.streamrecon.transforms.ModelCoders;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.util.UUID;
import org.joda.time.Instant;

/**
 * Encoded state per pending key: what streamrecon keeps (the natural id as key plus {@code
 * EventRefCoder.encodeWithoutKey}: side, time, packed hash, pointer) against the same event kept
 * inline ({@code EventCoder}: the payload included), over the events of one data set.
 *
 * @param events events measured
 * @param keyBytes mean bytes of the key (natural id, UTF-8, with its length)
 * @param pointerStateBytes mean bytes of key + encodeWithoutKey
 * @param inlineStateBytes mean bytes of key + the whole event encoded
 * @param payloadBytes mean payload bytes
 */
record StateSize(
    long events,
    double keyBytes,
    double pointerStateBytes,
    double inlineStateBytes,
    double payloadBytes) {

  static StateSize measure(Path dataDir, int maxEvents) throws IOException {
    EventParser parser = new EventParser(ParseConfig.defaults());
    long n = 0;
    long key = 0;
    long pointer = 0;
    long inline = 0;
    long payload = 0;
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    for (Side side : Side.values()) {
      Path dir = dataDir.resolve(side == Side.SOURCE ? Generator.SOURCE_DIR : Generator.TARGET_DIR);
      long row = 0;
      for (Path f : Generator.files(dir)) {
        // one data file per generated file: a realistic spread of files and row indexes
        String dataFile = null;
        try (InputStream raw = Files.newInputStream(f);
            LineReader in = new LineReader(raw, ParseConfig.MAX_EVENT_BYTES_LIMIT)) {
          for (byte[] line = in.next();
              line != null && n < maxEvents * (side.ordinal() + 1L);
              line = in.next()) {
            if (line.length == 0) {
              continue;
            }
            Event e;
            try {
              e =
                  parser.parse(
                      new RawInput(
                          side, line, Origin.fileLine(f.toString(), row + 1), Instant.EPOCH));
            } catch (InvalidEventException ex) {
              continue;
            }
            if (dataFile == null) {
              String date =
                  java.time.Instant.ofEpochMilli(e.eventTime().getMillis())
                      .atZone(ZoneOffset.UTC)
                      .toLocalDate()
                      .toString();
              dataFile =
                  "side="
                      + side
                      + "/event_date="
                      + date
                      + "/part-"
                      + UUID.nameUUIDFromBytes(f.toString().getBytes(StandardCharsets.UTF_8))
                      + ".snappy.parquet";
            }
            Pointer p =
                new Pointer(17 + row / 5000, dataFile, row % 5000, side, e.naturalId(), e.sha256());
            EventRef ref = new EventRef(side, e.naturalId(), e.eventTime(), e.sha256(), p);
            buf.reset();
            ModelBytes.writeString(e.naturalId(), buf);
            int k = buf.size();
            ModelCoders.EventRefCoder.encodeWithoutKey(ref, buf);
            int ptr = buf.size();
            buf.reset();
            ModelCoders.EventCoder.of().encode(e, buf);
            int inl = k + buf.size();
            n++;
            row++;
            key += k;
            pointer += ptr;
            inline += inl;
            payload += e.payload().length;
          }
        }
      }
    }
    return new StateSize(
        n, (double) key / n, (double) pointer / n, (double) inline / n, (double) payload / n);
  }
}
