package io.streamrecon.deltalake;

import org.apache.hadoop.conf.Configuration;

/** Rows in a table's current snapshot, from the per-file statistics (no data file is read). */
public final class TableRows {
  private TableRows() {}

  /** Rows of {@code table} under {@code warehouse}, or 0 while the table does not exist. */
  public static long count(Configuration conf, String warehouse, String table) {
    DeltaLakeSnapshot snapshot =
        DeltaLakeSnapshot.latest(conf, DeltaLakeCommitter.tablePath(warehouse, table));
    if (snapshot == null) {
      return 0;
    }
    long rows = 0;
    for (DeltaLakeSnapshot.TableFile f : snapshot.files()) {
      rows += FileStats.numRecords(f.stats());
    }
    return rows;
  }
}
