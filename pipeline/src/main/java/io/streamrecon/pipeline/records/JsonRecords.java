package io.streamrecon.pipeline.records;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/** The JSON records the commands keep beside the tables ({@code _replays/}, {@code _erasures/}). */
public final class JsonRecords {
  private JsonRecords() {}

  /**
   * Writes {@code root} to {@code file} (any Hadoop file system), pretty-printed, replacing it.
   *
   * @param what the record's name in the error message, for example "the replay's record"
   */
  public static void write(Path file, JsonNode root, String what) {
    try {
      FileSystem fs = file.getFileSystem(new Configuration());
      try (OutputStream out = fs.create(file, true)) {
        out.write(
            new ObjectMapper()
                .writerWithDefaultPrettyPrinter()
                .writeValueAsString(root)
                .getBytes(StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + what + " " + file, e);
    }
  }
}
