package io.streamrecon.runners.spark;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.streamrecon.deltalake.DeltaLakeTables;
import io.streamrecon.model.LateEvent;
import io.streamrecon.pipeline.ReconcileOptions;
import io.streamrecon.pipeline.run.ReconcileRun;
import io.streamrecon.pipeline.run.Summary;
import io.streamrecon.pipeline.testing.EmbeddedKafka;
import io.streamrecon.pipeline.testing.Scenario;
import io.streamrecon.transforms.pairing.PairEvents;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.spark.streaming.StreamingContext;
import org.apache.spark.streaming.scheduler.StreamingListener;
import org.apache.spark.streaming.scheduler.StreamingListenerBatchCompleted;
import org.joda.time.Duration;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * Event-time expiry on the SparkRunner ({@code local[2]}) in streaming mode, with a real broker:
 * what wall-clock expiry got wrong. The target topic is produced only after the job has read the
 * whole source and run for longer than any wall-clock grace would allow; the verdicts must still be
 * the DirectRunner's. Records a day older than the watermark, produced once the job has settled,
 * must land in late_events.
 *
 * <p>For the control experiment, {@code -Dstreamrecon.sparkExtraArgs=--expiry=processing} runs the
 * same test with wall-clock expiry (a 10 s grace here), and it fails.
 */
public class SparkEventTimeStreamingTest {
  @ClassRule public static TemporaryFolder tmp = new TemporaryFolder();

  /** How many micro-batches (1 s each) the job runs with only the source read: beyond the grace. */
  private static final int BATCHES_BEFORE_TARGET = 20;

  /** Spark's checkpoint interval of a mapWithState stream, in micro-batches. */
  private static final int PAIRING_CHECKPOINT_EVERY = 10;

  private static Scenario scenario;
  private static Set<String> direct;

  @BeforeClass
  public static void runDirect() throws Exception {
    scenario = Scenario.writeTo(tmp.newFolder("input").toPath());
    Path wh = tmp.newFolder("direct").toPath();
    Scenario.runToCompletion(scenario.options(wh, "--runner=DirectRunner"));
    direct = Scenario.finalView(wh);
  }

  @Test
  public void targetProducedFarBehindGivesTheDirectVerdictsAndDayOldEventsAreLate()
      throws Exception {
    Path wh = tmp.newFolder("spark").toPath();
    try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
      kafka.createTopics("src", "tgt");
      kafka.produceLines("src", scenario.generator().sourceLines());
      ReconcileOptions options = options(kafka, wh);
      PipelineResult result = ReconcileRun.start(options);
      try {
        AtomicLong batches = countCompletedBatches(result);
        long sourceLines = scenario.generator().sourceLines().size();
        await(
            result, "the whole source read", 180, () -> Summary.of(result).input() == sourceLines);
        long read = batches.get();
        await(
            result,
            BATCHES_BEFORE_TARGET + " micro-batches with only the source read",
            120,
            () -> batches.get() >= read + BATCHES_BEFORE_TARGET);
        // The watermark cannot pass an entry while the target topic has given none: no verdict.
        assertEquals(
            "verdicts before the target came", Set.of(), SparkStreamingJobs.currentView(wh));
        kafka.produceLines("tgt", scenario.generator().targetLines());
        await(
            result,
            "the DirectRunner's verdicts",
            300,
            () -> direct.equals(SparkStreamingJobs.currentView(wh)),
            () -> SparkStreamingJobs.difference(direct, wh));

        List<String> dayOld = dayOldLines(3);
        kafka.produceLines("src", dayOld);
        await(
            result,
            "the day-old records in late_events",
            120,
            () -> lateIds(wh).size() == dayOld.size(),
            () -> "late_events holds " + lateIds(wh));
        assertEquals(Set.of("day-old-0", "day-old-1", "day-old-2"), lateIds(wh));
        assertEquals(
            SparkStreamingJobs.difference(direct, wh), direct, SparkStreamingJobs.currentView(wh));
      } finally {
        SparkStreamingJobs.stop(result);
      }
    }
  }

  /** The job's options; the same each time, so that a second start resumes the same job. */
  private static ReconcileOptions options(EmbeddedKafka kafka, Path wh) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--source=" + kafka.uri("src"),
                "--target=" + kafka.uri("tgt"),
                "--warehouse=" + wh,
                "--runId=scenario",
                "--runner=SparkRunner",
                "--sparkMaster=local[2]",
                "--batchIntervalMillis=1000",
                "--kafkaMaxOutOfOrderness=60s",
                // The empty target topic must not count as idle (its watermark would then follow
                // the wall clock) before its records come: longer than this test waits for them.
                "--kafkaIdleAfter=90s",
                "--processingGrace=10s",
                "--commitInterval=1s",
                "--kafkaProperties=group.id=spark-" + wh.getFileName(),
                "--progressInterval=0s"));
    String extra = System.getProperty("streamrecon.sparkExtraArgs", "");
    if (!extra.isBlank()) {
      args.addAll(List.of(extra.trim().split("\\s+")));
    }
    return PipelineOptionsFactory.fromArgs(args.toArray(new String[0])).as(ReconcileOptions.class);
  }

  /**
   * The job is stopped once it has read the whole source, the target is produced while it is down,
   * and the restarted job (restored from its checkpoint) must give the DirectRunner's verdicts
   * without postponing any expiry: the time it was down is no input to them.
   */
  @Test
  public void restartAfterDowntimeGivesTheDirectVerdictsWithoutPostponing() throws Exception {
    Path wh = tmp.newFolder("spark-restart").toPath();
    try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
      kafka.createTopics("src", "tgt");
      kafka.produceLines("src", scenario.generator().sourceLines());
      long sourceLines = scenario.generator().sourceLines().size();
      PipelineResult first = ReconcileRun.start(options(kafka, wh));
      try {
        AtomicLong batches = countCompletedBatches(first);
        await(first, "the whole source read", 180, () -> Summary.of(first).input() == sourceLines);
        long read = batches.get();
        // Spark checkpoints the pairing's state stream every tenth micro-batch (its default for a
        // mapWithState stream; Beam sets no interval on it): wait for one past the read, so that
        // the open entries are in a checkpoint rather than only in the lineage that a recovery
        // recomputes (the crash tests cover that path).
        await(
            first,
            PAIRING_CHECKPOINT_EVERY + 2 + " more micro-batches",
            120,
            () -> batches.get() >= read + PAIRING_CHECKPOINT_EVERY + 2);
      } finally {
        SparkStreamingJobs.stop(first);
      }
      kafka.produceLines("tgt", scenario.generator().targetLines());
      PipelineResult second = ReconcileRun.start(options(kafka, wh));
      try {
        await(
            second,
            "the DirectRunner's verdicts",
            300,
            () -> direct.equals(SparkStreamingJobs.currentView(wh)),
            () ->
                "the restored job counts "
                    + Summary.of(second).input()
                    + " records read in all; "
                    + SparkStreamingJobs.difference(direct, wh));
        assertEquals(0L, Summary.of(second).get(PairEvents.METRIC_EXPIRIES_POSTPONED));
      } finally {
        SparkStreamingJobs.stop(second);
      }
    }
  }

  /** Source lines with new ids and an event time a day before now. */
  private static List<String> dayOldLines(int n) {
    String template =
        scenario.generator().sourceLines().stream()
            .filter(l -> l.contains("\"id\":\"ord-"))
            .findFirst()
            .orElseThrow();
    String dayAgo =
        Instant.now().minus(1, ChronoUnit.DAYS).truncatedTo(ChronoUnit.SECONDS).toString();
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      lines.add(
          template
              .replaceFirst("\"id\":\"ord-[^\"]*\"", "\"id\":\"day-old-" + i + "\"")
              .replaceFirst("\"eventTime\":\"[^\"]*\"", "\"eventTime\":\"" + dayAgo + "\""));
    }
    return lines;
  }

  /**
   * Counts the micro-batches the job's streaming context completes from now on, once it is active
   * ({@code start} returns before Spark has started it).
   */
  static AtomicLong countCompletedBatches(PipelineResult result) throws Exception {
    await(
        result, "an active streaming context", 120, () -> StreamingContext.getActive().isDefined());
    AtomicLong completed = new AtomicLong();
    StreamingContext.getActive()
        .get()
        .addStreamingListener(
            new StreamingListener() {
              @Override
              public void onBatchCompleted(StreamingListenerBatchCompleted batchCompleted) {
                completed.incrementAndGet();
              }
            });
    return completed;
  }

  static void await(PipelineResult result, String what, int seconds, BooleanSupplier condition)
      throws Exception {
    await(result, what, seconds, condition, () -> "");
  }

  static void await(
      PipelineResult result,
      String what,
      int seconds,
      BooleanSupplier condition,
      java.util.function.Supplier<String> detail)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (!condition.getAsBoolean()) {
      assertTrue(
          "not reached within " + seconds + " s: " + what + "; " + detail.get(),
          System.nanoTime() < deadline);
      PipelineResult.State state = result.waitUntilFinish(Duration.standardSeconds(1));
      assertTrue("pipeline ended early: " + state, state == null || !state.isTerminal());
    }
  }

  private static Set<String> lateIds(Path wh) {
    if (!Files.isDirectory(wh.resolve("late_events").resolve("_delta_log"))) {
      return Set.of();
    }
    Set<String> ids = new TreeSet<>();
    for (LateEvent late : DeltaLakeTables.readLateEvents(wh.toString())) {
      ids.add(late.event().naturalId());
    }
    return ids;
  }
}
