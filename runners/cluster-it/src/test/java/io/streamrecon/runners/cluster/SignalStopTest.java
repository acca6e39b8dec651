package io.streamrecon.runners.cluster;

import static org.junit.Assert.assertTrue;

import io.streamrecon.deltalake.DeltaLakeTables;
import io.streamrecon.pipeline.samples.SampleGenerator;
import io.streamrecon.pipeline.testing.EmbeddedKafka;
import io.streamrecon.pipeline.testing.Scenario;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * SIGTERM stops an unbounded (Kafka) run within 30 seconds, on the SparkRunner and on the
 * FlinkRunner, each run in its own JVM from its deployable jar on a distribution's class path, and
 * leaves Delta Lake tables that read back: every commit either completed or never happened.
 */
public class SignalStopTest {
  @ClassRule public static TemporaryFolder tmp = new TemporaryFolder();

  private static EmbeddedKafka kafka;

  @BeforeClass
  public static void startBroker() throws Exception {
    kafka = EmbeddedKafka.start();
    kafka.createTopics("src", "tgt");
    SampleGenerator g = SampleGenerator.generate(Scenario.SEED, Scenario.IDS);
    kafka.produceLines("src", g.sourceLines());
    kafka.produceLines("tgt", g.targetLines());
  }

  @AfterClass
  public static void stopBroker() throws Exception {
    if (kafka != null) {
      kafka.close();
    }
  }

  @Test
  public void sigtermStopsSparkStreamingWithin30Seconds() throws Exception {
    Path jar = Distribution.builtJar("spark", "-spark-submit.jar");
    Path wh = tmp.newFolder("spark").toPath();
    List<String> cmd = Distribution.jvm(Distribution.distClassPath("spark") + ":" + jar, "-Xmx1g");
    cmd.add("io.streamrecon.runners.spark.SparkMain");
    cmd.addAll(kafkaRun(wh));
    cmd.addAll(
        List.of("--sparkMaster=local[2]", "--batchIntervalMillis=1000", "--processingGrace=5s"));
    stopAndCheck(cmd, wh, "spark", true);
  }

  @Test
  public void sigtermStopsFlinkStreamingWithin30Seconds() throws Exception {
    Path jar = Distribution.builtJar("flink", "-flink-run.jar");
    Path wh = tmp.newFolder("flink").toPath();
    List<String> cmd = Distribution.jvm(Distribution.distClassPath("flink") + ":" + jar, "-Xmx1g");
    cmd.add("io.streamrecon.runners.flink.FlinkMain");
    cmd.addAll(kafkaRun(wh));
    cmd.addAll(List.of("--flinkMaster=[local]", "--parallelism=2"));
    // The FlinkRunner's local execution blocks in run(), so streamrecon's hook is not installed
    // yet: Flink's own shutdown hooks stop the embedded cluster and the job.
    stopAndCheck(cmd, wh, "flink", false);
  }

  private static List<String> kafkaRun(Path wh) {
    return new ArrayList<>(
        List.of(
            "--source=" + kafka.uri("src"),
            "--target=" + kafka.uri("tgt"),
            "--warehouse=" + wh,
            "--kafkaMaxOutOfOrderness=60s",
            "--commitInterval=1s",
            "--progressInterval=2s",
            "--kafkaProperties=group.id=stop-" + UUID.randomUUID()));
  }

  /**
   * Starts the run, waits (with a deadline) until it has committed raw events, sends SIGTERM and
   * requires the JVM to exit within 30 s; the tables must then read back.
   */
  private static void stopAndCheck(List<String> cmd, Path wh, String name, boolean ourHook)
      throws Exception {
    try (Distribution.Child child = new Distribution.Child(cmd, wh.getParent(), name)) {
      Path rawLog = wh.resolve("raw_events").resolve("_delta_log");
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(240);
      while (!Files.isDirectory(rawLog)
          || DeltaLakeTables.tableVersion(wh.toString(), "raw_events") < 0) {
        assertTrue(
            name + " run ended early; stderr:\n" + child.stderrTail(), child.process.isAlive());
        assertTrue(
            name + " committed nothing in 240 s; stderr:\n" + child.stderrTail(),
            System.nanoTime() < deadline);
        child.process.waitFor(1, TimeUnit.SECONDS);
      }
      long signalled = System.nanoTime();
      child.process.destroy(); // SIGTERM
      boolean exited = child.process.waitFor(30, TimeUnit.SECONDS);
      long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - signalled);
      assertTrue(
          name + " still running 30 s after SIGTERM; stderr:\n" + child.stderrTail(), exited);
      System.out.println(
          name
              + ": exited "
              + tookMillis
              + " ms after SIGTERM, status "
              + child.process.exitValue());
      if (ourHook) {
        String err = Files.readString(child.err);
        assertTrue(err, err.contains("stopping (signal received)"));
      }
    }
    // Every committed version reads back (no log entry names a missing or partial file), and
    // what was committed is there: an interrupted commit either completed or never happened.
    List<Map<String, Object>> rows = DeltaLakeTables.readRows(wh.toString(), "raw_events");
    assertTrue(name + " committed raw events before the signal", !rows.isEmpty());
    for (Map<String, Object> row : rows) {
      assertTrue(String.valueOf(row), row.get("natural_id") != null);
    }
  }
}
