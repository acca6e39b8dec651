package io.streamrecon.runners.flink;

import io.streamrecon.pipeline.samples.SampleGenerator;
import io.streamrecon.pipeline.testing.ChildProcesses;
import io.streamrecon.pipeline.testing.CrashHarness;
import io.streamrecon.pipeline.testing.KafkaBrokerProcess;
import io.streamrecon.pipeline.testing.KcatProducer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * Not a test (not run by {@code mvn verify}): the measurement behind {@link
 * FlinkRecovery#DEFAULT_STATE_BACKEND}. Reconciles 20,000 natural ids from Kafka with a 10-minute
 * timeout (so every entry stays open) on the embedded Flink cluster with each state backend, and
 * prints the size and duration of every completed checkpoint as Flink reports them. Run with {@code
 * -Dtest=StateBackendMeasurement -Dstreamrecon.rocksdbJars=<jar>:<jar>} (the RocksDB state backend
 * and frocksdbjni are not dependencies of this module).
 */
public class StateBackendMeasurement {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  private static final Pattern COMPLETED =
      Pattern.compile(
          "Completed checkpoint (\\d+) for job \\S+ \\((\\d+) bytes.*?checkpointDuration=(\\d+) ms");

  @Test
  public void measure() throws Exception {
    Path dir = tmp.getRoot().toPath();
    SampleGenerator g = SampleGenerator.generate(7, 20_000);
    try (KafkaBrokerProcess broker = KafkaBrokerProcess.start(dir.resolve("broker"))) {
      broker.createTopics(2, "src", "tgt");
      // Live event times (from now on, compressed): old ones would all be late and keep no state.
      java.time.Instant now = java.time.Instant.now();
      produce(broker, "src", CrashHarness.live(g.sourceLines(), now, "s"), dir);
      produce(broker, "tgt", CrashHarness.live(g.targetLines(), now, "t"), dir);
      for (String backend :
          System.getProperty("streamrecon.backends", "filesystem,rocksdb").split(",")) {
        run(broker, backend, dir, g.sourceLines().size() + g.targetLines().size());
      }
    }
  }

  private static void produce(KafkaBrokerProcess broker, String topic, List<String> lines, Path dir)
      throws Exception {
    Path file = dir.resolve(topic + ".txt");
    Files.write(file, lines, StandardCharsets.UTF_8); // already keyed
    try (KcatProducer p =
        KcatProducer.fromFile(broker.bootstrapServers(), topic, file, dir.resolve("kcat.log"))) {
      p.awaitDone(120, dir.resolve("kcat.log"));
    }
  }

  private static void run(KafkaBrokerProcess broker, String backend, Path dir, int records)
      throws Exception {
    Path wh = dir.resolve("wh-" + backend);
    Path log = dir.resolve("run-" + backend + ".log");
    List<String> cmd = new ArrayList<>();
    cmd.add(ChildProcesses.java());
    cmd.add("-Xmx1g");
    cmd.add(
        "-Dorg.slf4j.simpleLogger.log.org.apache.flink.runtime.checkpoint.CheckpointCoordinator=info");
    cmd.add("-cp");
    String rocks = System.getProperty("streamrecon.rocksdbJars", "");
    cmd.add(
        rocks.isEmpty() ? ChildProcesses.classPath() : rocks + ":" + ChildProcesses.classPath());
    cmd.add("io.streamrecon.pipeline.cli.StreamRecon");
    cmd.addAll(
        List.of(
            "run",
            "--source=" + broker.uri("src"),
            "--target=" + broker.uri("tgt"),
            "--warehouse=" + wh,
            "--kafkaProperties=group.id=m-" + backend,
            "--runner=FlinkRunner",
            "--flinkMaster=[local]",
            "--parallelism=2",
            "--checkpointingInterval=5000",
            "--stateBackend=" + backend,
            "--progressInterval=10s"));
    long start = System.nanoTime();
    Process p = ChildProcesses.start(cmd, log);
    try {
      // 20 checkpoints at 5 s: on this machine the state stops growing by about the 9th, once
      // every record is read (Flink's progress line is not available to poll here).
      ChildProcesses.await(
          "20 checkpoints with " + backend, 400, p, log, () -> completed(log).size() >= 20);
    } finally {
      ChildProcesses.kill(p);
    }
    System.out.printf(
        "%s: %d records, %.0f s%n", backend, records, (System.nanoTime() - start) / 1e9);
    for (String c : completed(log)) {
      System.out.println("  " + backend + " " + c);
    }
  }

  private static List<String> completed(Path log) {
    List<String> out = new ArrayList<>();
    try {
      for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
        Matcher m = COMPLETED.matcher(line);
        if (m.find()) {
          out.add("checkpoint " + m.group(1) + ": " + m.group(2) + " bytes, " + m.group(3) + " ms");
        }
      }
    } catch (java.io.IOException e) {
      return out;
    }
    return out;
  }
}
