package io.streamrecon.runners.cluster;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamrecon.pipeline.testing.KafkaBrokerProcess;
import io.streamrecon.pipeline.testing.Scenario;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The spark-submit jar on a real Spark standalone cluster of separate JVMs: a master and two
 * workers (1 core each) started from the Spark 3.5 distribution's jars, the jar submitted with
 * {@code SparkSubmit --master spark://… --deploy-mode client}, once in batch on files and once in
 * streaming on Kafka (a broker in its own JVM). The DoFns, coders, Kafka readers and Delta Lake
 * writers then run in executor JVMs that the workers launch and that load the jar from the driver:
 * the final verdicts must equal the DirectRunner's, and both workers' executors must have run
 * tasks.
 */
public class SparkClusterTest {
  @ClassRule public static TemporaryFolder tmp = new TemporaryFolder();

  private static Scenario scenario;
  private static Path input;
  private static Set<String> direct;
  private static SparkStandaloneCluster cluster;

  @BeforeClass
  public static void runDirectAndStartCluster() throws Exception {
    DirectReference reference = DirectReference.get();
    scenario = reference.scenario;
    input = reference.input;
    direct = reference.verdicts;
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
    List<String> cmd = sparkSubmit(jar, "cluster-batch");
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
    JsonNode app = cluster.application("cluster-batch");
    assertEquals(app.toString(), "FINISHED", app.path("state").asText());
    cluster.assertEveryWorkerRanTasks(app.path("id").asText());
  }

  /**
   * Kafka in, from a KRaft broker in its own JVM: a streaming run (1 s micro-batches, event-time
   * expiry on the runner's watermark, which the executors fetch from the driver) whose readers and
   * stateful DoFns run on the two executors; once the deltas table holds the DirectRunner's
   * verdicts the driver gets SIGTERM and must exit within 30 s.
   */
  @Test
  public void kafkaStreamingOnTwoWorkersAgreesWithDirect() throws Exception {
    Path jar = Distribution.builtJar("spark", "-spark-submit.jar");
    Path wh = tmp.newFolder("spark-cluster-kafka").toPath();
    try (KafkaBrokerProcess kafka = KafkaBrokerProcess.start(tmp.newFolder("kafka").toPath())) {
      kafka.createTopics(1, "src", "tgt");
      StreamingInput.produce(kafka, "src", scenario.generator().sourceLines());
      StreamingInput.produce(kafka, "tgt", scenario.generator().targetLines());
      List<String> cmd = sparkSubmit(jar, "cluster-kafka");
      cmd.addAll(
          List.of(
              "--source=" + kafka.uri("src"),
              "--target=" + kafka.uri("tgt"),
              "--warehouse=" + wh,
              "--runId=scenario",
              "--batchIntervalMillis=1000",
              "--kafkaMaxOutOfOrderness=60s",
              "--commitInterval=1s",
              "--kafkaProperties=group.id=cluster-" + UUID.randomUUID(),
              "--progressInterval=0s"));
      try (Distribution.Child child =
          new Distribution.Child(cmd, wh.getParent(), "spark-cluster-kafka", cluster.env())) {
        StreamingInput.awaitVerdicts(child, wh, direct, 300);
        String appId = cluster.application("cluster-kafka").path("id").asText();
        child.process.destroy(); // SIGTERM, as a user's Ctrl-C or an orchestrator's stop
        assertTrue(
            "the driver still runs 30 s after SIGTERM; stderr:\n" + child.stderrTail(),
            child.process.waitFor(30, TimeUnit.SECONDS));
        cluster.assertEveryWorkerRanTasks(appId);
      }
    }
    assertEquals(direct, Scenario.finalView(wh));
  }

  /**
   * {@code spark-submit} in client mode against the cluster: the driver is this child JVM, the
   * executors are the workers' children. Two 1-core executors (one per worker), and no job before
   * both registered, so that work is spread over both.
   */
  private static List<String> sparkSubmit(Path jar, String appName) {
    List<String> cmd = Distribution.jvm(Distribution.distClassPath("spark"), "-Xmx768m");
    cmd.addAll(
        List.of(
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
            jar.toString(),
            // Beam names the Spark application (over spark-submit's --name): how the test finds
            // it in the master's state.
            "--appName=" + appName));
    return cmd;
  }
}
