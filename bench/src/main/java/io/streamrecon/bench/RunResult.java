package io.streamrecon.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one contender reports for one data set, written by the forked contender JVM as JSON.
 *
 * @param contender bare, direct, spark or peer
 * @param dataSet name of the generated data set
 * @param mode {@code batch} or {@code streaming}: which expected counts apply
 * @param records business records in the data set
 * @param events input events of both sides
 * @param inputBytes input bytes of both sides
 * @param wallSeconds from the start of the contender's work (engine start included) to its last
 *     write
 * @param startupSeconds of which engine start-up (SparkSession, pipeline construction)
 * @param peakHeapBytes highest heap use sampled every 20 ms
 * @param peakLiveHeapBytes highest heap use right after a garbage collection (the live set)
 * @param deltaLakeFiles data files added to Delta Lake tables (all tables)
 * @param deltaLakeCommits Delta Lake commits (all tables)
 * @param payloadFetches payloads read back from raw_events
 * @param mismatchesEmitted MISMATCH verdicts emitted, superseded ones included
 * @param matchesEmitted MATCH verdicts emitted, superseded ones included
 * @param counts final verdict counts
 * @param extra contender-specific figures (metrics, per-table counts)
 */
public record RunResult(
    String contender,
    String dataSet,
    String mode,
    long records,
    long events,
    long inputBytes,
    double wallSeconds,
    double startupSeconds,
    long peakHeapBytes,
    long peakLiveHeapBytes,
    long deltaLakeFiles,
    long deltaLakeCommits,
    long payloadFetches,
    long mismatchesEmitted,
    long matchesEmitted,
    VerdictCounts counts,
    Map<String, Object> extra) {

  public RunResult {
    extra = new TreeMap<>(extra);
  }

  /** Input events per second of wall time. */
  public double eventsPerSecond() {
    return events / Math.max(1e-9, wallSeconds);
  }

  public void write(Path file) throws IOException {
    Expected.MAPPER.writeValue(file.toFile(), this);
  }

  public static RunResult read(Path file) throws IOException {
    return Expected.MAPPER.readValue(file.toFile(), RunResult.class);
  }
}
