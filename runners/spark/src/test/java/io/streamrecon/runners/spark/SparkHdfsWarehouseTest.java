package io.streamrecon.runners.spark;

import static org.junit.Assert.assertEquals;

import io.streamrecon.deltalake.DeltaLakeTables;
import io.streamrecon.deltalake.WarehouseTables;
import io.streamrecon.pipeline.run.ReconcileRun;
import io.streamrecon.pipeline.testing.HdfsProcess;
import io.streamrecon.pipeline.testing.Scenario;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The shared scenario on the SparkRunner ({@code local[2]}, batch) into a warehouse on HDFS (a
 * {@code MiniDFSCluster} in its own JVM): the Delta Lake writers run in Spark's tasks and commit
 * there; the run's counts add up, every stored row reads back from HDFS, and the verdicts are the
 * generator's.
 */
public class SparkHdfsWarehouseTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  @Test
  public void batchRunOnHdfsStoresEveryRowAndEndsWithTheIntendedVerdicts() throws Exception {
    Scenario scenario = Scenario.writeTo(tmp.newFolder("input").toPath());
    try (HdfsProcess hdfs = HdfsProcess.start(tmp.newFolder("hdfs").toPath())) {
      String warehouse = hdfs.uri() + "/recon/warehouse";
      ReconcileRun.FinishedRun outcome =
          Scenario.runToCompletion(
              scenario.options(warehouse, "--runner=SparkRunner", "--sparkMaster=local[2]"));
      scenario.assertExpected(warehouse);
      assertEquals(
          outcome.summary().raw(),
          DeltaLakeTables.readRows(warehouse, WarehouseTables.RAW_EVENTS).size());
      assertEquals(scenario.generator().badLines(), outcome.summary().deadLetters());
      assertEquals(
          scenario.generator().badLines(), DeltaLakeTables.readDeadLetters(warehouse).size());
    }
  }
}
