package io.streamrecon.pipeline;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import io.streamrecon.deltalake.DeltaLakeTables;
import io.streamrecon.json.ComparisonRules;
import io.streamrecon.model.DeltaRecord;
import io.streamrecon.model.Difference;
import io.streamrecon.model.DifferenceKind;
import io.streamrecon.model.Status;
import io.streamrecon.pipeline.cli.StreamRecon;
import io.streamrecon.pipeline.run.ReconcileRun;
import io.streamrecon.pipeline.run.RulesArchive;
import io.streamrecon.pipeline.run.Summary;
import io.streamrecon.pipeline.testing.EmbeddedKafka;
import io.streamrecon.transforms.Diff;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.metrics.MetricNameFilter;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.MetricsFilter;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * {@code --rules} end to end on the DirectRunner, from files and from a real Kafka broker: the
 * legacy/replacement pairs that differ only as the rules allow are MATCHes, the one within
 * tolerance costs exactly one fetch of each payload, the exactly equal ones cost none, and every
 * DeltaRecord names the rules.
 */
public class RulesPipelineTest {
  @Rule public final TemporaryFolder tmp = new TemporaryFolder();
  @Rule public org.junit.rules.Timeout timeout = org.junit.rules.Timeout.seconds(300);

  static final String RULES =
      "{\"rename\":{\"/customerName\":\"/customer/name\"},"
          + "\"normalize\":{\"/email\":[\"trim\",\"lowercase\"]},"
          + "\"unordered\":{\"/items\":\"/sku\"},"
          + "\"lenientTypes\":[\"/items/*/qty\"],"
          + "\"tolerance\":{\"/total\":{\"abs\":0.01}}}";

  private static final String T = "\"eventTime\":\"2026-01-01T00:00:00Z\"";

  /** Legacy system (source) and its replacement (target). */
  static final List<String> SOURCE =
      List.of(
          // o1: equal under the rules (rename, e-mail case, list order, "2" for 2)
          "{\"id\":\"o1\","
              + T
              + ",\"customerName\":\"Ann\",\"email\":\"Ann@X.org \","
              + "\"items\":[{\"sku\":\"A\",\"qty\":\"2\"},{\"sku\":\"B\",\"qty\":1}],\"total\":10.00}",
          // o2: as o1 but the total differs by 0.01: within tolerance
          "{\"id\":\"o2\","
              + T
              + ",\"customerName\":\"Bob\",\"email\":\"bob@x.org\","
              + "\"items\":[{\"sku\":\"A\",\"qty\":1}],\"total\":5.00}",
          // o3: a real difference: quantity
          "{\"id\":\"o3\","
              + T
              + ",\"customerName\":\"Cy\",\"email\":\"cy@x.org\","
              + "\"items\":[{\"sku\":\"A\",\"qty\":\"1\"},{\"sku\":\"C\",\"qty\":3}],\"total\":7}");

  static final List<String> TARGET =
      List.of(
          "{\"id\":\"o1\","
              + T
              + ",\"customer\":{\"name\":\"Ann\"},\"email\":\"ann@x.org\","
              + "\"items\":[{\"sku\":\"B\",\"qty\":1},{\"sku\":\"A\",\"qty\":2}],\"total\":10}",
          "{\"id\":\"o2\","
              + T
              + ",\"customer\":{\"name\":\"Bob\"},\"email\":\"BOB@x.org\","
              + "\"items\":[{\"sku\":\"A\",\"qty\":1}],\"total\":5.01}",
          "{\"id\":\"o3\","
              + T
              + ",\"customer\":{\"name\":\"Cy\"},\"email\":\"cy@x.org\","
              + "\"items\":[{\"sku\":\"C\",\"qty\":4},{\"sku\":\"A\",\"qty\":1}],\"total\":7}");

  private static long counter(PipelineResult result, String namespace, String name) {
    long sum = 0;
    for (MetricResult<Long> c :
        result
            .metrics()
            .queryMetrics(
                MetricsFilter.builder()
                    .addNameFilter(MetricNameFilter.named(namespace, name))
                    .build())
            .getCounters()) {
      sum += c.getAttempted();
    }
    return sum;
  }

  /** Standard output of a CLI command that must succeed. */
  private static String stdout(String... args) {
    java.io.PrintStream old = System.out;
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    System.setOut(new java.io.PrintStream(out, true, java.nio.charset.StandardCharsets.UTF_8));
    try {
      assertEquals(0, StreamRecon.execute(args));
    } finally {
      System.setOut(old);
    }
    return out.toString(java.nio.charset.StandardCharsets.UTF_8);
  }

  private Path writeRules() throws Exception {
    Path rules = tmp.newFile("rules.json").toPath();
    Files.writeString(rules, RULES);
    return rules;
  }

  /** The run's deltas by natural id. */
  private static Map<String, DeltaRecord> deltas(Path warehouse) {
    Map<String, DeltaRecord> byId = new TreeMap<>();
    for (DeltaRecord d : DeltaLakeTables.readDeltas(warehouse.toString())) {
      byId.put(d.naturalId(), d);
    }
    return byId;
  }

  private static void assertJudgedUnderRules(
      Map<String, DeltaRecord> deltas, String rulesId, int matches) {
    // o1 and o2 are MATCHes (written with --emitMatches), o3 the one real mismatch.
    assertEquals(List.of("o1", "o2", "o3"), new ArrayList<>(deltas.keySet()));
    assertEquals(Status.MATCH, deltas.get("o1").status());
    assertEquals(Status.MATCH, deltas.get("o2").status());
    DeltaRecord o3 = deltas.get("o3");
    assertEquals(Status.MISMATCH, o3.status());
    // Matched by /sku: the source's C is index 1, its qty compared field by field.
    assertEquals(
        List.of(new Difference("/items/1/qty", DifferenceKind.CHANGED, "3", "4")),
        o3.differences());
    for (DeltaRecord d : deltas.values()) {
      assertEquals(d.naturalId(), rulesId, d.rulesId());
    }
  }

  @Test
  public void filesWithAndWithoutRules() throws Exception {
    Path source = tmp.newFile("source.jsonl").toPath();
    Path target = tmp.newFile("target.jsonl").toPath();
    Files.write(source, SOURCE);
    Files.write(target, TARGET);
    Path rules = writeRules();
    String rulesId = ComparisonRules.fromFile(rules.toString()).id();

    Path withRules = tmp.newFolder("with").toPath();
    ReconcileRun.FinishedRun outcome =
        ReconcileRun.run(
            PipelineOptionsFactory.fromArgs(
                    "--source=" + source,
                    "--target=" + target,
                    "--warehouse=" + withRules,
                    "--rules=" + rules,
                    "--emitMatches=true",
                    "--runId=rules-files",
                    "--progressInterval=0s")
                .as(ReconcileOptions.class));
    Summary summary = outcome.summary();
    assertTrue(summary.format(), summary.addsUp());
    assertEquals(summary.format(), 2, summary.match());
    assertEquals(1, summary.get(io.streamrecon.transforms.Diff.MATCH_WITHIN_TOLERANCE));
    assertEquals(1, summary.mismatch());
    // Fetches: o1 is equal by hash and costs none; o2 (tolerance) and o3 one pair each.
    assertEquals(2, counter(outcome.result(), "streamrecon", Diff.PAIRS_DIFFED));
    assertEquals(0, counter(outcome.result(), "streamrecon", "lookup_fallbacks"));
    assertJudgedUnderRules(deltas(withRules), rulesId, 2);
    // The run keeps its rules in the warehouse for explain.
    assertEquals(rulesId, RulesArchive.load(withRules.toString(), rulesId).id());
    String explained = stdout("explain", "--naturalId=o3", "--warehouse=" + withRules);
    assertTrue(explained, explained.contains("comparison rules " + rulesId));
    assertTrue(explained, explained.contains("rename /customerName (source) -> /customer/name"));
    assertTrue(explained, explained.contains("tolerance /total abs 0.01"));
    assertTrue(
        explained,
        explained.contains(
            "under these rules: 1 difference(s)\n"
                + "  {\"path\":\"/items/1/qty\",\"kind\":\"CHANGED\""));
    String shown = stdout("show", "deltas", "--warehouse=" + withRules);
    assertEquals(shown, 3, shown.split("\"rulesId\":\"" + rulesId + "\"", -1).length - 1);

    Path without = tmp.newFolder("without").toPath();
    ReconcileRun.FinishedRun plain =
        ReconcileRun.run(
            PipelineOptionsFactory.fromArgs(
                    "--source=" + source,
                    "--target=" + target,
                    "--warehouse=" + without,
                    "--runId=rules-none",
                    "--progressInterval=0s")
                .as(ReconcileOptions.class));
    assertEquals(3, plain.summary().mismatch());
    assertEquals(0, plain.summary().match());
    for (DeltaRecord d : deltas(without).values()) {
      assertNull(d.rulesId());
      assertEquals(Status.MISMATCH, d.status());
    }
  }

  @Test
  public void kafkaWithRules() throws Exception {
    Path rules = writeRules();
    String rulesId = ComparisonRules.fromFile(rules.toString()).id();
    Path warehouse = tmp.newFolder("wh").toPath();
    try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
      kafka.createTopics("legacy", "replacement");
      kafka.produceLines("legacy", SOURCE);
      kafka.produceLines("replacement", TARGET);
      ReconcileRun.FinishedRun outcome =
          ReconcileRun.run(
              PipelineOptionsFactory.fromArgs(
                      "--source=" + kafka.uri("legacy"),
                      "--target=" + kafka.uri("replacement"),
                      "--warehouse=" + warehouse,
                      "--rules=" + rules,
                      "--emitMatches=true",
                      "--runId=rules-kafka",
                      "--kafkaProperties=group.id=rules-" + UUID.randomUUID(),
                      "--kafkaMaxRecords=" + SOURCE.size(),
                      "--progressInterval=0s")
                  .as(ReconcileOptions.class));
      Summary summary = outcome.summary();
      assertTrue(summary.format(), summary.addsUp());
      assertEquals(summary.format(), 2, summary.match());
      assertEquals(1, summary.mismatch());
      assertJudgedUnderRules(deltas(warehouse), rulesId, 2);
    }
  }
}
