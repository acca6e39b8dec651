package io.streamrecon.deltalake;

import io.delta.standalone.DeltaLog;
import io.delta.standalone.actions.AddFile;
import org.apache.hadoop.conf.Configuration;

/** Rows in a table's current snapshot, from the per-file statistics (no data file is read). */
public final class TableRows {
  private TableRows() {}

  /** Rows of {@code table} under {@code warehouse}, or 0 while the table does not exist. */
  public static long count(Configuration conf, String warehouse, String table) {
    DeltaLog log = DeltaLog.forTable(conf, DeltaLakeCommitter.tablePath(warehouse, table));
    if (!log.tableExists()) {
      return 0;
    }
    long rows = 0;
    for (AddFile f : log.update().getAllFiles()) {
      rows += FileStats.numRecords(f.getStats());
    }
    return rows;
  }
}
