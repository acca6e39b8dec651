package io.streamrecon.pipeline.cli;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.streamrecon.pipeline.run.ReconcileRun;
import io.streamrecon.pipeline.run.ReplayRun;
import io.streamrecon.pipeline.run.Summary;
import io.streamrecon.pipeline.samples.RulesSample;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.PipelineResult;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * {@code replay} on the SparkRunner in batch ({@code local[2]}): a run without rules replayed under
 * the rules sample's rules gives the final verdicts, differences and counts of a run with those
 * rules over the same files.
 */
public class ReplaySparkTest {
  @Rule public final TemporaryFolder tmp = new TemporaryFolder();
  @Rule public org.junit.rules.Timeout timeout = org.junit.rules.Timeout.seconds(600);

  private static final String[] SPARK = {"--runner=SparkRunner", "--sparkMaster=local[2]"};

  @Test
  public void replayUnderRulesEqualsARunUnderRules() throws Exception {
    Path in = tmp.newFolder("in").toPath();
    RulesSample.generate(42, 400).writeTo(in);
    String source = "--source=" + in.resolve("legacy.jsonl");
    String target = "--target=" + in.resolve("replacement.jsonl");
    Path wh = tmp.newFolder("wh").toPath();
    Path ruled = tmp.newFolder("ruled").toPath();
    String rules = "--rules=" + Path.of("..", "..", "samples", "rules.json");

    ReconcileRun.FinishedRun plain =
        ReplayTest.run(source, target, "--warehouse=" + wh, "--runId=plain", SPARK[0], SPARK[1]);
    assertEquals(PipelineResult.State.DONE, plain.result().getState());
    ReconcileRun.FinishedRun withRules =
        ReplayTest.run(
            source, target, "--warehouse=" + ruled, "--runId=ruled", rules, SPARK[0], SPARK[1]);
    assertTrue(plain.summary().mismatch() > withRules.summary().mismatch());

    ReplayRun.FinishedReplay replay =
        ReplayRun.run(
            ReplayCommand.parse(
                List.of(
                    "--warehouse=" + wh,
                    "--runId=plain",
                    rules,
                    "--replayId=replay-spark",
                    SPARK[0],
                    SPARK[1])));
    assertEquals(PipelineResult.State.DONE, replay.state());
    assertTrue(replay.format(), replay.addsUp());
    assertEquals(ReplayTest.verdicts(ruled, "ruled"), ReplayTest.verdicts(wh, "replay-spark"));
    for (String counter : Summary.PAIRING) {
      assertEquals(counter, withRules.summary().get(counter), replay.summary().get(counter));
    }
    assertEquals(Map.of("plain", plain.summary().raw()), replay.eventsPerRun());
    assertEquals(
        Long.valueOf(plain.summary().mismatch() - withRules.summary().mismatch()),
        replay.transitions().get("MISMATCH → MATCH"));
  }
}
