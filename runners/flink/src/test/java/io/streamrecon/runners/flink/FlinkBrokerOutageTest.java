package io.streamrecon.runners.flink;

import io.streamrecon.pipeline.testing.CrashHarness;
import io.streamrecon.pipeline.testing.CrashHarness.Fault;
import java.util.List;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * A broker fault: the KRaft broker stopped (SIGTERM) for 30 s while both pipelines and both
 * producers run, then started again on the same ports and data. The pipeline must wait and go on:
 * the run ends with the tables of a run whose broker never stopped (here both runs see the outage;
 * the expected verdicts come from the generator), nothing lost, nothing doubled.
 */
public class FlinkBrokerOutageTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  /**
   * The FlinkRunner on this JVM's class path: the outage tests the code's reconnects, not the
   * shipped jar (ShippedCrashRecoveryTest in runners/cluster-it runs that).
   */
  private static final CrashHarness.Runner FLINK =
      new CrashHarness.Runner(
          "flink", CrashHarness.FLINK_OPTIONS, CrashHarness.classPath(List.of()), true);

  @Test
  public void aBrokerDownFor30sDelaysTheRunAndLosesNothing() throws Exception {
    CrashHarness.Result r =
        new CrashHarness(CrashHarness.workDir(tmp.getRoot().toPath()), FLINK, 3)
            .run(List.of(Fault.BROKER_DOWN_30S));
    CrashHarness.assertSameOutcome(r, true);
  }
}
