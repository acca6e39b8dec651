package io.streamrecon.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * One contender on one data set, in a JVM of its own (forked by {@link BenchMain}) so that peak
 * heap and JIT state belong to that contender alone. Writes a {@link RunResult} as JSON.
 */
@Command(name = "contender", description = "Runs one contender on one generated data set.")
public final class ContenderMain implements Callable<Integer> {
  @Option(
      names = "--contender",
      required = true,
      description = "bare, direct, spark, peer or flink")
  String contender;

  @Option(names = "--data", required = true, description = "generated data set directory")
  Path data;

  @Option(names = "--work", required = true, description = "empty directory for tables and state")
  Path work;

  @Option(names = "--result", required = true, description = "where to write the result JSON")
  Path result;

  @Option(names = "--rules", description = "comparison rules file (bare contender only)")
  Path rules;

  @Option(
      names = "--pipeline-arg",
      description =
          "extra pipeline option (direct, spark and flink only), repeatable, e.g."
              + " --pipeline-arg=--storageLevel=MEMORY_AND_DISK_SER")
  java.util.List<String> pipelineArgs = new java.util.ArrayList<>();

  @Option(
      names = "--xmx",
      description = "heap of the pipeline JVM (flink only); default: this JVM's -Xmx, else 8g")
  String xmx;

  @Option(names = "--jfr", description = "JFR recording of the pipeline JVM (flink only)")
  Path jfr;

  @Option(
      names = "--flink-root",
      description =
          "repository root where the Flink jars are built (flink only); default: the"
              + " working directory")
  Path flinkRoot;

  public static void main(String[] args) {
    System.exit(new CommandLine(new ContenderMain()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    if (contender.equals("flink")) {
      String absent =
          FlinkContender.missing((flinkRoot != null ? flinkRoot : Path.of("")).toAbsolutePath());
      if (absent != null) {
        System.err.println(absent);
        return 1;
      }
    }
    Expected expected = Expected.read(data.resolve(Generator.EXPECTED));
    Files.createDirectories(work);
    String name = data.getFileName().toString();
    RunResult r;
    try (HeapMonitor heap = new HeapMonitor()) {
      long start = System.nanoTime();
      switch (contender) {
        case "bare" -> {
          BareContender bare =
              new BareContender(
                  data,
                  expected,
                  rules == null
                      ? io.streamrecon.json.ComparisonRules.none()
                      : io.streamrecon.json.ComparisonRules.fromFile(rules.toString()));
          java.lang.management.ThreadMXBean threads =
              java.lang.management.ManagementFactory.getThreadMXBean();
          long cpuStart = threads.getCurrentThreadCpuTime();
          VerdictCounts counts = bare.run();
          double wall = (System.nanoTime() - start) / 1e9;
          // The bare contender is one thread: its CPU time is the cost of the logic, whatever
          // else the machine runs (wall time on a shared machine is noisy).
          double cpu = (threads.getCurrentThreadCpuTime() - cpuStart) / 1e9;
          Map<String, Object> extra = new LinkedHashMap<>();
          extra.put("superseded", bare.superseded);
          extra.put("differences", bare.differences);
          extra.put("parseErrors", bare.parseErrors);
          extra.put("maxOpenEntries", bare.maxOpenEntries);
          extra.put("threadCpuSeconds", cpu);
          if (rules != null) {
            extra.put("rules", rules.toString());
            extra.put("matchesWithinTolerance", bare.matchesWithinTolerance);
          }
          r =
              new RunResult(
                  "bare",
                  name,
                  "streaming",
                  expected.records(),
                  expected.events(),
                  expected.payloadBytes(),
                  wall,
                  0,
                  heap.peak(),
                  heap.peakLive(),
                  0,
                  0,
                  0,
                  bare.mismatchesEmitted,
                  bare.matchesEmitted,
                  counts,
                  extra);
        }
        case "peer" -> {
          PeerContender peer = new PeerContender(data, expected, work);
          VerdictCounts counts = peer.run();
          double wall = (System.nanoTime() - start) / 1e9;
          DeltaLakeLogStats raw = DeltaLakeLogStats.of(Path.of(peer.rawTable()));
          DeltaLakeLogStats deltas = DeltaLakeLogStats.of(Path.of(peer.deltasTable()));
          Map<String, Object> extra = new LinkedHashMap<>();
          extra.put("superseded", peer.superseded);
          extra.put("microBatches", peer.batches.get());
          extra.put("rawEventsFiles", raw.filesAdded());
          extra.put("rawEventsCommits", raw.commits());
          extra.put("rawEventsBytes", raw.bytesAdded());
          extra.put("deltasFiles", deltas.filesAdded());
          extra.put("deltasCommits", deltas.commits());
          extra.put("fetchSeconds", peer.fetchNanos.get() / 1e9);
          extra.put("stateRowsPeak", peer.stateRowsPeak);
          extra.put("stateMemoryPeakBytes", peer.stateMemoryPeak);
          extra.put("sparkDurationsMs", peer.durations);
          DeltaLakeLogStats all = raw.plus(deltas);
          r =
              new RunResult(
                  "peer",
                  name,
                  "streaming",
                  expected.records(),
                  expected.events(),
                  expected.payloadBytes(),
                  wall,
                  peer.startupSeconds,
                  heap.peak(),
                  heap.peakLive(),
                  all.filesAdded(),
                  all.commits(),
                  peer.fetches.get(),
                  peer.mismatchesEmitted.get(),
                  peer.matchesEmitted.get(),
                  counts,
                  extra);
        }
        case "direct", "spark" -> {
          BeamContender beam =
              new BeamContender(data, expected, work, contender.equals("spark"), pipelineArgs);
          VerdictCounts counts = beam.run();
          double wall = (System.nanoTime() - start) / 1e9;
          DeltaLakeLogStats all = DeltaLakeLogStats.ofWarehouse(beam.warehouse());
          r =
              new RunResult(
                  contender,
                  name,
                  "batch",
                  expected.records(),
                  expected.events(),
                  expected.payloadBytes(),
                  wall,
                  beam.startupSeconds,
                  heap.peak(),
                  heap.peakLive(),
                  all.filesAdded(),
                  all.commits(),
                  beam.payloadFetches,
                  beam.mismatchesEmitted,
                  beam.matchesEmitted,
                  counts,
                  beam.extra);
        }
        case "flink" -> {
          // The pipeline runs in a JVM of its own: this JVM's heap is not the contender's.
          Path gcLog = result.toAbsolutePath().resolveSibling("flink-gc.log");
          FlinkContender flink =
              new FlinkContender(
                  data.toAbsolutePath(),
                  expected,
                  work.toAbsolutePath(),
                  (flinkRoot != null ? flinkRoot : Path.of("")).toAbsolutePath(),
                  xmx != null ? xmx : ownXmx(),
                  gcLog,
                  jfr == null ? null : jfr.toAbsolutePath(),
                  pipelineArgs);
          VerdictCounts counts = flink.run();
          double wall = (System.nanoTime() - start) / 1e9;
          DeltaLakeLogStats all = DeltaLakeLogStats.ofWarehouse(flink.warehouse());
          r =
              new RunResult(
                  "flink",
                  name,
                  "batch",
                  expected.records(),
                  expected.events(),
                  expected.payloadBytes(),
                  wall,
                  flink.startupSeconds,
                  flink.peakHeapBytes,
                  flink.peakLiveHeapBytes,
                  all.filesAdded(),
                  all.commits(),
                  -1,
                  flink.mismatchesEmitted,
                  flink.matchesEmitted,
                  counts,
                  flink.extra);
        }
        default ->
            throw new IllegalArgumentException(
                "--contender must be bare, direct, spark, peer or flink, was " + contender);
      }
    }
    r.write(result);
    System.out.printf(
        "%s %s: %.1f s, %.0f events/s, %s%s%n",
        r.contender(),
        name,
        r.wallSeconds(),
        r.eventsPerSecond(),
        r.counts().brief(),
        r.extra().containsKey("threadCpuSeconds")
            ? String.format(
                " (thread CPU %.1f s, %.0f events per CPU second)",
                (double) r.extra().get("threadCpuSeconds"),
                r.events() / (double) r.extra().get("threadCpuSeconds"))
            : "");
    return 0;
  }

  /** This JVM's {@code -Xmx} (as bin/bench run gave it), for the pipeline JVM it starts. */
  private static String ownXmx() {
    String xmx = "8g";
    for (String a : java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (a.startsWith("-Xmx")) {
        xmx = a.substring(4);
      }
    }
    return xmx;
  }
}
