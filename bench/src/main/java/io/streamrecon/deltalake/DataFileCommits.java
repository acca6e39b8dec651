package io.streamrecon.deltalake;

import io.delta.standalone.DeltaLog;
import io.delta.standalone.VersionLog;
import io.delta.standalone.actions.Action;
import io.delta.standalone.actions.AddFile;
import io.delta.standalone.actions.CommitInfo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;

/**
 * The commit that made each data file of a table visible: its version and the {@code
 * commitInfo.timestamp} of {@code _delta_log/<version>.json} (the committing JVM's wall clock,
 * taken by delta-standalone as it commits), read once through delta-standalone's {@link
 * DeltaLog#getChanges}. Only files added with {@code dataChange=true} are mapped: a file written
 * by compaction holds rows that first became visible in an earlier commit, which its own commit
 * cannot tell.
 */
public final class DataFileCommits {
  private DataFileCommits() {}

  /** A commit: table version and {@code commitInfo.timestamp} in epoch milliseconds. */
  public record Commit(long version, long timestampMillis) {}

  /**
   * Data file path (relative to the table, as in the log's {@code add} actions) to the commit
   * that added it; empty while the table does not exist. A version without a {@code commitInfo}
   * (not written by delta-standalone or Spark) maps none of its files.
   */
  public static Map<String, Commit> of(Configuration conf, String warehouse, String table) {
    DeltaLog log = DeltaLog.forTable(conf, DeltaLakeCommitter.tablePath(warehouse, table));
    Map<String, Commit> added = new HashMap<>();
    if (!log.tableExists()) {
      return added;
    }
    for (Iterator<VersionLog> it = log.getChanges(0, true); it.hasNext(); ) {
      VersionLog version = it.next();
      CommitInfo info = null;
      List<String> paths = new ArrayList<>();
      for (Action a : version.getActions()) {
        if (a instanceof CommitInfo c) {
          info = c;
        } else if (a instanceof AddFile f && f.isDataChange()) {
          paths.add(f.getPath());
        }
      }
      if (info != null && info.getTimestamp() != null) {
        Commit commit = new Commit(version.getVersion(), info.getTimestamp().getTime());
        paths.forEach(p -> added.put(p, commit));
      }
    }
    return added;
  }
}
