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
 * raw_events commits, stopped with SIGTERM, killed inside a Delta Lake commit, while a checkpoint
 * file is written (SparkRunner) and after some deltas commits, each time started again with the
 * same command, must end with the tables of an undisturbed run (same final verdicts, late events
 * where it had them, nothing lost, nothing doubled). Launched as the README and docs/operations.md
 * say: {@code bin/streamrecon run} on the SparkRunner and on the FlinkRunner, the spark-submit jar
 * through Spark's {@code SparkSubmit} on a Spark 3.5 distribution's class path, and the flink-run
 * jar through Flink's {@code CliFrontend} on a Flink 1.19 distribution's class path. Each restart
 * therefore loads every class a restore needs (Spark's checkpoint reader, the metrics accumulators,
 * the Kafka checkpoint mark, the pairing's state, the committers' history) from the shipped jar.
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

  /**
   * The faults of {@code bin/streamrecon} on the FlinkRunner: those above, and a restart with a
   * changed option, refused. (Under {@code flink run} that restart is first refused for its missing
   * {@code -s}, which the flink-run test checks.)
   */
  private static final List<Fault> FLINK_FAULTS =
      List.of(
          Fault.KILL_AFTER_RAW_COMMITS,
          Fault.STOP_AND_RESTART,
          Fault.RESTART_WITH_CHANGED_OPTION,
          Fault.KILL_DURING_COMMIT,
          Fault.KILL_AFTER_DELTAS_COMMIT);

  /**
   * The faults of a Spark run: those above, with {@code --batchIntervalMillis} as the changed
   * option, and a kill while a checkpoint file is written.
   */
  private static final List<Fault> SPARK_FAULTS =
      List.of(
          Fault.KILL_AFTER_RAW_COMMITS,
          Fault.STOP_AND_RESTART,
          Fault.RESTART_WITH_CHANGED_OPTION,
          Fault.KILL_DURING_COMMIT,
          Fault.KILL_DURING_CHECKPOINT,
          Fault.KILL_AFTER_DELTAS_COMMIT);

  /**
   * The SparkRunner's options of the crash runs (event-time expiry from the runner's watermark).
   */
  private static final List<String> SPARK =
      List.of(
          "--runner=SparkRunner",
          "--sparkMaster=local[2]",
          // Spark reschedules every batch of the downtime on recovery: longer batches, fewer of
          // them.
          "--batchIntervalMillis=5000");

  @Test
  public void binStreamreconOnTheSparkRunnerRestartsFromItsCheckpoint() throws Exception {
    run(
        new CrashHarness.Runner(
            "spark", SPARK, CrashHarness.binStreamrecon(repositoryRoot()), true),
        8,
        SPARK_FAULTS);
  }

  @Test
  public void binStreamreconOnTheFlinkRunnerRestartsFromItsCheckpoint() throws Exception {
    run(
        new CrashHarness.Runner(
            "flink",
            CrashHarness.FLINK_OPTIONS,
            CrashHarness.binStreamrecon(repositoryRoot()),
            true),
        8,
        FLINK_FAULTS);
  }

  @Test
  public void sparkSubmitJarRestartsFromItsCheckpoint() throws Exception {
    run(new CrashHarness.Runner("spark-submit", SPARK, sparkSubmit(), true), 5, SPARK_FAULTS);
  }

  /**
   * The flink-run jar under {@code flink run -t local}, with Beam's default {@code
   * --flinkMaster=[auto]}: the job goes to the cluster the client targets, here one embedded in the
   * client's JVM, so a SIGKILL takes the job with it.
   */
  @Test
  public void flinkRunJarRestartsFromItsCheckpoint() throws Exception {
    List<String> options =
        CrashHarness.FLINK_OPTIONS.stream().filter(o -> !o.startsWith("--flinkMaster=")).toList();
    run(new CrashHarness.Runner("flink-run", options, flinkRun(), true), 9, FAULTS);
  }

  private void run(CrashHarness.Runner runner, long seed, List<Fault> faults) throws Exception {
    CrashHarness.Result r =
        new CrashHarness(CrashHarness.workDir(tmp.getRoot().toPath()), runner, seed).run(faults);
    CrashHarness.assertSameOutcome(r, true);
  }

  private static Path repositoryRoot() {
    return Distribution.runnersDir().normalize().getParent();
  }

  /**
   * {@code spark-submit --master local[2] --class SparkMain <jar> run-args}, as a Spark 3.5
   * distribution runs it: {@code SparkSubmit} from the distribution's jars, the jar added after
   * them. The fault file systems come as a user's would: the Hadoop file systems' jar on the
   * driver's class path ({@code --driver-class-path}), the log store's through {@code --jars},
   * their core-site.xml through the Hadoop configuration directory on the class path.
   */
  private static CrashHarness.Launcher sparkSubmit() {
    return (runArgs, log, faults, jvmOptions) -> {
      Path jar = Distribution.builtJar("spark", "-spark-submit.jar");
      String classPath = Distribution.distClassPath("spark");
      if (faults != null) {
        // The file systems on the driver's class path, as spark-submit --driver-class-path puts
        // them there: Hadoop loads a file: file system while SparkSubmit resolves its arguments,
        // before --jars are added. The log store (it extends a class of the application jar)
        // comes with --jars, below.
        classPath =
            faults.hadoopConfDir()
                + java.io.File.pathSeparator
                + faults.fileSystemJar()
                + java.io.File.pathSeparator
                + classPath;
      }
      List<String> options = new ArrayList<>(List.of("-Xmx1g"));
      options.addAll(jvmOptions);
      List<String> cmd = Distribution.jvm(classPath, options.toArray(String[]::new));
      cmd.addAll(
          List.of(
              "org.apache.spark.deploy.SparkSubmit",
              "--master",
              "local[2]",
              "--conf",
              "spark.ui.enabled=false",
              "--class",
              "io.streamrecon.runners.spark.SparkMain"));
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
    // Under flink run the client's configuration places the cluster's local files: in the test's
    // folder, so that what the killed clients leave (the job's jar in the blob store, each time)
    // goes with it, as docs/operations.md advises an operator.
    java.nio.file.Files.writeString(
        conf.resolve("config.yaml"),
        "parallelism.default: 2\nprocess.working-dir: "
            + tmp.newFolder("flink-work")
            + "\nio.tmp.dirs: "
            + tmp.newFolder("flink-tmp")
            + "\n");
    CrashHarness.Launcher plain = flinkRun(conf, List.of());
    // A restart as an operator does it: the same command is refused, naming the checkpoint to
    // restore, and that checkpoint is passed with -s.
    return (runArgs, log, faults, jvmOptions) -> {
      if (!hasCompletedFlinkCheckpoint(runArgs)) {
        return plain.start(runArgs, log, faults, jvmOptions);
      }
      Process refused = plain.start(runArgs, log, faults, jvmOptions);
      try {
        if (!refused.waitFor(120, java.util.concurrent.TimeUnit.SECONDS)) {
          ChildProcesses.kill(refused);
          throw new AssertionError(
              "flink run without -s did not end within 120 s although the job has a checkpoint");
        }
      } catch (InterruptedException e) {
        ChildProcesses.kill(refused);
        Thread.currentThread().interrupt();
        throw new java.io.InterruptedIOException("waiting for flink run to refuse");
      }
      String out = java.nio.file.Files.readString(log);
      String attempt = out.substring(out.lastIndexOf("=== start"));
      java.util.regex.Matcher m =
          java.util.regex.Pattern.compile("run the same command with -s (\\S+) after `run`")
              .matcher(attempt);
      org.junit.Assert.assertTrue(
          "flink run without -s ended (exit "
              + refused.exitValue()
              + ") without naming the checkpoint to restore; its error lines:\n"
              + attempt.lines().filter(l -> l.startsWith("streamrecon:")).toList(),
          refused.exitValue() == 2 && m.find());
      return flinkRun(conf, List.of("-s", m.group(1))).start(runArgs, log, faults, jvmOptions);
    };
  }

  /** Whether the run's warehouse holds a completed Flink checkpoint ({@code chk-N/_metadata}). */
  private static boolean hasCompletedFlinkCheckpoint(List<String> runArgs)
      throws java.io.IOException {
    Path warehouse =
        Path.of(
            runArgs.stream()
                .filter(a -> a.startsWith("--warehouse="))
                .findFirst()
                .orElseThrow()
                .substring("--warehouse=".length()));
    Path checkpoints = warehouse.resolve("_checkpoints");
    if (!java.nio.file.Files.isDirectory(checkpoints)) {
      return false;
    }
    try (java.util.stream.Stream<Path> files = java.nio.file.Files.walk(checkpoints, 5)) {
      return files.anyMatch(
          p ->
              p.getFileName().toString().equals("_metadata")
                  && p.getParent().getFileName().toString().startsWith("chk-"));
    }
  }

  private static CrashHarness.Launcher flinkRun(Path conf, List<String> clientOptions) {
    return (runArgs, log, faults, jvmOptions) -> {
      Path jar = Distribution.builtJar("flink", "-flink-run.jar");
      String classPath = Distribution.distClassPath("flink");
      if (faults != null) {
        classPath = faults.hadoopConfDir() + java.io.File.pathSeparator + classPath;
      }
      List<String> options = new ArrayList<>(List.of("-Xmx1g"));
      options.addAll(jvmOptions);
      List<String> cmd = Distribution.jvm(classPath, options.toArray(String[]::new));
      cmd.addAll(
          List.of(
              "org.apache.flink.client.cli.CliFrontend",
              "run",
              "-t",
              "local",
              "-c",
              "io.streamrecon.runners.flink.FlinkMain"));
      cmd.addAll(clientOptions);
      if (faults != null) {
        cmd.addAll(List.of("-C", faults.jar().toUri().toString()));
      }
      cmd.add(jar.toString());
      cmd.addAll(runArgs);
      return ChildProcesses.start(cmd, log, java.util.Map.of("FLINK_CONF_DIR", conf.toString()));
    };
  }
}
