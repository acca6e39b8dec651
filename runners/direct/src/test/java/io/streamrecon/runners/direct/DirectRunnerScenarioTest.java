package io.streamrecon.runners.direct;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;

import io.streamrecon.deltalake.DeltaLakeTables;
import io.streamrecon.pipeline.cli.StreamRecon;
import io.streamrecon.pipeline.run.ReconcileRun;
import io.streamrecon.pipeline.samples.SampleGenerator;
import io.streamrecon.pipeline.testing.Scenario;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The DirectRunner on the shared scenario: batch ends with the verdicts the generator meant, the
 * streaming mode agrees with batch, and the command line shows and explains what was written.
 */
public class DirectRunnerScenarioTest {
  @ClassRule public static TemporaryFolder tmp = new TemporaryFolder();

  private static Scenario scenario;
  private static Path batchWarehouse;
  private static ReconcileRun.FinishedRun batch;

  @BeforeClass
  public static void runBatch() throws Exception {
    scenario = Scenario.writeTo(tmp.newFolder("input").toPath());
    batchWarehouse = tmp.newFolder("batch").toPath();
    batch = Scenario.runToCompletion(scenario.options(batchWarehouse, "--runner=DirectRunner"));
  }

  @Test
  public void batchEndsWithTheIntendedVerdicts() {
    scenario.assertExpected(batchWarehouse);
    assertEquals(
        scenario.generator().badLines(),
        DeltaLakeTables.readDeadLetters(batchWarehouse.toString()).size());
    assertEquals(0, batch.summary().get("late"));
  }

  @Test
  public void streamingModeAgreesWithBatch() throws Exception {
    Path wh = tmp.newFolder("streaming").toPath();
    Scenario.runToCompletion(
        scenario.options(wh, "--runner=DirectRunner", "--streaming=true", "--commitInterval=1s"));
    assertEquals(Scenario.finalView(batchWarehouse), Scenario.finalView(wh));
  }

  @Test
  public void showPrintsOneJsonObjectPerRow() {
    String out = capture("show", "deltas", "--warehouse=" + batchWarehouse);
    long rows = DeltaLakeTables.readDeltas(batchWarehouse.toString()).size();
    assertEquals(rows, out.lines().count());
    assertThat(out, containsString("\"differences\":[{\"path\":"));
    String dead = capture("show", "dead-letters", "--warehouse=" + batchWarehouse);
    assertEquals(scenario.generator().badLines(), dead.lines().count());
  }

  @Test
  public void explainShowsBothPayloadsAndTheDiff() {
    Map.Entry<String, java.util.List<String>> mismatch =
        scenario.generator().mismatchPaths().entrySet().iterator().next();
    String out =
        capture("explain", "--naturalId=" + mismatch.getKey(), "--warehouse=" + batchWarehouse);
    assertThat(out, containsString("SOURCE event"));
    assertThat(out, containsString("TARGET event"));
    assertThat(out, containsString("\"path\":\"" + mismatch.getValue().get(0) + "\""));
    assertFalse(out.isBlank());
  }

  @Test
  public void everyKindIsInTheScenario() {
    assertEquals(
        SampleGenerator.Kind.values().length,
        scenario.generator().expectations().values().stream().distinct().count());
  }

  private static String capture(String... args) {
    PrintStream old = System.out;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    try {
      assertEquals(0, StreamRecon.execute(args));
    } finally {
      System.setOut(old);
    }
    return out.toString(StandardCharsets.UTF_8);
  }
}
