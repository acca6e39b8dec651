package io.streamrecon.runners.spark;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.streamrecon.deltalake.DeltaLakeTables;
import io.streamrecon.pipeline.ReconcileOptions;
import io.streamrecon.pipeline.ReconcileSettings;
import io.streamrecon.pipeline.run.ReconcileRun;
import io.streamrecon.pipeline.run.Summary;
import io.streamrecon.pipeline.testing.EmbeddedKafka;
import io.streamrecon.pipeline.testing.Scenario;
import io.streamrecon.transforms.pairing.PairEvents;
import java.nio.file.Path;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.beam.sdk.PipelineResult;
import org.joda.time.Duration;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The shared scenario on the SparkRunner ({@code local[2]}): batch over files, and streaming over
 * Kafka, both with event-time expiry (in streaming read from the runner's watermark); each run's
 * final verdicts must equal the DirectRunner's.
 */
public class SparkRunnerScenarioTest {
  @ClassRule public static TemporaryFolder tmp = new TemporaryFolder();

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
  public void batchWithEventTimeExpiryAgreesWithDirect() throws Exception {
    Path wh = tmp.newFolder("spark-batch").toPath();
    ReconcileOptions options =
        scenario.options(wh, "--runner=SparkRunner", "--sparkMaster=local[2]");
    assertEquals(PairEvents.Expiry.EVENT_TIME, ReconcileSettings.from(options).expiry());
    ReconcileRun.FinishedRun outcome = Scenario.runToCompletion(options);
    assertEquals(direct, Scenario.finalView(wh));
    scenario.assertExpected(wh);
    assertEquals(scenario.generator().badLines(), outcome.summary().deadLetters());
  }

  @Test
  public void streamingWithEventTimeExpiryAgreesWithDirect() throws Exception {
    Path wh = tmp.newFolder("spark-streaming").toPath();
    try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
      kafka.createTopics("src", "tgt");
      kafka.produceLines("src", scenario.generator().sourceLines());
      kafka.produceLines("tgt", scenario.generator().targetLines());
      ReconcileOptions options =
          org.apache.beam.sdk.options.PipelineOptionsFactory.fromArgs(
                  "--source=" + kafka.uri("src"),
                  "--target=" + kafka.uri("tgt"),
                  "--warehouse=" + wh,
                  "--runId=scenario",
                  "--runner=SparkRunner",
                  "--sparkMaster=local[2]",
                  "--batchIntervalMillis=1000",
                  "--kafkaMaxOutOfOrderness=60s",
                  "--commitInterval=1s",
                  "--kafkaProperties=group.id=spark-" + UUID.randomUUID(),
                  "--progressInterval=0s")
              .as(ReconcileOptions.class);
      assertEquals(PairEvents.Expiry.EVENT_TIME, ReconcileSettings.from(options).expiry());
      PipelineResult result = ReconcileRun.start(options);
      try {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(240);
        while (!direct.equals(SparkStreamingJobs.currentView(wh))) {
          assertTrue(
              "Spark streaming did not reach the DirectRunner's verdicts: "
                  + SparkStreamingJobs.difference(direct, wh),
              System.nanoTime() < deadline);
          PipelineResult.State state = result.waitUntilFinish(Duration.standardSeconds(2));
          assertTrue("pipeline ended early: " + state, state == null || !state.isTerminal());
        }
        assertExactCounts(result, wh);
      } finally {
        SparkStreamingJobs.stop(result);
      }
    }
  }

  /**
   * The progress counts of a streaming run are exact. Once every record was read and every entry
   * closed, the counts must add up (docs/design.md#nothing-lost) and {@code raw events} must equal
   * the rows stored in raw_events, with no commit run twice. The pairing's timers make Spark read
   * its input once more per micro-batch; had that input not been cached, the raw_events commit
   * would run twice (the second time recognised as a replay) and {@code raw events} would be double
   * the rows stored.
   */
  private static void assertExactCounts(PipelineResult result, Path wh) {
    long lines =
        scenario.generator().sourceLines().size() + scenario.generator().targetLines().size();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    Summary summary = Summary.of(result);
    while (!(summary.input() == lines && summary.addsUp()) && System.nanoTime() < deadline) {
      result.waitUntilFinish(Duration.standardSeconds(2));
      summary = Summary.of(result);
    }
    long stored = DeltaLakeTables.readRows(wh.toString(), "raw_events").size();
    assertEquals(summary.format(), lines, summary.input());
    assertEquals(summary.format(), stored, summary.raw());
    assertEquals(summary.format(), 0, summary.get(Summary.RAW_EVENTS_RECOGNISED));
    assertEquals(summary.format(), scenario.generator().badLines(), summary.deadLetters());
    assertTrue(summary.format(), summary.addsUp());
  }
}
