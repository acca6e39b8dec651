package io.streamrecon.deltalake;

import io.streamrecon.model.Event;
import io.streamrecon.model.Origin;
import io.streamrecon.model.Side;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import org.apache.hadoop.conf.Configuration;
import org.joda.time.Instant;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code explain --naturalId} on a large {@code raw_events} table: {@code --rows} events in
 * {@code --files} files (one commit each, natural ids drawn at random over the whole key space, as
 * a streaming run writes them, so file-level min/max stats rarely exclude a file), then the
 * command's wall time for keys that exist, before and after {@code compact}.
 */
@Command(name = "explainlookup", description = "explain --naturalId on a large raw_events table.")
public final class ExplainLookupBench implements Callable<Integer> {
  @Option(names = "--dir", required = true, description = "empty scratch directory")
  Path dir;

  @Option(names = "--rows", defaultValue = "1000000")
  int rows;

  @Option(names = "--files", defaultValue = "100")
  int files;

  @Option(names = "--lookups", defaultValue = "5")
  int lookups;

  @Option(names = "--compact", defaultValue = "true", arity = "1", description = "compact, then measure again")
  boolean compact;

  @Override
  public Integer call() throws Exception {
    Files.createDirectories(dir);
    String warehouse = dir.toString();
    Configuration conf = new Configuration();
    DeltaLakeCommitter committer = new DeltaLakeCommitter(conf, warehouse, TableLayouts.RAW_EVENTS);
    Random random = new Random(42);
    int perFile = rows / files;
    long keySpace = rows / 2L;
    long t0 = System.nanoTime();
    Instant start = Instant.parse("2024-03-01T00:00:00Z");
    long bytes = 0;
    // An existing table (from an earlier run) is measured as it is.
    boolean exists = Files.isDirectory(dir.resolve("raw_events").resolve("_delta_log"));
    for (int f = 0; exists ? false : f < files; f++) {
      try (DataFileWriter<Event> w =
          new DataFileWriter<>(conf, DeltaLakeCommitter.tablePath(warehouse, DeltaLakeIO.RAW_EVENTS), TableLayouts.RAW_EVENTS, "bench")) {
        for (int i = 0; i < perFile; i++) {
          long n = (long) f * perFile + i;
          String id = String.format("ord-%08d", (long) (random.nextDouble() * keySpace));
          byte[] payload =
              ("{\"id\":\"" + id + "\",\"n\":" + n + ",\"status\":\"PAID\",\"amount\":" + (n % 1000) + ".25,"
                      + "\"customer\":{\"id\":\"c-" + (n % 977) + "\",\"city\":\"Lyon\"}}")
                  .getBytes(StandardCharsets.UTF_8);
          Instant t = start.plus(n * 100);
          w.write(new Event(Side.SOURCE, id, t, String.format("%064x", n), payload, Origin.kafka("bench", 0, n)), t);
        }
        List<DataFile> written = w.finish();
        bytes += written.stream().mapToLong(DataFile::sizeBytes).sum();
        committer.commit("bench", f, written);
      }
    }
    System.out.printf(
        "wrote %,d rows in %d files (%,d bytes, %d commits) in %.0f s%n",
        rows, files, bytes, files, (System.nanoTime() - t0) / 1e9);
    List<String> keys = new ArrayList<>();
    Random pick = new Random(7);
    List<java.util.Map<String, Object>> probe;
    while (keys.size() < lookups) {
      String id = String.format("ord-%08d", (long) (pick.nextDouble() * keySpace));
      probe = DeltaLakeLookup.findRawEvents(warehouse, id);
      if (!probe.isEmpty()) {
        keys.add(id);
      }
    }
    measure("before compaction", warehouse, keys);
    if (!compact) {
      return 0;
    }
    long c0 = System.nanoTime();
    DeltaLakeMaintenance.CompactResult r =
        DeltaLakeMaintenance.compact(conf, warehouse, DeltaLakeIO.RAW_EVENTS, DeltaLakeMaintenance.DEFAULT_TARGET_FILE_SIZE);
    System.out.printf("compact: %s in %.0f s%n", r.describe(), (System.nanoTime() - c0) / 1e9);
    measure("after compaction", warehouse, keys);
    return 0;
  }

  private static void measure(String label, String warehouse, List<String> keys) {
    double[] ms = new double[keys.size()];
    double[] cpu = new double[keys.size()];
    DeltaLakeLookup.Cost[] cost = new DeltaLakeLookup.Cost[1];
    for (int i = 0; i < keys.size(); i++) {
      long t = System.nanoTime();
      long c = processCpuNanos();
      PrintStream out = System.out;
      System.setOut(new PrintStream(OutputStream.nullOutputStream()));
      int code;
      try {
        code = io.streamrecon.pipeline.StreamRecon.execute("explain", "--naturalId=" + keys.get(i), "--warehouse=" + warehouse);
      } finally {
        System.setOut(out);
      }
      ms[i] = (System.nanoTime() - t) / 1e6;
      cpu[i] = (processCpuNanos() - c) / 1e6;
      if (code != 0) {
        throw new IllegalStateException("explain exited " + code);
      }
    }
    DeltaLakeLookup.findRawEvents(warehouse, keys.get(0), cost);
    double[] sorted = ms.clone();
    Arrays.sort(sorted);
    System.out.printf(
        "%s: explain --naturalId wall time ms %s (median %.0f, max %.0f); lookup opened %d of %d files%n",
        label, Arrays.toString(Arrays.stream(ms).map(Math::rint).toArray()), sorted[sorted.length / 2],
        sorted[sorted.length - 1], cost[0].filesOpened(), cost[0].filesInSnapshot());
    double[] cpuSorted = cpu.clone();
    Arrays.sort(cpuSorted);
    System.out.printf(
        "%s: CPU time of the JVM during each explain ms %s (median %.0f); load average %s%n",
        label, Arrays.toString(Arrays.stream(cpu).map(Math::rint).toArray()), cpuSorted[cpu.length / 2],
        java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean)
            java.lang.management.ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }
}
