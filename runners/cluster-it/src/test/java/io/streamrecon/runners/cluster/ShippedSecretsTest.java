package io.streamrecon.runners.cluster;

import io.streamrecon.pipeline.testing.CrashHarness;
import io.streamrecon.pipeline.testing.SecretLeakCheck;
import java.util.List;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * A streaming job started with {@code bin/streamrecon run}, reading a SASL_SSL topic with its
 * secrets in a properties file, writes neither secret to the warehouse (its checkpoints included)
 * nor to its output: on the SparkRunner ({@code local[2]}) and on the FlinkRunner ({@code
 * [local]}), from the jars users run.
 */
public class ShippedSecretsTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  private static CrashHarness.Launcher bin() {
    return CrashHarness.binStreamrecon(Distribution.runnersDir().normalize().getParent());
  }

  @Test
  public void sparkRunnerWritesNoSecret() throws Exception {
    new SecretLeakCheck(
            tmp.getRoot().toPath(),
            List.of("--runner=SparkRunner", "--sparkMaster=local[2]", "--batchIntervalMillis=1000"),
            bin())
        .run();
  }

  @Test
  public void flinkRunnerWritesNoSecret() throws Exception {
    new SecretLeakCheck(tmp.getRoot().toPath(), CrashHarness.FLINK_OPTIONS, bin()).run();
  }
}
