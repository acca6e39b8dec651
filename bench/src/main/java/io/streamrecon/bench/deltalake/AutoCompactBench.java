package io.streamrecon.bench.deltalake;

import io.streamrecon.deltalake.DeltaLakeSnapshot;
import io.streamrecon.deltalake.WarehouseTables;
import io.streamrecon.model.Event;
import io.streamrecon.model.Origin;
import io.streamrecon.model.Side;
import io.streamrecon.transforms.ModelCoders.EventCoder;
import io.streamrecon.transforms.deltalake.DeltaLakeIO;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.io.GenerateSequence;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.options.StreamingOptions;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.values.TypeDescriptor;
import org.apache.hadoop.conf.Configuration;
import org.joda.time.Duration;
import org.joda.time.Instant;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * A streaming DirectRunner write of raw events at a fixed rate for {@code --minutes}, with or
 * without {@code withAutoCompact}: prints, every {@code --sampleSeconds}, the table's live file
 * count, mean file size and rows committed, and at the end the rows committed per second and the
 * JVM's CPU time per committed row (the throughput cost).
 */
@Command(name = "autocompact", description = "Streaming writes with and without auto-compaction.")
public final class AutoCompactBench implements Callable<Integer> {
  @Option(names = "--dir", required = true, description = "empty scratch directory")
  Path dir;

  @Option(names = "--minutes", defaultValue = "5")
  double minutes;

  @Option(names = "--rate", defaultValue = "500", description = "events per second offered")
  long rate;

  @Option(
      names = "--autoCompact",
      defaultValue = "0",
      description = "small-file threshold; 0 = off")
  int autoCompact;

  @Option(names = "--commitInterval", defaultValue = "5")
  int commitSeconds;

  @Option(names = "--sampleSeconds", defaultValue = "60")
  int sampleSeconds;

  @Override
  public Integer call() throws Exception {
    NoForkLocalFileSystem.install();
    Files.createDirectories(dir);
    String warehouse = dir.toString();
    StreamingOptions options = PipelineOptionsFactory.as(StreamingOptions.class);
    options.setStreaming(true);
    options.setRunner(DirectRunner.class);
    // run() must return, so that the table can be sampled while the stream runs.
    options.as(org.apache.beam.runners.direct.DirectOptions.class).setBlockOnRun(false);
    Pipeline p = Pipeline.create(options);
    DeltaLakeIO.WriteRawEvents write =
        DeltaLakeIO.writeRawEvents()
            .withWarehouse(warehouse)
            .withRunId("bench-autocompact")
            .withCommitInterval(Duration.standardSeconds(commitSeconds));
    if (autoCompact > 0) {
      write = write.withAutoCompact(autoCompact);
    }
    p.apply("Sequence", GenerateSequence.from(0).withRate(rate, Duration.standardSeconds(1)))
        .apply(
            "ToEvent",
            MapElements.into(TypeDescriptor.of(Event.class)).via(AutoCompactBench::event))
        .setCoder(EventCoder.of())
        .apply("Write", write);
    long cpu0 = cpuNanos();
    long t0 = System.nanoTime();
    PipelineResult result = p.run();
    Configuration conf = new Configuration();
    org.apache.hadoop.fs.Path root =
        new org.apache.hadoop.fs.Path(warehouse, WarehouseTables.RAW_EVENTS);
    long end = t0 + (long) (minutes * 60e9);
    System.out.printf(
        "autoCompact=%s rate=%d/s commitInterval=%ds; load average at start %.1f%n",
        autoCompact == 0 ? "off" : autoCompact, rate, commitSeconds, load());
    System.out.println(
        "| minute | table version | live files | mean file KB | rows committed | load |");
    System.out.println("|---|---|---|---|---|---|");
    long rows = 0;
    double fileSum = 0;
    int samples = 0;
    while (System.nanoTime() < end) {
      Thread.sleep(
          Math.min(sampleSeconds * 1000L, Math.max(1, (end - System.nanoTime()) / 1_000_000)));
      DeltaLakeSnapshot s = DeltaLakeSnapshot.latest(conf, root);
      if (s == null) {
        continue;
      }
      long files = 0;
      long bytes = 0;
      rows = 0;
      for (DeltaLakeSnapshot.TableFile f : s.files()) {
        files++;
        bytes += f.size();
        rows += TableRows.numRecords(f.stats());
      }
      fileSum += files;
      samples++;
      System.out.printf(
          "| %.1f | %d | %d | %.1f | %,d | %.1f |%n",
          (System.nanoTime() - t0) / 60e9,
          s.version(),
          files,
          files == 0 ? 0 : bytes / 1024.0 / files,
          rows,
          load());
    }
    long cpu = cpuNanos() - cpu0;
    double seconds = (System.nanoTime() - t0) / 1e9;
    result.cancel();
    System.out.printf(
        "rows committed %,d in %.0f s: %.0f rows/s (offered %d/s); mean live files over the samples"
            + " %.0f; JVM CPU %.1f s = %.1f ms per 1,000 rows%n",
        rows,
        seconds,
        rows / seconds,
        rate,
        fileSum / Math.max(1, samples),
        cpu / 1e9,
        rows == 0 ? 0 : cpu / 1e6 / (rows / 1000.0));
    return 0;
  }

  private static Event event(Long n) {
    String id = String.format("ord-%08d", (n * 7919) % 100_000_000L);
    byte[] payload =
        ("{\"id\":\""
                + id
                + "\",\"n\":"
                + n
                + ",\"status\":\"PAID\",\"amount\":"
                + (n % 1000)
                + ".25}")
            .getBytes(StandardCharsets.UTF_8);
    return new Event(
        n % 2 == 0 ? Side.SOURCE : Side.TARGET,
        id,
        Instant.now(),
        String.format("%064x", n),
        payload,
        Origin.kafka("bench", 0, n));
  }

  private static double load() {
    return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
  }

  private static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }
}
