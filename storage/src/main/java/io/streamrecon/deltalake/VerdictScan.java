package io.streamrecon.deltalake;

import io.streamrecon.model.Status;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.joda.time.Instant;

/**
 * Streams the verdict columns of the {@code deltas} rows of some runs, one row at a time, without
 * the differences: what comparing two runs' verdicts per natural id needs. Files whose {@code
 * run_id} statistics admit none of the runs are not opened; only the listed columns are decoded.
 */
public final class VerdictScan {
  private VerdictScan() {}

  /** The verdict of one {@code deltas} row. */
  public record Row(
      String verdictId,
      String supersedes,
      String naturalId,
      Status status,
      Instant sourceEventTime,
      Instant targetEventTime,
      Instant detectedAt,
      String runId,
      String rulesId) {
    /** The later of the two event times; null when neither is set. */
    public Instant latestEventTime() {
      if (sourceEventTime == null) {
        return targetEventTime;
      }
      if (targetEventTime == null || sourceEventTime.isAfter(targetEventTime)) {
        return sourceEventTime;
      }
      return targetEventTime;
    }
  }

  private static final List<String> COLUMNS =
      List.of(
          "verdict_id",
          "supersedes",
          "natural_id",
          "status",
          "source_event_time",
          "target_event_time",
          "detected_at",
          "run_id",
          "rules_id");

  /** Calls {@code sink} for every {@code deltas} row of the given runs, in no set order. */
  public static void scan(String warehouse, Collection<String> runIds, Consumer<Row> sink) {
    DeltaLakeSnapshot snapshot = DeltaLakeSnapshot.latest(warehouse, WarehouseTables.DELTAS);
    if (snapshot == null || runIds.isEmpty()) {
      return;
    }
    RawEventsSelection runs = RawEventsSelection.ALL.withRunIds(runIds);
    List<ColumnSpec> columns = new ArrayList<>();
    for (String name : COLUMNS) {
      columns.add(
          TableLayouts.DELTAS.columns.stream()
              .filter(c -> c.name.equals(name))
              .findFirst()
              .orElseThrow());
    }
    Configuration conf = new Configuration();
    for (DeltaLakeSnapshot.TableFile f : snapshot.files()) {
      if (!runs.admitsFile(f)) {
        continue;
      }
      Path path = new Path(snapshot.root(), f.path());
      DeletedRows deleted = snapshot.deletedRows(f);
      try (ParquetReader<Group> reader =
          DataFileFormat.reader(
                  new ProjectingReadSupport(COLUMNS), HadoopInputFile.fromPath(path, conf))
              .withFilter(runs.parquetFilter())
              .build()) {
        for (Group g = reader.read(); g != null; g = reader.read()) {
          if (deleted.contains(reader.getCurrentRowIndex())) {
            continue;
          }
          String runId = (String) DeltaLakeTables.value(g, columns.get(7));
          if (!runIds.contains(runId)) {
            continue;
          }
          sink.accept(
              new Row(
                  (String) DeltaLakeTables.value(g, columns.get(0)),
                  (String) DeltaLakeTables.value(g, columns.get(1)),
                  (String) DeltaLakeTables.value(g, columns.get(2)),
                  Status.valueOf((String) DeltaLakeTables.value(g, columns.get(3))),
                  (Instant) DeltaLakeTables.value(g, columns.get(4)),
                  (Instant) DeltaLakeTables.value(g, columns.get(5)),
                  (Instant) DeltaLakeTables.value(g, columns.get(6)),
                  runId,
                  (String) DeltaLakeTables.value(g, columns.get(8))));
        }
      } catch (IOException e) {
        throw new UncheckedIOException("reading " + f.path() + " of " + snapshot.root(), e);
      }
    }
  }
}
