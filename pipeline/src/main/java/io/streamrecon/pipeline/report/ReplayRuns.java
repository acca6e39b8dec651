package io.streamrecon.pipeline.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamrecon.pipeline.run.ReplayRun;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The replays of a warehouse, from the records {@link ReplayRun} writes under {@code _replays}. A
 * replay stores no raw event: the stored events it judged were those of other runs, so the report
 * takes a replay's raw event counts (per side) from its record.
 */
final class ReplayRuns {
  private ReplayRuns() {}

  /** Receives a replay's stored events read on one side. */
  interface Sink {
    void add(String runId, String side, long events);
  }

  /** Calls {@code sink} for each side of each replay recorded in the warehouse. */
  static void storedEventsRead(String warehouse, Sink sink) {
    Path dir = new Path(warehouse, ReplayRun.RECORDS_DIR);
    try {
      FileSystem fs = dir.getFileSystem(new Configuration());
      if (!fs.exists(dir)) {
        return;
      }
      ObjectMapper json = new ObjectMapper();
      for (FileStatus f : fs.listStatus(dir)) {
        if (!f.getPath().getName().endsWith(".json")) {
          continue;
        }
        JsonNode record;
        try (InputStream in = fs.open(f.getPath())) {
          record = json.readTree(in);
        }
        String replayId = record.path("replayId").asText(null);
        if (replayId == null) {
          continue;
        }
        JsonNode counts = record.path("counts");
        sink.add(replayId, "SOURCE", counts.path("summary_input_source").asLong(0));
        sink.add(replayId, "TARGET", counts.path("summary_input_target").asLong(0));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the replay records under " + dir, e);
    }
  }
}
