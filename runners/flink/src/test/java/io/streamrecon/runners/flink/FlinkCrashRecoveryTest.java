package io.streamrecon.runners.flink;

import io.streamrecon.pipeline.testing.CrashHarness;
import io.streamrecon.pipeline.testing.CrashHarness.Fault;
import java.util.List;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The crash test on the FlinkRunner's embedded cluster: the pipeline in its own JVM, killed
 * with SIGKILL three times (after some raw_events commits, inside a Delta Lake commit, after some
 * deltas commits) and restarted with the same command, must end with the tables of an undisturbed
 * run of the same Kafka data: same final verdicts, nothing doubled, nothing lost.
 */
public class FlinkCrashRecoveryTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  static final CrashHarness.Runner FLINK =
      new CrashHarness.Runner(
          "flink",
          List.of(
              "--runner=FlinkRunner",
              "--flinkMaster=[local]",
              "--parallelism=2",
              "--checkpointingInterval=2000"),
          List.of(),
          true);

  @Test
  public void killedThreeTimesEndsWithTheTablesOfAnUndisturbedRun() throws Exception {
    CrashHarness.Result r =
        new CrashHarness(CrashHarness.workDir(tmp.getRoot().toPath()), FLINK, 8)
            .run(
                List.of(
                    Fault.KILL_AFTER_RAW_COMMITS,
                    Fault.KILL_DURING_COMMIT,
                    Fault.KILL_AFTER_DELTAS_COMMIT));
    CrashHarness.assertSameOutcome(r, true);
  }
}
