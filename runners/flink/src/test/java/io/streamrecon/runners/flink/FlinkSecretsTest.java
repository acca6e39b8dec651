package io.streamrecon.runners.flink;

import io.streamrecon.pipeline.testing.CrashHarness;
import io.streamrecon.pipeline.testing.SecretLeakCheck;
import java.util.List;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * A Flink streaming job (embedded cluster) reading a SASL_SSL topic with its secrets in a
 * properties file writes neither secret to the warehouse (its checkpoints included) nor to its
 * output.
 */
public class FlinkSecretsTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  @Test
  public void noSecretInTheWarehouseOrTheOutput() throws Exception {
    new SecretLeakCheck(
            tmp.getRoot().toPath(),
            List.of(
                "--runner=FlinkRunner",
                "--flinkMaster=[local]",
                "--parallelism=2",
                "--checkpointingInterval=2000"),
            CrashHarness.addOpensOfThisJvm())
        .run();
  }
}
