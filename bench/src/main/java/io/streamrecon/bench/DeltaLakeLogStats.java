package io.streamrecon.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * Files and commits of a Delta Lake table, read from its {@code _delta_log}: every {@code NNN.json}
 * is a commit; every {@code add} action in them a data file written (files later removed by
 * compaction count too: they were written).
 *
 * @param commits commit files in the log
 * @param filesAdded add actions over all commits
 * @param bytesAdded sum of the add actions' sizes
 */
record DeltaLakeLogStats(long commits, long filesAdded, long bytesAdded) {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  static final DeltaLakeLogStats NONE = new DeltaLakeLogStats(0, 0, 0);

  DeltaLakeLogStats plus(DeltaLakeLogStats o) {
    return new DeltaLakeLogStats(
        commits + o.commits, filesAdded + o.filesAdded, bytesAdded + o.bytesAdded);
  }

  /** Stats of one table; {@link #NONE} when it has no log. */
  static DeltaLakeLogStats of(Path table) throws IOException {
    Path log = table.resolve("_delta_log");
    if (!Files.isDirectory(log)) {
      return NONE;
    }
    List<Path> commits;
    try (Stream<Path> s = Files.list(log)) {
      commits = s.filter(p -> p.getFileName().toString().matches("\\d{20}\\.json")).toList();
    }
    long files = 0;
    long bytes = 0;
    for (Path c : commits) {
      for (String line : Files.readAllLines(c, StandardCharsets.UTF_8)) {
        JsonNode action = MAPPER.readTree(line);
        if (action.has("add")) {
          files++;
          bytes += action.get("add").path("size").asLong();
        }
      }
    }
    return new DeltaLakeLogStats(commits.size(), files, bytes);
  }

  /** Stats summed over every table directly under a warehouse directory. */
  static DeltaLakeLogStats ofWarehouse(Path warehouse) throws IOException {
    DeltaLakeLogStats total = NONE;
    if (!Files.isDirectory(warehouse)) {
      return total;
    }
    try (Stream<Path> s = Files.list(warehouse)) {
      for (Path t : s.toList()) {
        total = total.plus(of(t));
      }
    }
    return total;
  }
}
