package io.streamrecon.runners.spark;

import io.streamrecon.pipeline.testing.CrashHarness;
import io.streamrecon.pipeline.testing.SecretLeakCheck;
import java.util.List;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * A Spark streaming job ({@code local[2]}) reading a SASL_SSL topic with its secrets in a
 * properties file writes neither secret to the warehouse (its checkpoints included) nor to its
 * output.
 */
public class SparkSecretsTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  @Test
  public void noSecretInTheWarehouseOrTheOutput() throws Exception {
    new SecretLeakCheck(
            tmp.getRoot().toPath(),
            List.of("--runner=SparkRunner", "--sparkMaster=local[2]", "--batchIntervalMillis=1000"),
            CrashHarness.addOpensOfThisJvm())
        .run();
  }
}
