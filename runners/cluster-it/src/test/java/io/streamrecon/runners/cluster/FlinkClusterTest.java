package io.streamrecon.runners.cluster;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamrecon.pipeline.testing.KafkaBrokerProcess;
import io.streamrecon.pipeline.testing.Scenario;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The flink-run jar on a real Flink session cluster of separate JVMs: a JobManager and a
 * TaskManager (2 slots) started from the Flink 1.19 distribution's class path, the jar submitted
 * with {@code flink run -m host:restPort} ({@code CliFrontend}), which uploads it to the cluster.
 * The DoFns, coders and Delta Lake writers then run in the TaskManager, loaded by Flink's user
 * class loader: the final verdicts must equal the DirectRunner's, and the JobManager must report
 * the job finished with every subtask on that TaskManager. The same jar also runs an unbounded
 * Kafka job there (a broker in its own JVM), cancelled once its verdicts are the DirectRunner's.
 */
public class FlinkClusterTest {
  @ClassRule public static TemporaryFolder tmp = new TemporaryFolder();

  private static Scenario scenario;
  private static Path input;
  private static Set<String> direct;
  private static FlinkSessionCluster cluster;

  @BeforeClass
  public static void runDirectAndStartCluster() throws Exception {
    DirectReference reference = DirectReference.get();
    scenario = reference.scenario;
    input = reference.input;
    direct = reference.verdicts;
    cluster = FlinkSessionCluster.start(tmp.newFolder("cluster").toPath(), 2, 180);
  }

  @AfterClass
  public static void stopCluster() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  public void filesOnSessionClusterAgreeWithDirect() throws Exception {
    Path jar = Distribution.builtJar("flink", "-flink-run.jar");
    Path wh = tmp.newFolder("flink-cluster").toPath();
    List<String> cmd = flinkRun(jar);
    cmd.addAll(
        List.of(
            "--source=" + input.resolve("source.jsonl"),
            "--target=" + input.resolve("target.jsonl"),
            "--warehouse=" + wh,
            "--runId=scenario",
            "--streaming=true",
            "--parallelism=2",
            "--commitInterval=1s",
            "--progressInterval=0s"));
    try (Distribution.Child child =
        new Distribution.Child(
            cmd,
            wh.getParent(),
            "flink-cluster-run",
            Map.of("FLINK_CONF_DIR", cluster.confDir().toString()))) {
      int code = child.waitFor(300);
      assertEquals("flink run failed; stderr tail:\n" + child.stderrTail(), 0, code);
      assertTrue(child.stdout(), child.stdout().contains("counts add up"));
    }
    assertEquals(direct, Scenario.finalView(wh));
    scenario.assertExpected(wh);

    // The session cluster, not an embedded one in the client, ran the job: the JobManager lists
    // it finished, and every subtask of every vertex ran on the one TaskManager.
    List<JsonNode> finished = jobsIn("FINISHED");
    assertEquals(finished.toString(), 1, finished.size());
    String jobId = finished.get(0).path("jid").asText();
    JsonNode taskManagers = cluster.rest("/taskmanagers").path("taskmanagers");
    assertEquals(taskManagers.toString(), 1, taskManagers.size());
    String tmId = taskManagers.get(0).path("id").asText();
    JsonNode vertices = cluster.rest("/jobs/" + jobId).path("vertices");
    assertTrue(vertices.toString(), vertices.size() > 0);
    int subtasks = 0;
    for (JsonNode vertex : vertices) {
      JsonNode detail = cluster.rest("/jobs/" + jobId + "/vertices/" + vertex.path("id").asText());
      for (JsonNode subtask : detail.path("subtasks")) {
        assertEquals(subtask.toString(), "FINISHED", subtask.path("status").asText());
        assertEquals(subtask.toString(), tmId, subtask.path("taskmanager-id").asText());
        subtasks++;
      }
    }
    assertTrue("subtasks: " + subtasks, subtasks >= vertices.size());
  }

  /**
   * Kafka in, from a KRaft broker in its own JVM: an unbounded job on the session cluster (event-
   * time expiry, checkpoints on, Kafka readers and stateful DoFns in the TaskManager). Done when
   * the deltas table holds the DirectRunner's verdicts; the job is then cancelled through the
   * JobManager, which must report it CANCELED and free its slots.
   */
  @Test
  public void kafkaStreamingOnSessionClusterAgreesWithDirect() throws Exception {
    Path jar = Distribution.builtJar("flink", "-flink-run.jar");
    Path wh = tmp.newFolder("flink-cluster-kafka").toPath();
    try (KafkaBrokerProcess kafka = KafkaBrokerProcess.start(tmp.newFolder("kafka").toPath())) {
      // Two partitions, one per reader subtask: each split must send its watermark.
      kafka.createTopics(2, "src", "tgt");
      StreamingInput.produce(kafka, "src", scenario.generator().sourceLines());
      StreamingInput.produce(kafka, "tgt", scenario.generator().targetLines());
      List<String> cmd = flinkRun(jar);
      cmd.addAll(
          List.of(
              "--source=" + kafka.uri("src"),
              "--target=" + kafka.uri("tgt"),
              "--warehouse=" + wh,
              "--runId=scenario",
              "--parallelism=2",
              // The scenario's streams are out of order by up to ~30 s (new versions, swaps).
              "--kafkaMaxOutOfOrderness=60s",
              "--commitInterval=1s",
              "--kafkaProperties=group.id=cluster-" + UUID.randomUUID(),
              "--progressInterval=0s"));
      try (Distribution.Child child =
          new Distribution.Child(
              cmd,
              wh.getParent(),
              "flink-cluster-kafka",
              Map.of("FLINK_CONF_DIR", cluster.confDir().toString()))) {
        StreamingInput.awaitVerdicts(child, wh, direct, 300);
        List<JsonNode> running = jobsIn("RUNNING");
        assertEquals(running.toString(), 1, running.size());
        String jobId = running.get(0).path("jid").asText();
        cluster.cancel(jobId);
        // The attached client returns once the job has ended.
        child.waitFor(60);
        assertEquals("CANCELED", cluster.rest("/jobs/" + jobId).path("state").asText());
        cluster.awaitFreeSlots(60);
      }
    }
    assertEquals(direct, Scenario.finalView(wh));
  }

  /** {@code flink run -m <cluster> -c FlinkMain <jar>}, arguments to follow. */
  private static List<String> flinkRun(Path jar) {
    List<String> cmd = Distribution.jvm(Distribution.distClassPath("flink"), "-Xmx512m");
    cmd.addAll(
        List.of(
            "org.apache.flink.client.cli.CliFrontend",
            "run",
            "-m",
            cluster.restAddress(),
            "-c",
            "io.streamrecon.runners.flink.FlinkMain",
            jar.toString()));
    return cmd;
  }

  private static List<JsonNode> jobsIn(String state) throws Exception {
    List<JsonNode> jobs = new ArrayList<>();
    for (JsonNode job : cluster.rest("/jobs/overview").path("jobs")) {
      if (state.equals(job.path("state").asText())) {
        jobs.add(job);
      }
    }
    return jobs;
  }
}
