package io.streamrecon.pipeline.cli;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.streamrecon.deltalake.DeltaLakeTables;
import io.streamrecon.deltalake.WarehouseTables;
import io.streamrecon.model.DeltaRecord;
import io.streamrecon.pipeline.ReconcileOptions;
import io.streamrecon.pipeline.run.ReconcileRun;
import io.streamrecon.pipeline.run.ReplayRun;
import io.streamrecon.pipeline.testing.EmbeddedKafka;
import io.streamrecon.pipeline.testing.Scenario;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.joda.time.Duration;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * A replay of a streaming job's Kafka input gives the final verdicts a bounded {@code run} over the
 * same records gives. The runner scenario's lines are produced to two topics and reconciled by an
 * unbounded streaming run on the DirectRunner, cancelled once it has stored every event and every
 * natural id ended as in a bounded run over the same lines read from files; a replay of that
 * streaming run ({@code --runId}) must then end every id as the file run did, and as the stream
 * did. Waiting polls the tables with a deadline.
 */
public class ReplayKafkaStreamingTest {
  @Rule public final TemporaryFolder tmp = new TemporaryFolder();
  @Rule public org.junit.rules.Timeout timeout = org.junit.rules.Timeout.seconds(600);

  private static final String STREAM = "stream";

  @Test
  public void replayOfAStreamingKafkaRunEqualsABoundedRunOverTheSameRecords() throws Exception {
    Scenario scenario = Scenario.writeTo(tmp.newFolder("in").toPath());
    var g = scenario.generator();
    Path files = tmp.newFolder("files").toPath();
    ReconcileRun.FinishedRun file = Scenario.runToCompletion(scenario.options(files));
    scenario.assertExpected(files);
    Set<String> fileFinal = finalView(files, "scenario");

    Path wh = tmp.newFolder("wh").toPath();
    long storedEvents = g.sourceLines().size() + g.targetLines().size() - g.badLines();
    try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
      kafka.createTopics("src", "tgt");
      kafka.produceLines("src", g.sourceLines());
      kafka.produceLines("tgt", g.targetLines());
      ReconcileOptions options =
          PipelineOptionsFactory.fromArgs(
                  "--source=" + kafka.uri("src"),
                  "--target=" + kafka.uri("tgt"),
                  "--warehouse=" + wh,
                  "--runner=DirectRunner",
                  // Streaming semantics are under test here, not crash recovery.
                  "--allowStateLossOnCrash=true",
                  "--runId=" + STREAM,
                  "--kafkaProperties=group.id=replay-" + UUID.randomUUID(),
                  // The scenario's streams are out of order by up to ~30 s (new versions, swaps).
                  "--kafkaMaxOutOfOrderness=60s",
                  "--commitInterval=1s",
                  "--progressInterval=0s")
              .as(ReconcileOptions.class);
      PipelineResult result = ReconcileRun.start(options);
      try {
        // Every event is stored once read; every id ends once the watermark, following the wall
        // clock after the partitions went idle, passes its entry.
        awaitOrFail(
            result,
            () ->
                "every event stored and every id ended as in the file run; stored "
                    + storedRows(wh)
                    + " of "
                    + storedEvents
                    + ", final verdicts "
                    + finalView(wh, STREAM)
                    + " vs "
                    + fileFinal,
            () -> storedRows(wh) == storedEvents && finalView(wh, STREAM).equals(fileFinal));
      } finally {
        result.cancel();
        result.waitUntilFinish(Duration.standardSeconds(30));
      }
    }
    assertEquals(
        "no event was late, so the stream judged every pair",
        List.of(),
        tableHas(wh, "late_events") ? DeltaLakeTables.readLateEvents(wh.toString()) : List.of());

    ReplayRun.FinishedReplay replay =
        ReplayRun.run(
            ReplayCommand.parse(
                List.of("--warehouse=" + wh, "--runId=" + STREAM, "--replayId=replay-stream")));
    assertEquals(PipelineResult.State.DONE, replay.state());

    // Each natural id's final verdict: status, both hashes and the differences. Not every
    // record: a bounded judging sorts an id's events by event time only, so where a source's new
    // version and the target share an event time, whether the old version's MISMATCH is written
    // (and superseded) depends on the order the runner hands the two over, in the file run as in
    // the replay; what the id ends as does not.
    assertEquals(fileFinal, finalView(wh, "replay-stream"));
    assertTrue(replay.format(), replay.addsUp());
    assertEquals(Map.of(STREAM, storedEvents), replay.eventsPerRun());
    for (String counter : List.of("missing_in_target", "missing_in_source", "duplicate")) {
      assertEquals(counter, file.summary().get(counter), replay.summary().get(counter));
    }
    assertEquals(file.summary().raw(), replay.summary().raw());

    // Against the stream's own final verdicts nothing changed, for every id of the scenario.
    long ids = g.expectations().size();
    assertEquals(ids, replay.naturalIds());
    assertEquals(
        replay.transitions().toString(),
        ids,
        replay.transitions().entrySet().stream()
            .filter(e -> e.getKey().endsWith(" unchanged"))
            .mapToLong(Map.Entry::getValue)
            .sum());
    String record =
        Files.readString(wh.resolve(ReplayRun.RECORDS_DIR).resolve("replay-stream.json"));
    assertTrue(record, record.contains("\"" + STREAM + "\" : " + storedEvents));
  }

  private static long storedRows(Path wh) {
    return tableHas(wh, WarehouseTables.RAW_EVENTS)
        ? DeltaLakeTables.readRows(wh.toString(), WarehouseTables.RAW_EVENTS).size()
        : 0;
  }

  /** Each natural id's final verdict in one run's records, MATCH left out (see Scenario). */
  private static Set<String> finalView(Path wh, String runId) {
    if (!tableHas(wh, "deltas")) {
      return Set.of();
    }
    List<DeltaRecord> records =
        DeltaLakeTables.readDeltas(wh.toString()).stream()
            .filter(d -> d.runId().equals(runId))
            .toList();
    return Scenario.finalView(records);
  }

  private static boolean tableHas(Path warehouse, String table) {
    return Files.isDirectory(warehouse.resolve(table).resolve("_delta_log"));
  }

  /** Waits on the pipeline itself (it never ends by itself) until the condition holds. */
  private static void awaitOrFail(
      PipelineResult result, Supplier<String> what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(240);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what.get());
      }
      PipelineResult.State state = result.waitUntilFinish(Duration.standardSeconds(1));
      if (state != null && state.isTerminal()) {
        throw new AssertionError("pipeline ended (" + state + ") before " + what.get());
      }
    }
  }
}
