package io.streamrecon.pipeline.cli;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import io.streamrecon.deltalake.DeltaLakeTables;
import io.streamrecon.deltalake.WarehouseTables;
import io.streamrecon.model.DeltaRecord;
import io.streamrecon.pipeline.ReconcileOptions;
import io.streamrecon.pipeline.run.ReconcileRun;
import io.streamrecon.pipeline.run.ReplayRun;
import io.streamrecon.pipeline.run.ReplaySettings;
import io.streamrecon.pipeline.run.Summary;
import io.streamrecon.pipeline.samples.RulesSample;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * {@code replay} on the DirectRunner: a run without rules replayed under the rules sample's rules
 * gives the verdicts, differences and counts of a run with those rules over the same files, without
 * storing any raw event again.
 */
public class ReplayTest {
  @Rule public final TemporaryFolder tmp = new TemporaryFolder();
  @Rule public org.junit.rules.Timeout timeout = org.junit.rules.Timeout.seconds(600);

  static final Path RULES = Path.of("..", "samples", "rules.json");

  static ReconcileRun.FinishedRun run(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.add("--progressInterval=0s");
    return ReconcileRun.run(
        PipelineOptionsFactory.fromArgs(all.toArray(new String[0])).as(ReconcileOptions.class));
  }

  /** Each natural id's records of a run, without what differs by run (pointers, times, run id). */
  static Map<String, List<String>> verdicts(Path warehouse, String runId) {
    Map<String, List<String>> byId = new TreeMap<>();
    for (DeltaRecord d : DeltaLakeTables.readDeltas(warehouse.toString())) {
      if (!d.runId().equals(runId)) {
        continue;
      }
      byId.computeIfAbsent(d.naturalId(), k -> new ArrayList<>())
          .add(
              String.join(
                  " ",
                  d.verdictId(),
                  String.valueOf(d.supersedes()),
                  d.status().name(),
                  String.valueOf(d.sourceHash()),
                  String.valueOf(d.targetHash()),
                  String.valueOf(d.sourceEventTime()),
                  String.valueOf(d.targetEventTime()),
                  String.valueOf(d.rulesId()),
                  d.differences().toString()));
    }
    byId.values().forEach(l -> l.sort(String::compareTo));
    return byId;
  }

  @Test
  public void replayUnderRulesEqualsARunUnderRules() throws Exception {
    Path in = tmp.newFolder("in").toPath();
    RulesSample.generate(42, 240).writeTo(in);
    String source = "--source=" + in.resolve("legacy.jsonl");
    String target = "--target=" + in.resolve("replacement.jsonl");
    Path wh = tmp.newFolder("wh").toPath();
    Path ruled = tmp.newFolder("ruled").toPath();

    ReconcileRun.FinishedRun plain = run(source, target, "--warehouse=" + wh, "--runId=plain");
    assertEquals(PipelineResult.State.DONE, plain.result().getState());
    ReconcileRun.FinishedRun withRules =
        run(source, target, "--warehouse=" + ruled, "--runId=ruled", "--rules=" + RULES);
    assertTrue(withRules.summary().format(), withRules.summary().mismatch() > 0);
    assertTrue(plain.summary().mismatch() > withRules.summary().mismatch());
    long rawBefore = DeltaLakeTables.readRows(wh.toString(), WarehouseTables.RAW_EVENTS).size();

    ReplayRun.FinishedReplay replay =
        ReplayRun.run(
            ReplayCommand.parse(
                List.of(
                    "--warehouse=" + wh,
                    "--runId=plain",
                    "--rules=" + RULES,
                    "--replayId=replay-1")));
    assertEquals(PipelineResult.State.DONE, replay.state());
    Summary s = replay.summary();
    assertTrue(replay.format(), replay.addsUp());

    // The same verdicts, differences and counts as the run with rules.
    assertEquals(verdicts(ruled, "ruled"), verdicts(wh, "replay-1"));
    for (String counter : Summary.PAIRING) {
      assertEquals(counter, withRules.summary().get(counter), s.get(counter));
    }
    assertEquals(withRules.summary().raw(), s.raw());
    assertEquals(Map.of("plain", plain.summary().raw()), replay.eventsPerRun());

    // No raw event stored twice; the replay's pointers name the stored rows.
    assertEquals(
        rawBefore, DeltaLakeTables.readRows(wh.toString(), WarehouseTables.RAW_EVENTS).size());
    for (DeltaRecord d : DeltaLakeTables.readDeltas(wh.toString())) {
      if (d.runId().equals("replay-1") && d.sourcePointer() != null) {
        List<Map<String, Object>> rows =
            DeltaLakeTables.findRawEvents(wh.toString(), d.naturalId());
        assertTrue(
            d.toString(),
            rows.stream()
                .anyMatch(
                    r ->
                        r.get(DeltaLakeTables.DATA_FILE).equals(d.sourcePointer().dataFile())
                            && r.get(DeltaLakeTables.ROW_INDEX).equals(d.sourcePointer().rowIndex())
                            && r.get("side").equals("SOURCE")));
      }
    }

    // Transitions: every mismatch the rules resolve is MISMATCH → MATCH.
    long resolved = plain.summary().mismatch() - withRules.summary().mismatch();
    Map<String, Long> t = replay.transitions();
    assertEquals(t.toString(), Long.valueOf(resolved), t.get("MISMATCH → MATCH"));
    assertEquals(
        t.toString(), Long.valueOf(withRules.summary().mismatch()), t.get("MISMATCH unchanged"));
    assertEquals(replay.naturalIds(), t.values().stream().mapToLong(Long::longValue).sum());
    assertFalse(t.containsKey("MATCH → MISMATCH"));

    // The replay's record names what it replayed.
    String record = Files.readString(wh.resolve(ReplayRun.RECORDS_DIR).resolve("replay-1.json"));
    assertTrue(record, record.contains("\"runIds\" : [ \"plain\" ]"));
    assertTrue(record, record.contains("\"MISMATCH → MATCH\" : " + resolved));
    assertTrue(
        record,
        record.contains(
            "\"rulesId\" : \""
                + io.streamrecon.json.ComparisonRules.fromFile(RULES.toString()).id()));
  }

  @Test
  public void refusesInputOptionsAndAnEmptySelection() {
    try {
      ReplayCommand.parse(List.of("--warehouse=/tmp/x", "--source=a.jsonl", "--runId=r"));
      throw new AssertionError("--source accepted");
    } catch (IllegalArgumentException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("--source does not apply"));
    }
    try {
      ReplayCommand.parse(List.of("--warehouse=/tmp/x", "--rules=" + RULES));
      throw new AssertionError("no selection accepted");
    } catch (IllegalArgumentException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("select the stored events"));
    }
    ReplaySettings r =
        ReplayCommand.parse(
            List.of("--warehouse=/tmp/x", "--since=2026-01-01", "--until=2026-01-02T00:00:00Z"));
    assertEquals(1767225600000L, r.since().getMillis());
    assertEquals(1767312000000L, r.until().getMillis());
    assertTrue(r.replayId(), r.replayId().startsWith(ReplaySettings.ID_PREFIX));
    assertTrue(r.replayId(), io.streamrecon.deltalake.WarehouseIds.isValid(r.replayId()));
    // A selection only compares run ids with stored rows: the form earlier runs were stored with.
    assertEquals(
        List.of("run:1"),
        ReplayCommand.parse(List.of("--warehouse=/tmp/x", "--runId=run:1")).runIds());
  }
}
