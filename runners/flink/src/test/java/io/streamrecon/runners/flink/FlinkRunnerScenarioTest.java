package io.streamrecon.runners.flink;

import static org.junit.Assert.assertEquals;

import io.streamrecon.pipeline.ReconcileOptions;
import io.streamrecon.pipeline.ReconcileSettings;
import io.streamrecon.pipeline.testing.Scenario;
import io.streamrecon.transforms.pairing.PairEvents;
import java.nio.file.Path;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The shared scenario on the FlinkRunner (local, streaming mode, event-time expiry): the files are
 * bounded, so the run ends when the final watermark has expired every entry; its final verdicts
 * must equal the DirectRunner's.
 */
public class FlinkRunnerScenarioTest {
  @ClassRule public static TemporaryFolder tmp = new TemporaryFolder();

  @Test
  public void streamingWithEventTimeExpiryAgreesWithDirect() throws Exception {
    Scenario scenario = Scenario.writeTo(tmp.newFolder("input").toPath());
    Path direct = tmp.newFolder("direct").toPath();
    Scenario.runToCompletion(scenario.options(direct, "--runner=DirectRunner"));

    Path flink = tmp.newFolder("flink").toPath();
    ReconcileOptions options =
        scenario.options(
            flink,
            "--runner=FlinkRunner",
            "--flinkMaster=[local]",
            "--streaming=true",
            "--parallelism=2",
            "--commitInterval=1s");
    assertEquals(PairEvents.Expiry.EVENT_TIME, ReconcileSettings.from(options).expiry());
    Scenario.runToCompletion(options);
    assertEquals(Scenario.finalView(direct), Scenario.finalView(flink));
    scenario.assertExpected(flink);
  }
}
