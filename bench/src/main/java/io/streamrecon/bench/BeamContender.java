package io.streamrecon.bench;

import io.streamrecon.deltalake.DeltaLakeTables;
import io.streamrecon.model.DeltaRecord;
import io.streamrecon.model.MetricNames;
import io.streamrecon.model.Status;
import io.streamrecon.pipeline.ReconcileOptions;
import io.streamrecon.pipeline.run.ReconcileRun;
import io.streamrecon.runners.spark.SparkSupport;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.beam.runners.spark.SparkContextOptions;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.metrics.MetricNameFilter;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.MetricsFilter;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;

/**
 * Contenders 2 and 3: streamrecon itself, {@link ReconcilePipeline} on the generated files, on the
 * DirectRunner or on the SparkRunner {@code local[2]}, batch. {@code --emitMatches=true} so that
 * the deltas table holds every verdict and the final ones can be told apart (a MATCH that
 * supersedes a MISMATCH must be visible); the peer writes its MATCH verdicts as well.
 */
final class BeamContender {
  private final Path dataDir;
  private final Expected expected;
  private final Path work;
  private final boolean spark;
  private final List<String> pipelineArgs;

  double startupSeconds;
  long payloadFetches;
  long mismatchesEmitted;
  long matchesEmitted;
  final Map<String, Object> extra = new LinkedHashMap<>();

  BeamContender(
      Path dataDir, Expected expected, Path work, boolean spark, List<String> pipelineArgs) {
    this.dataDir = dataDir;
    this.expected = expected;
    this.work = work;
    this.spark = spark;
    this.pipelineArgs = List.copyOf(pipelineArgs);
  }

  Path warehouse() {
    return work.resolve("warehouse");
  }

  VerdictCounts run() throws Exception {
    long t0 = System.nanoTime();
    List<String> args = new ArrayList<>(commonArgs(dataDir, expected, warehouse()));
    JavaSparkContext jsc = null;
    if (spark) {
      args.add("--runner=SparkRunner");
      args.add("--sparkMaster=local[2]");
    } else {
      args.add("--runner=DirectRunner");
    }
    args.addAll(pipelineArgs);
    ReconcileOptions options =
        PipelineOptionsFactory.fromArgs(args.toArray(String[]::new))
            .withValidation()
            .as(ReconcileOptions.class);
    // As the command line runs it.
    ReconcileRun.skipDirectRunnerChecks(options);
    if (spark) {
      // What the runner's own context would get (it reads system properties when made).
      new SparkSupport().tune(options);
      // Started here so that its start-up is measured apart, as the peer's SparkSession is.
      jsc =
          new JavaSparkContext(
              new SparkConf()
                  .setMaster("local[2]")
                  .setAppName("streamrecon-bench-spark")
                  .set("spark.ui.enabled", "false"));
      SparkContextOptions sco = options.as(SparkContextOptions.class);
      sco.setUsesProvidedSparkContext(true);
      sco.setProvidedSparkContext(jsc);
    }
    startupSeconds = (System.nanoTime() - t0) / 1e9;
    try {
      ReconcileRun.FinishedRun finished = ReconcileRun.run(options);
      readMetrics(finished.result());
    } finally {
      if (jsc != null) {
        jsc.stop();
      }
    }
    return finalCounts();
  }

  /**
   * The pipeline options every Beam contender runs with, whatever the runner: the generated files,
   * the generator's pairing timeout, every verdict (MATCH included) in the deltas table, no
   * progress lines.
   */
  static List<String> commonArgs(Path dataDir, Expected expected, Path warehouse) {
    return List.of(
        "--source=" + dataDir.resolve(Generator.SOURCE_DIR) + "/*.jsonl",
        "--target=" + dataDir.resolve(Generator.TARGET_DIR) + "/*.jsonl",
        "--warehouse=" + warehouse,
        "--timeout=" + expected.config().timeout().toMillis() + "ms",
        "--emitMatches=true",
        "--runId=bench",
        "--progressInterval=0s");
  }

  private void readMetrics(PipelineResult result) {
    Map<String, Long> counters = new LinkedHashMap<>();
    for (MetricResult<Long> c :
        result
            .metrics()
            .queryMetrics(
                MetricsFilter.builder()
                    .addNameFilter(MetricNameFilter.inNamespace(MetricNames.NAMESPACE))
                    .build())
            .getCounters()) {
      Long v;
      try {
        v = c.getCommitted();
      } catch (UnsupportedOperationException e) {
        v = null;
      }
      if (v == null) {
        v = c.getAttempted();
      }
      counters.merge(c.getName().getName(), v == null ? 0 : v, Long::sum);
    }
    extra.put("metrics", counters);
    payloadFetches = fetchCounter(counters);
    mismatchesEmitted = counters.getOrDefault("mismatch", 0L);
    matchesEmitted = counters.getOrDefault("match", 0L);
  }

  /** The fetch counter DeltaLakeIO keeps (payloads read back), whatever its exact name. */
  private static long fetchCounter(Map<String, Long> counters) {
    for (String name : List.of("lookup_rows_read", "payloads_fetched")) {
      if (counters.containsKey(name)) {
        return counters.get(name);
      }
    }
    return -1;
  }

  /** Final verdicts from the deltas table; duplicates and late events from the pairing metrics. */
  private VerdictCounts finalCounts() {
    @SuppressWarnings("unchecked")
    Map<String, Long> m = (Map<String, Long>) extra.get("metrics");
    return finalCounts(
        warehouse(), m.getOrDefault("duplicate", 0L), m.getOrDefault("late", 0L), extra);
  }

  /**
   * Final verdicts of a Beam run from its warehouse's deltas table: the rows no other row
   * supersedes (which is why the contenders run with {@code --emitMatches=true}: a MATCH that
   * supersedes a MISMATCH must be visible). The table holds no duplicates or late events, so the
   * caller gives the pairing's counts of them. Puts the deltas table's row count into {@code extra}
   * as {@code deltasRows}.
   */
  static VerdictCounts finalCounts(
      Path warehouse, long duplicates, long late, Map<String, Object> extra) {
    List<DeltaRecord> rows = DeltaLakeTables.readDeltas(warehouse.toString());
    Set<String> superseded = new HashSet<>();
    for (DeltaRecord r : rows) {
      if (r.supersedes() != null) {
        superseded.add(r.supersedes());
      }
    }
    Map<Status, Long> finals = new EnumMap<>(Status.class);
    for (DeltaRecord r : rows) {
      if (!superseded.contains(r.verdictId())) {
        finals.merge(r.status(), 1L, Long::sum);
      }
    }
    extra.put("deltasRows", (long) rows.size());
    return new VerdictCounts(
        finals.getOrDefault(Status.MATCH, 0L),
        finals.getOrDefault(Status.MISMATCH, 0L),
        finals.getOrDefault(Status.MISSING_IN_TARGET, 0L),
        finals.getOrDefault(Status.MISSING_IN_SOURCE, 0L),
        duplicates,
        late);
  }
}
