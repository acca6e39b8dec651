package io.streamrecon.pipeline;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.streamrecon.deltalake.DeltaLakeTables;
import io.streamrecon.model.LateEvent;
import io.streamrecon.model.Side;
import io.streamrecon.pipeline.run.ReconcileRun;
import io.streamrecon.pipeline.run.Summary;
import io.streamrecon.pipeline.samples.SampleGenerator;
import io.streamrecon.pipeline.testing.EmbeddedKafka;
import io.streamrecon.pipeline.testing.Scenario;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.joda.time.Duration;
import org.junit.ClassRule;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * Both sides from a real KRaft broker, on the DirectRunner in streaming mode: malformed records
 * become dead letters, every id ends with the verdict the generator meant, and events produced
 * after the watermark passed them land in late_events. The run is stopped by cancel once the tables
 * hold the expected rows; waiting uses the pipeline's own waitUntilFinish, not sleeps.
 */
public class KafkaStreamingTest {
  @ClassRule public static TemporaryFolder tmp = new TemporaryFolder();
  @Rule public org.junit.rules.Timeout timeout = org.junit.rules.Timeout.seconds(300);

  private static final List<String> LATE =
      List.of(
          "{\"id\":\"late-1\",\"eventTime\":\"2024-01-01T00:00:00Z\",\"v\":1}",
          "{\"id\":\"late-2\",\"eventTime\":\"2024-01-01T00:00:01Z\",\"v\":2}");

  @Test
  public void reconcilesTwoTopicsInStreamingMode() throws Exception {
    SampleGenerator g = SampleGenerator.generate(5, 60);
    Scenario scenario = Scenario.of(g);
    Path warehouse = tmp.newFolder("wh").toPath();
    try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
      kafka.createTopics("orders-src", "orders-tgt");
      kafka.produceLines("orders-src", g.sourceLines());
      kafka.produceLines("orders-tgt", g.targetLines());
      // A tombstone (null value) is malformed input too.
      kafka.produce("orders-tgt", java.util.Arrays.asList((byte[]) null));

      ReconcileOptions options =
          PipelineOptionsFactory.fromArgs(
                  "--source=" + kafka.uri("orders-src"),
                  "--target=" + kafka.uri("orders-tgt"),
                  "--warehouse=" + warehouse,
                  "--runner=DirectRunner",
                  // This test checks streaming semantics, not crash recovery.
                  "--allowStateLossOnCrash=true",
                  "--runId=kafka-it",
                  "--kafkaProperties=group.id=it-" + UUID.randomUUID(),
                  // The scenario's streams are out of order by up to ~30 s (new versions, swaps).
                  "--kafkaMaxOutOfOrderness=60s",
                  "--commitInterval=1s",
                  "--progressInterval=0s")
              .as(ReconcileOptions.class);
      PipelineResult result = ReconcileRun.start(options);
      try {
        int expectedDeadLetters = g.badLines() + 1;
        // Every id's verdict needs its entry expired, which needs the watermark past it: the
        // partitions go idle once read, and the watermark then follows the wall clock.
        awaitOrFail(
            result,
            "the expected deltas and dead letters",
            () ->
                tableHas(warehouse, "deltas")
                    && expectedIdsPresent(scenario, warehouse)
                    && tableHas(warehouse, "dead_letters")
                    && DeltaLakeTables.readDeadLetters(warehouse.toString()).size()
                        >= expectedDeadLetters);
        assertEquals(
            "nothing is late before the late phase",
            List.of(),
            DeltaLakeTables.readLateEvents(warehouse.toString()));
        scenario.assertExpected(warehouse);
        assertEquals(
            expectedDeadLetters, DeltaLakeTables.readDeadLetters(warehouse.toString()).size());

        kafka.produceLines("orders-src", LATE);
        awaitOrFail(
            result,
            "the late events",
            () ->
                tableHas(warehouse, "late_events")
                    && DeltaLakeTables.readLateEvents(warehouse.toString()).size() >= LATE.size());
        Set<String> lateIds = new TreeSet<>();
        for (LateEvent l : DeltaLakeTables.readLateEvents(warehouse.toString())) {
          assertEquals(Side.SOURCE, l.event().side());
          assertTrue(l.watermark().isAfter(l.event().eventTime()));
          lateIds.add(l.event().naturalId());
        }
        assertEquals(Set.of("late-1", "late-2"), lateIds);
        Summary summary = Summary.of(result);
        assertEquals(
            g.sourceLines().size() + g.targetLines().size() + 1 + LATE.size(), summary.input());
        assertEquals(LATE.size(), summary.get("late"));
        assertTrue(summary.format(), summary.addsUp());
      } finally {
        result.cancel();
        result.waitUntilFinish(Duration.standardSeconds(30));
      }
    }
  }

  private static boolean tableHas(Path warehouse, String table) {
    return java.nio.file.Files.isDirectory(warehouse.resolve(table).resolve("_delta_log"));
  }

  private static boolean expectedIdsPresent(Scenario scenario, Path warehouse) {
    Set<String> ids = new TreeSet<>();
    for (String line : Scenario.finalView(warehouse)) {
      ids.add(line.substring(0, line.indexOf(' ')));
    }
    long expected =
        scenario.generator().expectations().values().stream()
            .filter(k -> SampleGenerator.expectedStatus(k) != null)
            .count();
    return ids.size() >= expected;
  }

  /** Waits on the pipeline itself (it never finishes by itself) until the condition holds. */
  private static void awaitOrFail(PipelineResult result, String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(180);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      PipelineResult.State state = result.waitUntilFinish(Duration.standardSeconds(1));
      if (state != null && state.isTerminal()) {
        throw new AssertionError("pipeline ended (" + state + ") before " + what);
      }
    }
  }
}
