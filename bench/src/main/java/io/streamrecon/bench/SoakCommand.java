package io.streamrecon.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamrecon.bench.deltalake.DataFileCommits;
import io.streamrecon.bench.deltalake.TableRows;
import io.streamrecon.deltalake.DeltaLakeTables;
import io.streamrecon.deltalake.DeltaLakeTables.StoredDeltaRecord;
import io.streamrecon.deltalake.WarehouseTables;
import io.streamrecon.model.Status;
import io.streamrecon.pipeline.DurationParser;
import io.streamrecon.pipeline.testing.ChildProcesses;
import io.streamrecon.pipeline.testing.KafkaBrokerProcess;
import io.streamrecon.runners.spark.SparkSupport;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.common.config.TopicConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The state soak: a real broker in its own JVM, {@link SoakProducer} producing a steady stream of
 * distinct natural ids to both topics, and the pipeline in its own JVM (SparkRunner {@code
 * local[2]} streaming, FlinkRunner {@code [local]}, or the Structured Streaming peer {@link
 * PeerStream}); every {@code --sampleSeconds} a row of what decides whether state stays bounded:
 * micro-batch processing time (Spark's REST API), heap after a full GC (forced with {@code jcmd
 * GC.run}, read from the JVM's GC log), bytes under the checkpoint directory, the runner keys the
 * pairing has seen, and how far storage lags behind the producer. At the end it waits for the last
 * verdicts, compares the counts with what the producer generated, and reports the verdict latency
 * ({@link VerdictLatency}: from the later Kafka append time of a pair, or from a missing entry's
 * event time plus the timeout, to the commit of the verdict's row in {@code deltas}) in {@code
 * latency.md}. With {@code --targetLag}, {@code --targetBurstEvery} and {@code --prefillSource} the
 * target runs behind or comes in bursts and the pipeline holds that much more open state ({@link
 * SoakProducer}).
 */
@Command(name = "soak", description = "Streaming soak on a real broker: state, heap, batch time.")
public final class SoakCommand implements Callable<Integer> {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Pattern FULL_GC =
      Pattern.compile(
          "Pause Full \\((?:System\\.gc\\(\\)|Diagnostic Command)\\) (\\d+)M->(\\d+)M\\((\\d+)M\\)");
  static final Pattern RUN_LINE =
      Pattern.compile("Reconcile(Pipeline|Run)\\W+(run run-|progress: )|PeerStream started");

  @Option(names = "--dir", required = true, description = "empty scratch directory (kept)")
  Path dir;

  @Option(
      names = "--engine",
      defaultValue = "spark",
      description =
          "spark (streamrecon, SparkRunner local[2]), flink (streamrecon, FlinkRunner"
              + " [local]) or peer (the Structured Streaming peer reading Kafka, PeerStream, local[2])")
  String engine;

  @Option(names = "--ids", defaultValue = "1000000", description = "distinct natural ids")
  int ids;

  @Option(names = "--minutes", defaultValue = "30", description = "production time")
  double minutes;

  @Option(
      names = "--maxMinutes",
      defaultValue = "0",
      description =
          "stop the soak after this many minutes whether or not production ended"
              + " (for a layout that falls behind); 0 = no limit")
  double maxMinutes;

  @Option(names = "--sampleSeconds", defaultValue = "60")
  int sampleSeconds;

  @Option(names = "--timeout", defaultValue = "60s", description = "the pipeline's --timeout")
  String timeout;

  @Option(
      names = "--buckets",
      defaultValue = "-1",
      description =
          "the pipeline's pairing buckets, for the runner-key count; 0 = one key per id"
              + " (the layout before pairing by bucket); default: the engine's (4096 on Spark"
              + " streaming, 1024 on Flink)")
  int buckets;

  @Option(
      names = "--hotShare",
      defaultValue = "0",
      description = "share of events that carry one hot natural id (0 to 0.5)")
  double hotShare;

  @Option(
      names = "--hotBucketShare",
      defaultValue = "0",
      description = "share of the distinct ids drawn so that they fall into bucket 0 (0 to 0.5)")
  double hotBucketShare;

  @Option(names = "--xmx", defaultValue = "3g", description = "the pipeline JVM's -Xmx")
  String xmx;

  @Option(
      names = "--pipelineClasspath",
      description =
          "class path of the pipeline JVM (default: the bench's own for spark, the"
              + " Flink distribution's and the flink-run jar for flink)")
  String pipelineClasspath;

  @Option(names = "--pipelineMain", description = "main class of the pipeline JVM")
  String pipelineMain;

  @Option(names = "--pipelineArg", description = "extra pipeline option, repeatable")
  List<String> pipelineArgs = new ArrayList<>();

  @Option(
      names = "--pipelineJvmArg",
      description =
          "extra flag of the pipeline JVM, before its class path, repeatable"
              + " (e.g. -Dspark.ui.retainedJobs=5000)")
  List<String> pipelineJvmArgs = new ArrayList<>();

  @Option(
      names = "--jfr",
      arity = "1",
      defaultValue = "false",
      description =
          "record the pipeline JVM with JFR (settings=profile) into pipeline.jfr in --dir")
  boolean jfr;

  @Option(
      names = "--targetLag",
      defaultValue = "0s",
      description =
          "send each target event this long after its source partner, with the same"
              + " event time (a replica running behind); the pipeline gets --targetLag of this plus"
              + " --targetBurstEvery unless a --pipelineArg declares one")
  String targetLag;

  @Option(
      names = "--targetBurstEvery",
      defaultValue = "0s",
      description =
          "load the target in bursts: hold its due events until the next multiple of"
              + " this interval since production began (0s = as they come)")
  String targetBurstEvery;

  @Option(
      names = "--prefillSource",
      defaultValue = "0",
      description =
          "matching source events sent at once before the live stream, their target"
              + " partners after --targetLag: open state from the start")
  long prefillSource;

  @Option(names = "--seed", defaultValue = "42")
  long seed;

  @Option(
      names = "--heapSamples",
      defaultValue = "true",
      arity = "1",
      description =
          "force a full GC in the pipeline JVM at every sample to read its live heap"
              + " (false for throughput trials: a forced GC pauses the pipeline)")
  boolean heapSamples;

  @Option(
      names = "--finalWaitMinutes",
      defaultValue = "10",
      description = "how long to wait for the final verdicts after production ends")
  double finalWaitMinutes;

  @Option(
      names = "--downAtMinute",
      defaultValue = "0",
      description =
          "kill the pipeline (SIGKILL) once this many minutes were produced (0 = never);"
              + " it is started again with the same command after --downMinutes, and the soak reports"
              + " how long it took to catch up")
  double downAtMinute;

  @Option(
      names = "--downMinutes",
      defaultValue = "5",
      description = "how long the pipeline stays down (--downAtMinute); production goes on")
  double downMinutes;

  /** Lag samples of the last {@link #call}, for {@link SustainCommand}. */
  final List<SustainRule.Sample> lagSamples = new ArrayList<>();

  /** The last {@link #call}'s judgement of its produce rate; null if it did not get that far. */
  SustainRule.Verdict sustain;

  /** The last {@link #call}'s verdict latency; null if it did not get that far. */
  VerdictLatency.Summary latency;

  /** Whether the last {@link #call}'s final verdicts agreed with the producer's. */
  boolean verdictsAgree;

  /** The last {@link #call}'s produce rate, both topics, events per second of planned time. */
  private double eventsPerSecond;

  double eventsPerSecond() {
    return eventsPerSecond;
  }

  /** Seconds from the end of production until every event was stored; -1 if never. */
  private double drainSeconds = -1;

  @Override
  public Integer call() throws Exception {
    if (!engine.equals("spark") && !engine.equals("flink") && !engine.equals("peer")) {
      throw new IllegalArgumentException("--engine must be spark, flink or peer, not " + engine);
    }
    if (buckets < 0) {
      buckets =
          engine.equals("spark")
              ? SparkSupport.STREAMING_BUCKETS
              : io.streamrecon.transforms.pairing.PairEvents.DEFAULT_BUCKETS;
    }
    if (hotShare < 0 || hotShare > 0.5 || hotBucketShare < 0 || hotBucketShare > 0.5) {
      throw new IllegalArgumentException("--hotShare and --hotBucketShare must be in [0, 0.5]");
    }
    Duration pairingTimeout =
        Duration.ofMillis(DurationParser.parse("--timeout", timeout).getMillis());
    Files.createDirectories(dir);
    Path warehouse = dir.resolve("warehouse");
    Path gcLog = dir.resolve("pipeline-gc.log");
    Path pipelineLog = dir.resolve("pipeline.log");
    Path report = dir.resolve("soak.md");
    Path root = Path.of("").toAbsolutePath();
    int uiPort = freePort();
    String group = "soak-" + System.currentTimeMillis();
    Duration lag = Duration.ofMillis(DurationParser.parse("--targetLag", targetLag).getMillis());
    Duration burstEvery =
        Duration.ofMillis(DurationParser.parse("--targetBurstEvery", targetBurstEvery).getMillis());
    if (prefillSource < 0) {
      throw new IllegalArgumentException("--prefillSource must be 0 or more, not " + prefillSource);
    }
    SoakProducer.Plan plan =
        new SoakProducer.Plan(
            ids,
            Duration.ofMillis((long) (minutes * 60_000)),
            hotShare,
            hotBucketShare,
            Math.max(buckets, 1),
            seed,
            lag,
            burstEvery,
            prefillSource);
    if (plan.targetDeferred()
        && !engine.equals("peer")
        && pipelineArgs.stream().noneMatch(a -> a.startsWith("--targetLag="))) {
      // The target topic stays empty for the lag after the start: without a declared lag its
      // idle partition would follow the wall clock and every target record would be late.
      pipelineArgs.add("--targetLag=" + lag.plus(burstEvery).toSeconds() + "s");
    }

    try (PrintStream out =
            new PrintStream(Files.newOutputStream(report), true, StandardCharsets.UTF_8);
        KafkaBrokerProcess broker = KafkaBrokerProcess.start(dir.resolve("broker"))) {
      // The producer's send callbacks then report the broker's append time (SoakProducer).
      broker.createTopics(
          2,
          Map.of(TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG, "LogAppendTime"),
          "soak-src",
          "soak-tgt");
      List<String> cmd = pipelineCommand(broker, warehouse, gcLog, uiPort, group, root);
      Files.writeString(pipelineLog, String.join(" ", cmd) + "\n", StandardCharsets.UTF_8);
      Process pipeline = ChildProcesses.start(cmd, pipelineLog);
      Configuration conf = new Configuration();
      try (SoakProducer producer =
          new SoakProducer(broker.bootstrapServers(), "soak-src", "soak-tgt", plan)) {
        tee(
            out,
            String.format(
                Locale.ROOT,
                "soak: engine %s, %,d distinct ids over %.0f min (%.0f ids/s), hot id share %.2f,"
                    + " hot bucket share %.2f, timeout %s, buckets %s, -Xmx%s, target lag %s,"
                    + " target bursts every %s, source pre-fill %,d; load average %.1f",
                engine,
                ids,
                minutes,
                ids / (minutes * 60),
                hotShare,
                hotBucketShare,
                timeout,
                buckets == 0 ? "none (one key per id)" : buckets,
                xmx,
                targetLag,
                targetBurstEvery,
                prefillSource,
                load()));
        tee(out, "pipeline: " + String.join(" ", cmd.subList(cmd.indexOf("-cp") + 2, cmd.size())));
        // Time to start is not the soak: production begins when the pipeline reads.
        awaitStarted(pipeline, pipelineLog);
        producer.start();
        Instant t0 = Instant.now();
        tee(out, "");
        tee(
            out,
            "| minute | ids produced | events produced | runner keys | batches | batch ms"
                + " avg | batch ms max | scheduling delay s | batch clock behind s | heap after full GC"
                + " MB | checkpoint MB | checkpoint MB written | Flink checkpoints | raw events stored"
                + " | behind producer | deltas rows | load |");
        tee(
            out,
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|");
        long lastBatchTime = 0;
        Instant lastSample = t0;
        long flinkLogOffset = 0;
        int minute = 0;
        boolean wasDown = false;
        while (pipeline.isAlive()) {
          Instant next = t0.plusSeconds((long) sampleSeconds * (minute + 1));
          sleepUntil(next);
          minute++;
          if (downAtMinute > 0 && !wasDown && minute * sampleSeconds >= downAtMinute * 60) {
            wasDown = true;
            pipeline =
                downAndCatchUp(
                    out, pipeline, cmd, pipelineLog, producer, conf, warehouse.toString());
            lastBatchTime = 0;
            // The rows go on at the wall clock's minute, not one row per missed sample.
            minute = (int) (Duration.between(t0, Instant.now()).getSeconds() / sampleSeconds);
          }
          long heap = heapSamples ? heapAfterFullGc(pipeline.pid(), gcLog) : -1;
          Instant sampledAt = Instant.now();
          long written = bytesWrittenSince(warehouse.resolve("_checkpoints"), lastSample);
          lastSample = sampledAt;
          FlinkCheckpoints flink =
              engine.equals("flink")
                  ? FlinkCheckpoints.readFrom(pipelineLog, flinkLogOffset)
                  : FlinkCheckpoints.NONE;
          flinkLogOffset = flink.logOffset();
          BatchStats b = engine.equals("spark") ? batches(uiPort, lastBatchTime) : BatchStats.NONE;
          if (b.lastBatchTime() > 0) {
            lastBatchTime = b.lastBatchTime();
          }
          // From the tables, on every runner (Flink streaming prints no progress lines).
          long raw = TableRows.count(conf, warehouse.toString(), WarehouseTables.RAW_EVENTS);
          long verdicts = TableRows.count(conf, warehouse.toString(), WarehouseTables.DELTAS);
          if (!producer.done()) {
            lagSamples.add(
                new SustainRule.Sample(
                    Duration.between(t0, Instant.now()).toMillis() / 1e3,
                    producer.eventsProduced() - raw,
                    lastBatchTime <= 0
                        ? Double.NaN
                        : (System.currentTimeMillis() - lastBatchTime) / 1000.0));
          }
          tee(
              out,
              String.format(
                  Locale.ROOT,
                  "| %.1f | %,d | %,d | %,d | %s | %s | %s | %s | %s | %s | %.1f | %.1f | %s | %s | %s"
                      + " | %s | %.1f |",
                  minute * sampleSeconds / 60.0,
                  producer.idsProduced(),
                  producer.eventsProduced(),
                  producer.runnerKeys(buckets),
                  b.count() < 0 ? "–" : String.valueOf(b.count()),
                  b.count() <= 0 ? "–" : String.valueOf(b.avgMillis()),
                  b.count() <= 0 ? "–" : String.valueOf(b.maxMillis()),
                  b.count() <= 0
                      ? "–"
                      : String.format(Locale.ROOT, "%.1f", b.schedulingDelayMillis() / 1000.0),
                  // Spark labels batches by the clock that schedules them: when a batch takes
                  // longer
                  // than the interval, the labels fall behind wall time, and so does the
                  // checkpoint.
                  lastBatchTime <= 0
                      ? "–"
                      : String.format(
                          Locale.ROOT,
                          "%.0f",
                          (System.currentTimeMillis() - lastBatchTime) / 1000.0),
                  heap < 0 ? "–" : String.format(Locale.ROOT, "%,d", heap),
                  bytesUnder(warehouse.resolve("_checkpoints")) / 1e6,
                  written / 1e6,
                  flink.describe(),
                  String.format(Locale.ROOT, "%,d", raw),
                  String.format(Locale.ROOT, "%,d", producer.eventsProduced() - raw),
                  String.format(Locale.ROOT, "%,d", verdicts),
                  load()));
          if (producer.done()) {
            break;
          }
          if (maxMinutes > 0 && minute * sampleSeconds >= maxMinutes * 60) {
            tee(
                out,
                String.format(
                    Locale.ROOT, "stopped after %.0f minutes (--maxMinutes)", maxMinutes));
            return 2;
          }
        }
        if (!pipeline.isAlive()) {
          tee(out, "the pipeline died:\n" + ChildProcesses.tail(pipelineLog, 40));
          return 1;
        }
        producer.awaitSent();
        if (jfr) {
          // The pipeline is killed at the end, which writes no recording: dump the production.
          dumpJfr(pipeline.pid(), dir.resolve("pipeline.jfr").toAbsolutePath());
        }
        double productionSeconds = Duration.between(t0, producer.endedAt()).toMillis() / 1e3;
        tee(out, "");
        tee(
            out,
            String.format(
                Locale.ROOT,
                "production ended after %.1f min: %,d ids, %,d events",
                productionSeconds / 60,
                producer.idsProduced(),
                producer.eventsProduced()));
        FinalCheck check = finalCheck(out, producer, pipeline, conf, warehouse.toString());
        verdictsAgree = check.agree();
        eventsPerSecond = producer.eventsProduced() / (minutes * 60);
        // The pre-fill comes first, and a lagging or bursty target sends its last events up to
        // its lag and one burst interval after the source's last.
        double plannedSeconds =
            minutes * 60
                + (producer.prefilledAt() == null
                    ? 0
                    : Duration.between(t0, producer.prefilledAt()).toMillis() / 1e3)
                + plan.targetLag().plus(plan.targetBurstEvery()).toMillis() / 1e3;
        sustain =
            SustainRule.judge(
                lagSamples, eventsPerSecond, plannedSeconds, productionSeconds, drainSeconds);
        tee(
            out,
            String.format(
                Locale.ROOT,
                "rate %.0f ids/s (%.0f events/s): %s; lag max %.1f s,"
                    + " first third %.1f s, last third %.1f s; stored %.0f s after production (%s)%s",
                ids / (minutes * 60),
                eventsPerSecond,
                sustain.held() ? "held" : "NOT held",
                sustain.maxLagSeconds(),
                sustain.firstThirdSeconds(),
                sustain.lastThirdSeconds(),
                sustain.drainSeconds(),
                sustain.reason(),
                // A burst or the pre-fill is a backlog by design: the lag rule is for a steady
                // rate.
                plan.targetBurstEvery().isZero() && plan.prefillSource() == 0
                    ? ""
                    : "; bursts and the pre-fill count as lag, so this says nothing of the rate"));
        reportLatency(out, producer, conf, warehouse.toString(), check.deltas(), pairingTimeout);
        return check.agree() ? 0 : 1;
      } finally {
        ChildProcesses.kill(pipeline);
      }
    }
  }

  /**
   * Kills the pipeline (SIGKILL), keeps it down for {@code --downMinutes} while production goes on,
   * starts it again with the same command (it restores from its checkpoint), and reports the
   * catch-up: from the restart to the first commit, and to the moment storage is again no further
   * behind the producer than it was before the kill (polled every 5 s from the tables).
   */
  private Process downAndCatchUp(
      PrintStream out,
      Process pipeline,
      List<String> cmd,
      Path pipelineLog,
      SoakProducer producer,
      Configuration conf,
      String warehouse)
      throws Exception {
    // Storage trails the producer by up to a few batches in steady running, so caught up means
    // no further behind than the most any of the last samples before the kill was.
    long behindBefore =
        producer.eventsProduced() - TableRows.count(conf, warehouse, WarehouseTables.RAW_EVENTS);
    for (int i = Math.max(0, lagSamples.size() - 3); i < lagSamples.size(); i++) {
      behindBefore = Math.max(behindBefore, lagSamples.get(i).lagEvents());
    }
    ChildProcesses.kill(pipeline);
    Instant killedAt = Instant.now();
    long storedAtKill = TableRows.count(conf, warehouse, WarehouseTables.RAW_EVENTS);
    tee(
        out,
        String.format(
            Locale.ROOT,
            "| killed (SIGKILL); storage up to %,d events behind the producer before |",
            behindBefore));
    sleepUntil(killedAt.plusMillis((long) (downMinutes * 60_000)));
    long backlog = producer.eventsProduced() - storedAtKill;
    Files.writeString(
        pipelineLog, "=== restart\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
    Process restarted = ChildProcesses.start(cmd, pipelineLog);
    Instant restartedAt = Instant.now();
    double firstCommit = -1;
    while (restarted.isAlive()) {
      TimeUnit.SECONDS.sleep(5);
      long stored = TableRows.count(conf, warehouse, WarehouseTables.RAW_EVENTS);
      double since = Duration.between(restartedAt, Instant.now()).toMillis() / 1e3;
      if (firstCommit < 0 && stored > storedAtKill) {
        firstCommit = since;
      }
      long behind = producer.eventsProduced() - stored;
      if (stored > storedAtKill && (behind <= Math.max(behindBefore, 0) || producer.done())) {
        tee(
            out,
            String.format(
                Locale.ROOT,
                "| down %.1f min, backlog %,d events at the restart: first commit %.0f s after it,"
                    + " caught up (%,d behind) %.0f s after it |",
                downMinutes,
                backlog,
                firstCommit,
                behind,
                since));
        return restarted;
      }
      if (since > 1800) {
        tee(out, "| not caught up within 30 minutes of the restart |");
        return restarted;
      }
    }
    tee(out, "the restarted pipeline died:\n" + ChildProcesses.tail(pipelineLog, 40));
    return restarted;
  }

  /**
   * Waits (up to 10 min) until every produced event is stored and the final verdicts in deltas
   * (rows no other row supersedes; MATCH is not written without --emitMatches) agree with what the
   * producer generated, and says how long after the end of production that took: the last ids'
   * MISSING verdicts are due a timeout after their events, so a held watermark shows here. Row
   * counts alone cannot end the wait: a hot id's versions add rows long before the last expiry.
   */
  private FinalCheck finalCheck(
      PrintStream out,
      SoakProducer producer,
      Process pipeline,
      Configuration conf,
      String warehouse)
      throws Exception {
    SoakProducer.Counts want = producer.counts();
    long expectedRows = want.mismatch() + want.missingInTarget() + want.missingInSource();
    Instant deadline = Instant.now().plusMillis((long) (finalWaitMinutes * 60_000));
    boolean stored = false;
    Map<Status, Long> finals = new EnumMap<>(Status.class);
    List<StoredDeltaRecord> deltas = List.of();
    boolean agree = false;
    while (Instant.now().isBefore(deadline) && pipeline.isAlive()) {
      if (!stored
          && TableRows.count(conf, warehouse, WarehouseTables.RAW_EVENTS)
              >= producer.eventsProduced()) {
        stored = true;
        drainSeconds = Duration.between(producer.endedAt(), Instant.now()).toMillis() / 1e3;
        tee(
            out,
            "all produced events stored "
                + Duration.between(producer.endedAt(), Instant.now()).toSeconds()
                + " s after production ended");
      }
      if (stored && TableRows.count(conf, warehouse, WarehouseTables.DELTAS) >= expectedRows) {
        deltas = DeltaLakeTables.readDeltasWithDataFile(warehouse);
        finals = finalVerdicts(deltas);
        agree = agrees(finals, want);
        if (agree) {
          tee(
              out,
              "final verdicts complete "
                  + Duration.between(producer.endedAt(), Instant.now()).toSeconds()
                  + " s after production ended (timeout "
                  + timeout
                  + ")");
          break;
        }
      }
      TimeUnit.SECONDS.sleep(5);
    }
    if (!agree) {
      deltas = DeltaLakeTables.readDeltasWithDataFile(warehouse);
      finals = finalVerdicts(deltas);
      agree = agrees(finals, want);
    }
    tee(
        out,
        String.format(
            Locale.ROOT,
            "final verdicts %s: expected mismatch %,d, missing in target %,d, missing in source %,d"
                + " and match %,d%s; deltas table: mismatch %,d, missing in target %,d,"
                + " missing in source %,d, match %,d%s",
            agree ? "agree" : "DISAGREE",
            want.mismatch(),
            want.missingInTarget(),
            want.missingInSource(),
            want.match(),
            matchesWritten() ? "" : " (not written without --emitMatches, not compared)",
            finals.getOrDefault(Status.MISMATCH, 0L),
            finals.getOrDefault(Status.MISSING_IN_TARGET, 0L),
            finals.getOrDefault(Status.MISSING_IN_SOURCE, 0L),
            finals.getOrDefault(Status.MATCH, 0L),
            hotShare > 0 ? " (hot id: its new versions may add MISMATCH verdicts)" : ""));
    return new FinalCheck(agree, deltas);
  }

  /** Whether the final verdicts agreed, and the deltas rows they were counted from. */
  private record FinalCheck(boolean agree, List<StoredDeltaRecord> deltas) {}

  /**
   * Joins the deltas rows of the final check (read once, there) with the commits that added their
   * data files and with the producer's append and event times, and prints the verdict latency and
   * writes it to {@code latency.md}. MATCH rows exist only with {@code
   * --pipelineArg=--emitMatches=true}; the hot id's rows are left out (its versions replace each
   * other, there is no one time its verdict was due).
   */
  private void reportLatency(
      PrintStream out,
      SoakProducer producer,
      Configuration conf,
      String warehouse,
      List<StoredDeltaRecord> deltas,
      Duration pairingTimeout)
      throws IOException {
    Map<String, DataFileCommits.Commit> commits =
        DataFileCommits.of(conf, warehouse, WarehouseTables.DELTAS);
    VerdictLatency latency = producer.verdictLatency(pairingTimeout);
    long notProduced = 0;
    long noCommit = 0;
    for (StoredDeltaRecord row : deltas) {
      int ordinal = producer.ordinalOf(row.record().naturalId());
      if (ordinal < 0) {
        notProduced++;
        continue;
      }
      DataFileCommits.Commit commit = commits.get(row.dataFile());
      if (commit == null) {
        noCommit++;
        continue;
      }
      latency.record(ordinal, row.record().status(), commit.version(), commit.timestampMillis());
    }
    List<String> lines = new ArrayList<>();
    lines.add(
        String.format(
            Locale.ROOT,
            "verdict latency (engine %s, timeout %s): commit time of the verdict's deltas row"
                + " (commitInfo.timestamp) minus when it was due; Kafka append times are the broker's"
                + " (LogAppendTime)",
            engine,
            timeout));
    lines.add("");
    this.latency = latency.summarize();
    lines.addAll(this.latency.markdown());
    if (notProduced > 0 || noCommit > 0) {
      lines.add(
          String.format(
              Locale.ROOT,
              "(not measured: %,d rows of ids the producer has no times for (the hot id), %,d rows in"
                  + " files no data commit added (compaction))",
              notProduced,
              noCommit));
    }
    tee(out, "");
    lines.forEach(l -> tee(out, l));
    Files.write(dir.resolve("latency.md"), lines, StandardCharsets.UTF_8);
  }

  private boolean matchesWritten() {
    return pipelineArgs.contains("--emitMatches=true") || pipelineArgs.contains("--emitMatches");
  }

  private boolean agrees(Map<Status, Long> finals, SoakProducer.Counts want) {
    long mm = finals.getOrDefault(Status.MISMATCH, 0L);
    // The hot id's new versions turn MATCHes into MISMATCHes: its counts are not exact.
    if (matchesWritten()
        && hotShare == 0
        && finals.getOrDefault(Status.MATCH, 0L) != want.match()) {
      return false;
    }
    return finals.getOrDefault(Status.MISSING_IN_TARGET, 0L) == want.missingInTarget()
        && finals.getOrDefault(Status.MISSING_IN_SOURCE, 0L) == want.missingInSource()
        && (hotShare > 0 ? mm >= want.mismatch() : mm == want.mismatch());
  }

  /** Counts of the verdicts no other row supersedes, per status. */
  private static Map<Status, Long> finalVerdicts(List<StoredDeltaRecord> rows) {
    Set<String> superseded = new HashSet<>();
    rows.forEach(
        r -> {
          if (r.record().supersedes() != null) {
            superseded.add(r.record().supersedes());
          }
        });
    Map<Status, Long> finals = new EnumMap<>(Status.class);
    rows.stream()
        .map(StoredDeltaRecord::record)
        .filter(r -> !superseded.contains(r.verdictId()))
        .forEach(r -> finals.merge(r.status(), 1L, Long::sum));
    return finals;
  }

  private List<String> pipelineCommand(
      KafkaBrokerProcess broker, Path warehouse, Path gcLog, int uiPort, String group, Path root)
      throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(ChildProcesses.java());
    cmd.add("-Xmx" + xmx);
    cmd.add("-Xlog:gc:file=" + gcLog);
    ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
        .filter(a -> a.startsWith("--add-opens"))
        .forEach(cmd::add);
    cmd.add("--add-opens=java.base/java.util.concurrent=ALL-UNNAMED");
    cmd.add("--add-opens=java.base/java.net=ALL-UNNAMED");
    cmd.add("--add-opens=java.base/java.io=ALL-UNNAMED");
    List<String> runner;
    String cp = pipelineClasspath;
    String main = pipelineMain;
    if (engine.equals("spark")) {
      cmd.add("-Dspark.ui.enabled=true");
      cmd.add("-Dspark.ui.port=" + uiPort);
      cp = cp != null ? cp : System.getProperty("java.class.path");
      main = main != null ? main : "io.streamrecon.pipeline.cli.StreamRecon";
      List<String> spark =
          new ArrayList<>(
              List.of(
                  "--runner=SparkRunner",
                  "--sparkMaster=local[2]",
                  "--checkpointDir=" + warehouse.resolve("_checkpoints").resolve("soak")));
      // The Spark runner module sets these for unbounded runs (SparkRecovery); this JVM runs
      // StreamRecon without it, so the soak passes the same defaults unless told otherwise.
      for (String d : List.of("--batchIntervalMillis=5000", "--checkpointDurationMillis=5000")) {
        String name = d.substring(0, d.indexOf('=') + 1);
        if (pipelineArgs.stream().noneMatch(a -> a.startsWith(name))) {
          spark.add(d);
        }
      }
      runner = spark;
    } else if (engine.equals("peer")) {
      // Spark Structured Streaming in the bench's own class path; --pairingBuckets is accepted
      // and ignored there (Spark keys its state by natural id).
      cp = cp != null ? cp : System.getProperty("java.class.path");
      main = main != null ? main : PeerStream.class.getName();
      runner = List.of("--sparkMaster=local[2]");
    } else {
      String version = "0.2.0-SNAPSHOT";
      cp =
          cp != null
              ? cp
              : root.resolve("runners/dist/flink/target/jars")
                  + "/*"
                  + java.io.File.pathSeparator
                  + root.resolve(
                      "runners/flink/target/streamrecon-runner-flink-"
                          + version
                          + "-flink-run.jar");
      main = main != null ? main : "io.streamrecon.runners.flink.FlinkMain";
      runner = List.of("--runner=FlinkRunner", "--flinkMaster=[local]", "--parallelism=2");
      if (pipelineJvmArgs.stream().noneMatch(a -> a.startsWith("-Dlog4j2.configurationFile="))) {
        // Flink's completed checkpoints are logged at INFO there, for the soak's table.
        cmd.add(
            "-Dlog4j2.configurationFile=" + FlinkContender.writeLogConfig(dir).toAbsolutePath());
      }
    }
    cmd.addAll(
        profileFlags(jfr ? dir.resolve("pipeline.jfr").toAbsolutePath() : null, pipelineJvmArgs));
    cmd.add("-cp");
    cmd.add(cp);
    cmd.add(main);
    if (main.endsWith("StreamRecon")) {
      cmd.add("run");
    }
    cmd.add("--source=" + broker.uri("soak-src"));
    cmd.add("--target=" + broker.uri("soak-tgt"));
    cmd.add("--warehouse=" + warehouse);
    cmd.add("--kafkaProperties=group.id=" + group);
    cmd.add("--timeout=" + timeout);
    cmd.add("--progressInterval=10s");
    if (buckets > 0) {
      cmd.add("--pairingBuckets=" + buckets);
    }
    cmd.addAll(runner);
    cmd.addAll(pipelineArgs);
    return cmd;
  }

  /**
   * The pipeline JVM's flags for profiling: a named JFR recording with the profile settings (the
   * soak dumps it when production ends, since it kills the pipeline afterwards), then the caller's
   * own flags.
   */
  static List<String> profileFlags(Path jfr, List<String> jvmArgs) {
    List<String> flags = new ArrayList<>();
    if (jfr != null) {
      flags.add(
          "-XX:StartFlightRecording=name="
              + JFR_NAME
              + ",filename="
              + jfr
              + ",settings=profile,dumponexit=true");
    }
    flags.addAll(jvmArgs);
    return flags;
  }

  /**
   * Waits until the pipeline logged its run line or (on Spark, whose logging starts with the
   * context, after the run line) its first progress line; it reads from the earliest offsets.
   */
  private static void awaitStarted(Process pipeline, Path log) throws Exception {
    Instant deadline = Instant.now().plus(Duration.ofMinutes(5));
    while (Instant.now().isBefore(deadline)) {
      if (!pipeline.isAlive()) {
        throw new IllegalStateException(
            "the pipeline died at start\n" + ChildProcesses.tail(log, 40));
      }
      if (RUN_LINE.matcher(Files.readString(log, StandardCharsets.ISO_8859_1)).find()) {
        return;
      }
      TimeUnit.MILLISECONDS.sleep(500);
    }
    throw new IllegalStateException("no run line in 5 minutes\n" + ChildProcesses.tail(log, 40));
  }

  private static final String JFR_NAME = "soak";

  private static void dumpJfr(long pid, Path to) throws Exception {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    Process p =
        new ProcessBuilder(
                jcmd.toString(),
                Long.toString(pid),
                "JFR.dump",
                "name=" + JFR_NAME,
                "filename=" + to)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    p.waitFor(120, TimeUnit.SECONDS);
  }

  /** Forces a full GC in the pipeline JVM and returns the heap in use after it, in MB. */
  private static long heapAfterFullGc(long pid, Path gcLog) throws Exception {
    int before = countFullGcs(gcLog);
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    Process p =
        new ProcessBuilder(jcmd.toString(), Long.toString(pid), "GC.run")
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    p.waitFor(120, TimeUnit.SECONDS);
    long after = -1;
    Instant deadline = Instant.now().plusSeconds(30);
    while (Instant.now().isBefore(deadline)) {
      List<String> lines = Files.readAllLines(gcLog, StandardCharsets.ISO_8859_1);
      int seen = 0;
      for (String line : lines) {
        Matcher m = FULL_GC.matcher(line);
        if (m.find()) {
          seen++;
          after = Long.parseLong(m.group(2));
        }
      }
      if (seen > before) {
        return after;
      }
      TimeUnit.MILLISECONDS.sleep(200);
    }
    return after;
  }

  private static int countFullGcs(Path gcLog) throws IOException {
    if (!Files.exists(gcLog)) {
      return 0;
    }
    try (Stream<String> lines = Files.lines(gcLog, StandardCharsets.ISO_8859_1)) {
      return (int) lines.filter(l -> FULL_GC.matcher(l).find()).count();
    }
  }

  /** Spark streaming batches completed after {@code since} (batch time, epoch ms). */
  record BatchStats(
      int count, long avgMillis, long maxMillis, long schedulingDelayMillis, long lastBatchTime) {
    static final BatchStats NONE = new BatchStats(-1, 0, 0, 0, 0);
  }

  private static BatchStats batches(int uiPort, long since) {
    try {
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
      String base = "http://127.0.0.1:" + uiPort + "/api/v1/applications";
      JsonNode apps = MAPPER.readTree(get(http, base));
      String app = apps.get(0).get("id").asText();
      JsonNode list = MAPPER.readTree(get(http, base + "/" + app + "/streaming/batches"));
      int n = 0;
      long sum = 0;
      long max = 0;
      long delay = 0;
      long last = since;
      for (JsonNode b : list) {
        if (!"COMPLETED".equals(b.path("status").asText())) {
          continue;
        }
        long t = Instant.parse(b.get("batchTime").asText().replace("GMT", "Z")).toEpochMilli();
        if (t <= since) {
          continue;
        }
        long ms = b.path("processingTime").asLong();
        n++;
        sum += ms;
        max = Math.max(max, ms);
        delay = Math.max(delay, b.path("schedulingDelay").asLong());
        last = Math.max(last, t);
      }
      return new BatchStats(n, n == 0 ? 0 : sum / n, max, delay, last);
    } catch (Exception e) {
      return new BatchStats(-1, 0, 0, 0, 0);
    }
  }

  private static String get(HttpClient http, String url) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20)).build(),
            HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IOException(url + ": HTTP " + r.statusCode());
    }
    return r.body();
  }

  /**
   * Bytes of the files under {@code p} last modified after {@code since}: what the runner wrote to
   * its checkpoints between two samples (a file written and deleted in between is not seen); every
   * file when {@code since} is null.
   */
  private static long bytesWrittenSince(Path p, Instant since) {
    // The runner replaces checkpoints while we walk: a vanished directory means walk again,
    // a bounded number of times.
    for (int attempt = 0; attempt < 5; attempt++) {
      if (!Files.exists(p)) {
        return 0;
      }
      try (Stream<Path> s = Files.walk(p)) {
        return s.filter(Files::isRegularFile)
            .filter(f -> since == null || modifiedAfter(f, since))
            .mapToLong(SoakCommand::sizeOrZero)
            .sum();
      } catch (IOException | UncheckedIOException e) {
        // walk again
      }
    }
    return -1;
  }

  private static boolean modifiedAfter(Path f, Instant since) {
    try {
      return Files.getLastModifiedTime(f).toInstant().isAfter(since);
    } catch (IOException e) {
      return false; // deleted while we walked
    }
  }

  /**
   * The checkpoints Flink's checkpoint coordinator logged as completed since a log offset: count,
   * duration average and maximum, and the last one's size. The soak's Flink pipeline logs them at
   * INFO through the bench's log4j2 file ({@link FlinkContender#LOG_CONFIG}).
   */
  record FlinkCheckpoints(
      int count, long avgMillis, long maxMillis, long lastBytes, long logOffset) {
    private static final Pattern COMPLETED =
        Pattern.compile(
            "Completed checkpoint \\d+ for job \\S+ \\((\\d+) bytes,"
                + " checkpointDuration=(\\d+) ms");

    static final FlinkCheckpoints NONE = new FlinkCheckpoints(0, 0, 0, 0, 0);

    /**
     * Reads the log from {@code offset} to its last complete line (a line still being written is
     * read at the next sample); the pipeline's log grows for hours, so it is never read again.
     */
    static FlinkCheckpoints readFrom(Path log, long offset) throws IOException {
      if (!Files.exists(log)) {
        return new FlinkCheckpoints(0, 0, 0, 0, offset);
      }
      byte[] tail;
      try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(log)) {
        long from = offset > ch.size() ? 0 : offset; // the log was replaced: read it whole
        java.nio.ByteBuffer buf = java.nio.ByteBuffer.allocate((int) (ch.size() - from));
        while (buf.hasRemaining() && ch.read(buf, from + buf.position()) >= 0) {
          // read until full
        }
        tail = java.util.Arrays.copyOf(buf.array(), buf.position());
        offset = from;
      }
      int complete = tail.length;
      while (complete > 0 && tail[complete - 1] != '\n') {
        complete--;
      }
      Matcher m = COMPLETED.matcher(new String(tail, 0, complete, StandardCharsets.ISO_8859_1));
      int n = 0;
      long sum = 0;
      long max = 0;
      long last = 0;
      while (m.find()) {
        long ms = Long.parseLong(m.group(2));
        n++;
        sum += ms;
        max = Math.max(max, ms);
        last = Long.parseLong(m.group(1));
      }
      return new FlinkCheckpoints(n, n == 0 ? 0 : sum / n, max, last, offset + complete);
    }

    String describe() {
      return count == 0
          ? "–"
          : String.format(
              Locale.ROOT, "%d, %d / %d ms, %.1f MB", count, avgMillis, maxMillis, lastBytes / 1e6);
    }
  }

  /** Bytes of the files under {@code p}; 0 while it does not exist. */
  private static long bytesUnder(Path p) {
    return bytesWrittenSince(p, null);
  }

  private static long sizeOrZero(Path f) {
    try {
      return Files.size(f);
    } catch (IOException e) {
      return 0; // deleted while we walked: a checkpoint being replaced
    }
  }

  private static void sleepUntil(Instant t) throws InterruptedException {
    long ms = Duration.between(Instant.now(), t).toMillis();
    if (ms > 0) {
      TimeUnit.MILLISECONDS.sleep(ms);
    }
  }

  private static void tee(PrintStream out, String s) {
    System.out.println(s);
    out.println(s);
  }

  private static double load() {
    return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
