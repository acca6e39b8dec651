package io.streamrecon.deltalake;

import io.delta.kernel.Snapshot;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.ConcurrentWriteException;
import io.delta.kernel.internal.actions.AddFile;
import io.streamrecon.deltalake.DeltaLakeMaintenance.ExpireResult;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * Raw event retention: removes the {@code raw_events} partitions whose event date lies wholly
 * before a cutoff, in one commit ({@code remove} actions, {@code dataChange=true}) through Delta
 * Kernel; refuses a retention that could remove a row an open pairing entry still points to. The
 * files stay on storage until a vacuum.
 */
final class RawEventRetention {
  private RawEventRetention() {}

  /**
   * Removes every {@code raw_events} file of a partition whose whole event date lies before {@code
   * now - retain}. Refuses a retention shorter than {@link
   * DeltaLakeMaintenance#minimumRawEventRetention}.
   */
  static ExpireResult expire(
      Configuration conf,
      String warehouse,
      Duration retain,
      Duration timeout,
      Duration allowedLateness,
      Instant now) {
    Duration minimum = DeltaLakeMaintenance.minimumRawEventRetention(timeout, allowedLateness);
    if (retain.isShorterThan(minimum)) {
      throw new IllegalArgumentException(
          "--retainRawEvents="
              + retain.getStandardHours()
              + "h is too short: an open pairing entry may point to raw events up to timeout ("
              + timeout.getStandardMinutes()
              + "m) + allowed lateness ("
              + allowedLateness.getStandardMinutes()
              + "m) + a margin of "
              + DeltaLakeMaintenance.RETENTION_MARGIN.getStandardHours()
              + "h old; use at least "
              + (minimum.getStandardHours() + 1)
              + "h (pass the job's --timeout and --allowedLateness)");
    }
    // A partition goes when its last instant, the start of the next day, is at or before the
    // cutoff.
    LocalDate cutoff =
        java.time.Instant.ofEpochMilli(now.getMillis() - retain.getMillis())
            .atZone(ZoneOffset.UTC)
            .toLocalDate();
    Path root = DeltaLakeCommitter.tablePath(warehouse, WarehouseTables.RAW_EVENTS);
    Engine engine = DeltaLakeEngine.create(conf);
    if (DeltaLakeSnapshot.kernelSnapshot(engine, root) == null) {
      return new ExpireResult(cutoff, List.of(), 0, 0, -1);
    }
    RuntimeException last = null;
    for (int attempt = 1; attempt <= DeltaLakeMaintenance.MAX_ATTEMPTS; attempt++) {
      Snapshot snapshot = DeltaLakeSnapshot.kernelSnapshot(engine, root);
      List<AddFile> expired = new ArrayList<>();
      Set<String> partitions = new TreeSet<>();
      long rows = 0;
      for (AddFile f : DeltaLakeCompaction.liveFiles(engine, root, snapshot)) {
        Map<String, String> values = DeltaLakeCompaction.partitionValues(f);
        String date = values.get("event_date");
        if (date != null && LocalDate.parse(date).isBefore(cutoff)) {
          expired.add(f);
          partitions.add(TableLayout.partitionDirectory(new TreeMap<>(values)));
          rows += Math.max(0, FileStats.numRecords(DeltaLakeCompaction.stats(f)));
        }
      }
      if (expired.isEmpty()) {
        return new ExpireResult(cutoff, List.of(), 0, 0, snapshot.getVersion());
      }
      try {
        long version =
            DeltaLakeCommitter.commitRewrite(engine, root, snapshot, expired, List.of(), true);
        return new ExpireResult(cutoff, List.copyOf(partitions), expired.size(), rows, version);
      } catch (ConcurrentWriteException e) {
        last = e;
      }
    }
    throw new IllegalStateException(
        "could not commit the raw event retention after "
            + DeltaLakeMaintenance.MAX_ATTEMPTS
            + " attempts",
        last);
  }
}
