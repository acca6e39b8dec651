package io.streamrecon.bench.deltalake;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamrecon.deltalake.DeltaLakeSnapshot;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/** Rows in a table's current snapshot, from the per-file statistics (no data file is read). */
public final class TableRows {
  private static final ObjectMapper JSON = new ObjectMapper();

  private TableRows() {}

  /** Rows of {@code table} under {@code warehouse}, or 0 while the table does not exist. */
  public static long count(Configuration conf, String warehouse, String table) {
    return count(DeltaLakeSnapshot.latest(conf, new Path(warehouse, table)));
  }

  /** Rows of {@code snapshot} (0 when null), from the statistics of its live files. */
  static long count(DeltaLakeSnapshot snapshot) {
    if (snapshot == null) {
      return 0;
    }
    long rows = 0;
    for (DeltaLakeSnapshot.TableFile f : snapshot.files()) {
      rows += numRecords(f.stats());
    }
    return rows;
  }

  /**
   * {@code numRecords} of a file's statistics JSON, or -1 when absent: the Delta protocol's field,
   * read here rather than through the library, whose statistics code is internal.
   */
  static long numRecords(String statsJson) {
    if (statsJson == null || statsJson.isEmpty()) {
      return -1;
    }
    try {
      JsonNode n = JSON.readTree(statsJson).path("numRecords");
      return n.isNumber() ? n.asLong() : -1;
    } catch (IOException e) {
      // Unreadable statistics count as absent, as the library's own readers treat them.
      return -1;
    }
  }
}
