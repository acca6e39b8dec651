package io.streamrecon.bench.deltalake;

import io.streamrecon.deltalake.DeltaLakeAppender;
import io.streamrecon.deltalake.WarehouseTables;
import io.streamrecon.model.DeltaRecord;
import io.streamrecon.model.Difference;
import io.streamrecon.model.DifferenceKind;
import io.streamrecon.model.Pointer;
import io.streamrecon.model.Side;
import io.streamrecon.model.Status;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.hadoop.conf.Configuration;
import org.joda.time.Instant;

/**
 * Writes a synthetic {@code deltas} table of any size with the project's own Delta Lake writer
 * ({@link DeltaLakeAppender}: the same files, stats and log a run writes), without running a
 * pipeline: for measuring readers such as {@code streamrecon report} at sizes the DirectRunner
 * cannot produce.
 *
 * <p>Content: 60% MISMATCH (1–4 differences over a dozen paths, array indexes 0–9), 20% each
 * MISSING_IN_TARGET / MISSING_IN_SOURCE, 1% of the mismatches superseded by a later MATCH; event
 * times spread over {@code spanHours}; detection 1 s – 15 min after the later event.
 */
public final class SyntheticDeltas {
  private static final String[] PATHS = {
    "/status", "/amount", "/customer/address/city", "/customer/address/zip", "/note",
    "/items/%d/qty", "/items/%d/price", "/items/%d/sku", "/shipping/carrier", "/tags/%d"
  };

  private SyntheticDeltas() {}

  /**
   * Writes {@code rows} DeltaRecords of run {@code runId} into {@code warehouse}/deltas, {@code
   * rowsPerFile} per data file, in one commit; returns the number of data files.
   */
  public static int write(
      String warehouse, String runId, long rows, int rowsPerFile, int spanHours, long seed)
      throws IOException {
    Configuration conf = new Configuration();
    SplittableRandom random = new SplittableRandom(seed);
    HexFormat hex = HexFormat.of();
    long start = Instant.parse("2024-03-01T00:00:00Z").getMillis();
    long span = spanHours * 3_600_000L;
    int files = 0;
    try (DeltaLakeAppender<DeltaRecord> writer = DeltaLakeAppender.deltas(conf, warehouse, runId)) {
      for (long i = 0; i < rows; i++) {
        String id = String.format("ord-%09d", i);
        long eventTime = start + (long) (random.nextDouble() * span);
        long detected = eventTime + 1000 + (long) (Math.pow(random.nextDouble(), 3) * 900_000);
        double r = random.nextDouble();
        Status status =
            r < 0.6
                ? Status.MISMATCH
                : r < 0.8 ? Status.MISSING_IN_TARGET : Status.MISSING_IN_SOURCE;
        String sh = status == Status.MISSING_IN_SOURCE ? null : hash(random, hex);
        String th = status == Status.MISSING_IN_TARGET ? null : hash(random, hex);
        List<Difference> diffs = new ArrayList<>();
        if (status == Status.MISMATCH) {
          int n = 1 + random.nextInt(4);
          for (int k = 0; k < n; k++) {
            String path = String.format(PATHS[random.nextInt(PATHS.length)], random.nextInt(10));
            diffs.add(
                new Difference(
                    path,
                    DifferenceKind.CHANGED,
                    "\"v" + random.nextInt(1000) + "\"",
                    "\"v" + random.nextInt(1000) + "\""));
          }
          diffs.sort((a, b) -> a.path().compareTo(b.path()));
        }
        String verdictId = hash(random, hex);
        DeltaRecord d =
            new DeltaRecord(
                verdictId,
                null,
                id,
                status,
                diffs,
                sh,
                th,
                sh == null ? null : new Instant(eventTime),
                th == null ? null : new Instant(eventTime),
                sh == null ? null : pointer(Side.SOURCE, id, sh, i),
                th == null ? null : pointer(Side.TARGET, id, th, i),
                new Instant(detected),
                runId);
        writer.write(d, new Instant(eventTime));
        if (status == Status.MISMATCH && random.nextDouble() < 0.01 && i + 1 < rows) {
          // A new version resolved it: a MATCH that supersedes the mismatch.
          i++;
          writer.write(
              new DeltaRecord(
                  hash(random, hex),
                  verdictId,
                  id,
                  Status.MATCH,
                  List.of(),
                  th,
                  th,
                  new Instant(eventTime + 5000),
                  new Instant(eventTime),
                  pointer(Side.SOURCE, id, th, i),
                  pointer(Side.TARGET, id, th, i),
                  new Instant(detected + 5000),
                  runId),
              new Instant(eventTime + 5000));
        }
        if ((i + 1) % rowsPerFile == 0) {
          files += writer.finishFiles().size();
        }
      }
      files += writer.finishFiles().size();
      // The app id a run's writer of this table would give its commits.
      writer.commit("streamrecon/" + runId + "/" + WarehouseTables.DELTAS + "/synthetic", 0);
    }
    return files;
  }

  private static String hash(SplittableRandom random, HexFormat hex) {
    byte[] b = new byte[32];
    random.nextBytes(b);
    return hex.formatHex(b);
  }

  private static Pointer pointer(Side side, String id, String hash, long row) {
    return new Pointer(
        0,
        "side=" + side + "/event_date=2024-03-01/part-synthetic.snappy.parquet",
        row,
        side,
        id,
        hash);
  }
}
