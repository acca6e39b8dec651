package io.streamrecon.runners.spark;

import io.streamrecon.pipeline.testing.CrashHarness;
import io.streamrecon.pipeline.testing.CrashHarness.Fault;
import java.util.List;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The crash test on the SparkRunner {@code local[2]} in streaming mode, with event-time expiry
 * read from the runner's watermark (so the late phase's events land in late_events, as on Flink):
 * killed with SIGKILL three times and restarted from its checkpoint directory under the job root,
 * it must end with the tables of an undisturbed run.
 */
public class SparkCrashRecoveryTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  @Test
  public void killedThreeTimesEndsWithTheTablesOfAnUndisturbedRun() throws Exception {
    CrashHarness.Runner spark =
        new CrashHarness.Runner(
            "spark",
            List.of(
                "--runner=SparkRunner",
                "--sparkMaster=local[2]",
                // Spark reschedules every batch of the downtime on recovery: longer batches, fewer
                // of them.
                "--batchIntervalMillis=5000"),
            CrashHarness.addOpensOfThisJvm(),
            true);
    CrashHarness.Result r =
        new CrashHarness(CrashHarness.workDir(tmp.getRoot().toPath()), spark, 8)
            .run(
                List.of(
                    Fault.KILL_AFTER_RAW_COMMITS,
                    Fault.KILL_DURING_COMMIT,
                    Fault.KILL_AFTER_DELTAS_COMMIT));
    CrashHarness.assertSameOutcome(r, true);
  }
}
