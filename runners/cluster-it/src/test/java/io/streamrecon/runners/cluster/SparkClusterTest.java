package io.streamrecon.runners.cluster;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamrecon.pipeline.testing.Scenario;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The spark-submit jar on a real Spark standalone cluster of separate JVMs: a master and two
 * workers (1 core each) started from the Spark 3.5 distribution's jars, the jar submitted with
 * {@code SparkSubmit --master spark://… --deploy-mode client}. The DoFns, coders and Delta Lake
 * writers then run in executor JVMs that the workers launch and that load the jar from the driver:
 * the final verdicts must equal the DirectRunner's, and both workers' executors must have run tasks.
 */
public class SparkClusterTest {
  @ClassRule public static TemporaryFolder tmp = new TemporaryFolder();

  private static Scenario scenario;
  private static Path input;
  private static Set<String> direct;
  private static SparkStandaloneCluster cluster;

  @BeforeClass
  public static void runDirectAndStartCluster() throws Exception {
    input = tmp.newFolder("input").toPath();
    scenario = Scenario.writeTo(input);
    Path wh = tmp.newFolder("direct").toPath();
    Scenario.runToCompletion(scenario.options(wh, "--runner=DirectRunner"));
    direct = Scenario.finalView(wh);
    cluster = SparkStandaloneCluster.start(tmp.newFolder("cluster").toPath(), 2, 180);
  }

  @AfterClass
  public static void stopCluster() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  public void batchOnTwoWorkersAgreesWithDirect() throws Exception {
    Path jar = Distribution.builtJar("spark", "-spark-submit.jar");
    Path wh = tmp.newFolder("spark-cluster-batch").toPath();
    List<String> cmd = sparkSubmit(jar);
    cmd.addAll(
        List.of(
            "--source=" + input.resolve("source.jsonl"),
            "--target=" + input.resolve("target.jsonl"),
            "--warehouse=" + wh,
            "--runId=scenario",
            "--progressInterval=0s"));
    try (Distribution.Child child =
        new Distribution.Child(cmd, wh.getParent(), "spark-cluster-batch", cluster.env())) {
      int code = child.waitFor(300);
      assertEquals("spark-submit failed; stderr tail:\n" + child.stderrTail(), 0, code);
      assertTrue(child.stdout(), child.stdout().contains("counts add up"));
    }
    assertEquals(direct, Scenario.finalView(wh));
    scenario.assertExpected(wh);

    // The master ran the application to its end, and each worker's executor ran tasks of it.
    JsonNode state = cluster.masterState();
    JsonNode apps = state.path("completedapps");
    assertEquals(state.toString(), 1, apps.size());
    assertEquals(apps.toString(), "FINISHED", apps.get(0).path("state").asText());
    String appId = apps.get(0).path("id").asText();
    for (Path work : cluster.workDirs()) {
      List<Path> logs = SparkStandaloneCluster.executorLogs(work, appId);
      assertEquals("executors of " + appId + " in " + work, 1, logs.size());
      String log = Files.readString(logs.get(0));
      assertTrue(
          "the executor in " + work + " finished no task:\n" + Distribution.Child.tail(logs.get(0)),
          log.contains("Finished task"));
    }
  }

  /**
   * {@code spark-submit} in client mode against the cluster: the driver is this child JVM, the
   * executors are the workers' children. Two 1-core executors (one per worker), and no job before
   * both registered, so that work is spread over both.
   */
  private static List<String> sparkSubmit(Path jar) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Distribution.java());
    cmd.add("-Xmx768m");
    cmd.addAll(Distribution.sparkJvmFlags());
    cmd.addAll(
        List.of(
            "-cp",
            Distribution.distClassPath("spark"),
            "org.apache.spark.deploy.SparkSubmit",
            "--master",
            cluster.masterUrl(),
            "--deploy-mode",
            "client",
            "--class",
            "io.streamrecon.runners.spark.SparkMain",
            "--executor-memory",
            "512m",
            "--total-executor-cores",
            "2",
            "--conf",
            "spark.executor.extraJavaOptions=" + String.join(" ", Distribution.sparkJvmFlags()),
            "--conf",
            "spark.driver.host=" + Distribution.LOOPBACK,
            "--conf",
            "spark.scheduler.minRegisteredResourcesRatio=1.0",
            "--conf",
            "spark.scheduler.maxRegisteredResourcesWaitingTime=120s",
            "--conf",
            "spark.ui.enabled=false",
            jar.toString()));
    return cmd;
  }
}
