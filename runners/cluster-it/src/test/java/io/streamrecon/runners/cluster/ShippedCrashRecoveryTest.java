package io.streamrecon.runners.cluster;

import io.streamrecon.pipeline.testing.ChildProcesses;
import io.streamrecon.pipeline.testing.CrashHarness;
import io.streamrecon.pipeline.testing.CrashHarness.Fault;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The crash test through the artifacts users run: a Kafka job killed with SIGKILL after some
 * raw_events commits, stopped with SIGTERM, killed inside a Delta Lake commit and after some
 * deltas commits, each time started again with the same command, must end with the tables of an
 * undisturbed run (same final verdicts, late events where it had them, nothing lost, nothing
 * doubled). Launched as the README and docs/operations.md say: {@code bin/streamrecon run} on the
 * SparkRunner and on the FlinkRunner, the spark-submit jar through Spark's {@code SparkSubmit} on
 * a Spark 3.5 distribution's class path, and the flink-run jar through Flink's {@code CliFrontend}
 * on a Flink 1.19 distribution's class path. Each restart therefore loads every class
 * a restore needs (Spark's checkpoint reader, the metrics accumulators, the Kafka checkpoint mark,
 * the pairing's state, the committers' history) from the shipped jar.
 */
public class ShippedCrashRecoveryTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  private static final List<Fault> FAULTS =
      List.of(
          Fault.KILL_AFTER_RAW_COMMITS,
          // Second, while the producers still run (about two minutes of data).
          Fault.STOP_AND_RESTART,
          Fault.KILL_DURING_COMMIT,
          Fault.KILL_AFTER_DELTAS_COMMIT);

  /** The SparkRunner's options of the crash runs (event-time expiry from the runner's watermark). */
  private static final List<String> SPARK =
      List.of(
          "--runner=SparkRunner",
          "--sparkMaster=local[2]",
          // Spark reschedules every batch of the downtime on recovery: longer batches, fewer of them.
          "--batchIntervalMillis=5000");

  @Test
  public void binStreamreconOnTheSparkRunnerRestartsFromItsCheckpoint() throws Exception {
    run(new CrashHarness.Runner(
        "spark", SPARK, CrashHarness.binStreamrecon(repositoryRoot()), true), 8);
  }

  @Test
  public void binStreamreconOnTheFlinkRunnerRestartsFromItsCheckpoint() throws Exception {
    run(new CrashHarness.Runner(
        "flink",
        CrashHarness.FLINK_OPTIONS,
        CrashHarness.binStreamrecon(repositoryRoot()),
        true), 8);
  }

  @Test
  public void sparkSubmitJarRestartsFromItsCheckpoint() throws Exception {
    run(new CrashHarness.Runner("spark-submit", SPARK, sparkSubmit(), true), 5);
  }

  /**
   * The flink-run jar under {@code flink run -t local}, with Beam's default {@code
   * --flinkMaster=[auto]}: the job goes to the cluster the client targets, here one embedded in
   * the client's JVM, so a SIGKILL takes the job with it.
   */
  @Test
  public void flinkRunJarRestartsFromItsCheckpoint() throws Exception {
    List<String> options =
        CrashHarness.FLINK_OPTIONS.stream().filter(o -> !o.startsWith("--flinkMaster=")).toList();
    run(new CrashHarness.Runner("flink-run", options, flinkRun(), true), 9);
  }

  private void run(CrashHarness.Runner runner, long seed) throws Exception {
    CrashHarness.Result r =
        new CrashHarness(CrashHarness.workDir(tmp.getRoot().toPath()), runner, seed).run(FAULTS);
    CrashHarness.assertSameOutcome(r, true);
  }

  private static Path repositoryRoot() {
    return Distribution.runnersDir().normalize().getParent();
  }

  /**
   * {@code spark-submit --master local[2] --class SparkMain <jar> run-args}, as a Spark 3.5
   * distribution runs it: {@code SparkSubmit} from the distribution's jars, the jar added after
   * them. The fault file system comes as a user's would: its jar through {@code --jars}, its
   * core-site.xml through the Hadoop configuration directory on the class path.
   */
  private static CrashHarness.Launcher sparkSubmit() {
    return (runArgs, log, faults, jvmOptions) -> {
      Path jar = Distribution.builtJar("spark", "-spark-submit.jar");
      String classPath = Distribution.distClassPath("spark");
      if (faults != null) {
        classPath = faults.hadoopConfDir() + java.io.File.pathSeparator + classPath;
      }
      List<String> options = new ArrayList<>(List.of("-Xmx1g"));
      options.addAll(jvmOptions);
      List<String> cmd = Distribution.jvm(classPath, options.toArray(String[]::new));
      cmd.addAll(List.of(
          "org.apache.spark.deploy.SparkSubmit",
          "--master", "local[2]",
          "--conf", "spark.ui.enabled=false",
          "--class", "io.streamrecon.runners.spark.SparkMain"));
      if (faults != null) {
        cmd.addAll(List.of("--jars", faults.jar().toString()));
      }
      cmd.add(jar.toString());
      cmd.addAll(runArgs);
      return ChildProcesses.start(cmd, log);
    };
  }

  /**
   * {@code flink run -t local -c FlinkMain <jar> run-args}, as a Flink 1.19 distribution runs it:
   * {@code CliFrontend} from the distribution's jars, the jar in Flink's child-first user class
   * loader, the distribution's configuration directory ({@code FLINK_CONF_DIR}). The fault file
   * system comes as a user's would: its jar through {@code -C} (the user class path), its
   * core-site.xml through the Hadoop configuration directory on the class path.
   */
  private CrashHarness.Launcher flinkRun() throws java.io.IOException {
    Path conf = tmp.newFolder("flink-conf").toPath();
    java.nio.file.Files.writeString(conf.resolve("config.yaml"), "parallelism.default: 2\n");
    return (runArgs, log, faults, jvmOptions) -> {
      Path jar = Distribution.builtJar("flink", "-flink-run.jar");
      String classPath = Distribution.distClassPath("flink");
      if (faults != null) {
        classPath = faults.hadoopConfDir() + java.io.File.pathSeparator + classPath;
      }
      List<String> options = new ArrayList<>(List.of("-Xmx1g"));
      options.addAll(jvmOptions);
      List<String> cmd = Distribution.jvm(classPath, options.toArray(String[]::new));
      cmd.addAll(List.of(
          "org.apache.flink.client.cli.CliFrontend",
          "run",
          "-t", "local",
          "-c", "io.streamrecon.runners.flink.FlinkMain"));
      if (faults != null) {
        cmd.addAll(List.of("-C", faults.jar().toUri().toString()));
      }
      cmd.add(jar.toString());
      cmd.addAll(runArgs);
      return ChildProcesses.start(cmd, log, java.util.Map.of("FLINK_CONF_DIR", conf.toString()));
    };
  }
}
