package io.streamrecon.bench.deltalake;

import io.streamrecon.deltalake.DeltaLakeAppender;
import io.streamrecon.deltalake.DeltaLakeLookup;
import io.streamrecon.deltalake.DeltaLakeMaintenance;
import io.streamrecon.deltalake.DeltaLakeSnapshot;
import io.streamrecon.deltalake.WarehouseTables;
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
 * {@code explain --naturalId} on a large {@code raw_events} table: {@code --rows} events in {@code
 * --files} files (one commit each, natural ids drawn at random over the whole key space, as a
 * streaming run writes them, so file-level min/max stats rarely exclude a file), then the command's
 * wall time for keys that exist, before and after {@code compact}.
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

  @Option(
      names = "--compact",
      defaultValue = "true",
      arity = "1",
      description = "compact, then measure again")
  boolean compact;

  @Option(
      names = "--bloomFilter",
      defaultValue = "true",
      arity = "1",
      description = "write natural_id bloom filters (false: as before they existed, to compare)")
  boolean bloomFilter;

  @Override
  public Integer call() throws Exception {
    Files.createDirectories(dir);
    String warehouse = dir.toString();
    Configuration conf = new Configuration();
    java.lang.management.ThreadMXBean threads =
        java.lang.management.ManagementFactory.getThreadMXBean();
    long writeCpu = 0;
    Random random = new Random(42);
    int perFile = rows / files;
    long keySpace = rows / 2L;
    long t0 = System.nanoTime();
    Instant start = Instant.parse("2024-03-01T00:00:00Z");
    long bytes = 0;
    // An existing table (from an earlier run) is measured as it is.
    boolean exists =
        Files.isDirectory(dir.resolve(WarehouseTables.RAW_EVENTS).resolve("_delta_log"));
    // Bloom filters sized as a run's writer sizes them: the default for its first bundle, then the
    // rows of the previous bundle's largest file.
    DeltaLakeAppender<Event> appender = DeltaLakeAppender.rawEvents(conf, warehouse, "bench");
    if (!bloomFilter) {
      appender = appender.withoutBloomFilters();
    }
    try (DeltaLakeAppender<Event> first = appender;
        DeltaLakeAppender<Event> rest = appender.withExpectedRowsPerFile(Math.max(1, perFile))) {
      for (int f = 0; exists ? false : f < files; f++) {
        DeltaLakeAppender<Event> w = f == 0 ? first : rest;
        long cpu0 = threads.getCurrentThreadCpuTime();
        for (int i = 0; i < perFile; i++) {
          long n = (long) f * perFile + i;
          String id = String.format("ord-%08d", (long) (random.nextDouble() * keySpace));
          byte[] payload =
              ("{\"id\":\""
                      + id
                      + "\",\"n\":"
                      + n
                      + ",\"status\":\"PAID\",\"amount\":"
                      + (n % 1000)
                      + ".25,\"customer\":{\"id\":\"c-"
                      + (n % 977)
                      + "\",\"city\":\"Lyon\"}}")
                  .getBytes(StandardCharsets.UTF_8);
          Instant t = start.plus(n * 100);
          w.write(
              new Event(
                  Side.SOURCE,
                  id,
                  t,
                  String.format("%064x", n),
                  payload,
                  Origin.kafka("bench", 0, n)),
              t);
        }
        List<DeltaLakeSnapshot.TableFile> written = w.finishFiles();
        writeCpu += threads.getCurrentThreadCpuTime() - cpu0;
        bytes += written.stream().mapToLong(DeltaLakeSnapshot.TableFile::size).sum();
        w.commit("bench", f);
      }
    }
    if (exists) {
      System.out.println("measuring the existing table under " + dir);
    } else {
      System.out.printf(
          "wrote %,d rows in %d files (%,d bytes, %d commits, bloom filters %s) in %.0f s;"
              + " writing the Parquet files took %.1f s of CPU (commits excluded)%n",
          rows,
          files,
          bytes,
          files,
          bloomFilter ? "on" : "off",
          (System.nanoTime() - t0) / 1e9,
          writeCpu / 1e9);
    }
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
        DeltaLakeMaintenance.compact(
            conf,
            warehouse,
            WarehouseTables.RAW_EVENTS,
            DeltaLakeMaintenance.DEFAULT_TARGET_FILE_SIZE);
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
        code =
            io.streamrecon.pipeline.cli.StreamRecon.execute(
                "explain", "--naturalId=" + keys.get(i), "--warehouse=" + warehouse);
      } finally {
        System.setOut(out);
      }
      ms[i] = (System.nanoTime() - t) / 1e6;
      cpu[i] = (processCpuNanos() - c) / 1e6;
      if (code != 0) {
        throw new IllegalStateException("explain exited " + code);
      }
    }
    double[] lookupMs = new double[keys.size()];
    for (int i = 0; i < keys.size(); i++) {
      long t = System.nanoTime();
      DeltaLakeLookup.findRawEvents(warehouse, keys.get(i), cost);
      lookupMs[i] = (System.nanoTime() - t) / 1e6;
    }
    Arrays.sort(lookupMs);
    double[] sorted = ms.clone();
    Arrays.sort(sorted);
    System.out.printf(
        "%s: explain --naturalId wall time ms %s (median %.0f, max %.0f); the raw_events lookup"
            + " alone: median %.0f ms, read the footers of %d of %d files and the rows of %d%n",
        label,
        Arrays.toString(Arrays.stream(ms).map(Math::rint).toArray()),
        sorted[sorted.length / 2],
        sorted[sorted.length - 1],
        lookupMs[lookupMs.length / 2],
        cost[0].filesOpened(),
        cost[0].filesInSnapshot(),
        cost[0].filesRead());
    double[] cpuSorted = cpu.clone();
    Arrays.sort(cpuSorted);
    System.out.printf(
        "%s: CPU time of the JVM during each explain ms %s (median %.0f); load average %s%n",
        label,
        Arrays.toString(Arrays.stream(cpu).map(Math::rint).toArray()),
        cpuSorted[cpu.length / 2],
        java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean)
            java.lang.management.ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }
}
