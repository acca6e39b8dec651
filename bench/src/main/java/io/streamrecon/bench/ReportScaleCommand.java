package io.streamrecon.bench;

import io.streamrecon.bench.deltalake.SyntheticDeltas;
import io.streamrecon.deltalake.WarehouseTables;
import io.streamrecon.pipeline.cli.StreamRecon;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bin/bench report-scale}: writes a synthetic deltas table of {@code --rows} rows with the
 * project's Delta Lake writer (unless the warehouse already has one) and times {@code streamrecon
 * report} on it, in this JVM, printing the figures.
 */
@Command(
    name = "report-scale",
    description = "Times streamrecon report on a synthetic deltas table of N rows.")
final class ReportScaleCommand implements Callable<Integer> {
  @Option(names = "--warehouse", required = true, description = "warehouse dir (created if absent)")
  Path warehouse;

  @Option(names = "--rows", defaultValue = "1000000")
  long rows;

  @Option(names = "--rows-per-file", defaultValue = "50000")
  int rowsPerFile;

  @Option(names = "--span-hours", defaultValue = "168", description = "event-time span")
  int spanHours;

  @Option(names = "--repeat", defaultValue = "2", description = "report runs (the first warms up)")
  int repeat;

  @Override
  public Integer call() throws Exception {
    if (!Files.isDirectory(warehouse.resolve(WarehouseTables.DELTAS).resolve("_delta_log"))) {
      long t0 = System.nanoTime();
      int files =
          SyntheticDeltas.write(
              warehouse.toString(), "bench-report", rows, rowsPerFile, spanHours, 7);
      System.out.printf(
          Locale.ROOT,
          "generated %,d deltas rows in %d files in %.1f s%n",
          rows,
          files,
          (System.nanoTime() - t0) / 1e9);
    }
    long bytes;
    try (Stream<Path> s = Files.walk(warehouse.resolve(WarehouseTables.DELTAS))) {
      bytes =
          s.filter(p -> p.toString().endsWith(".parquet"))
              .mapToLong(p -> p.toFile().length())
              .sum();
    }
    System.out.printf(Locale.ROOT, "deltas data files: %,d bytes%n", bytes);
    Path out = warehouse.resolve("report.html");
    for (int i = 1; i <= repeat; i++) {
      long t0 = System.nanoTime();
      long cpu0 = processCpuNanos();
      int code = StreamRecon.execute("report", "--warehouse=" + warehouse, "--out=" + out);
      double seconds = (System.nanoTime() - t0) / 1e9;
      double cpu = (processCpuNanos() - cpu0) / 1e9;
      long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
      System.out.printf(
          Locale.ROOT,
          "report run %d: exit %d, %.1f s wall, %.1f s CPU (all threads, GC included),"
              + " heap used after %,d MB, page %,d bytes%n",
          i,
          code,
          seconds,
          cpu,
          heap >> 20,
          Files.size(out));
      if (code != 0) {
        return code;
      }
    }
    return 0;
  }

  /** CPU time of this JVM (all threads): the cost that does not depend on the machine's load. */
  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }
}
