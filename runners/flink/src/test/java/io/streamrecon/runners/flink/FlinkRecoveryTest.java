package io.streamrecon.runners.flink;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import io.streamrecon.pipeline.io.ReadKafka;
import io.streamrecon.pipeline.run.JobCheckpoints;
import io.streamrecon.pipeline.runner.JobIdentity;
import io.streamrecon.pipeline.runner.RunnerProfile;
import io.streamrecon.pipeline.runner.RunnerSupport;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.hadoop.fs.FileSystem;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** Checkpoint defaults and restore wiring of {@link FlinkRecovery}, on a real directory tree. */
public class FlinkRecoveryTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  private JobIdentity job(Path root) {
    return new JobIdentity("job", "run-1", root.toUri().toString().replaceAll("/$", ""), true);
  }

  private static void checkpoint(Path storage, String flinkJob, int n, boolean complete)
      throws Exception {
    Path chk = Files.createDirectories(storage.resolve(flinkJob).resolve("chk-" + n));
    if (complete) {
      Files.writeString(chk.resolve("_metadata"), "m");
    }
  }

  @Test
  public void newestIsTheHighestCompletedCheckpointOfAnyFlinkJob() throws Exception {
    Path storage = tmp.newFolder("flink").toPath();
    checkpoint(storage, "job-a", 7, true);
    checkpoint(storage, "job-b", 9, true);
    checkpoint(storage, "job-b", 10, false); // cut short by a crash: no _metadata
    Files.createDirectories(storage.resolve("job-b").resolve("shared"));
    FileSystem fs = JobCheckpoints.fileSystem(storage.toUri().toString());
    FlinkCheckpoints.Completed newest =
        FlinkCheckpoints.newest(fs, new org.apache.hadoop.fs.Path(storage.toUri())).orElseThrow();
    assertEquals(9, newest.number());
    assertThat(newest.dir().toString(), containsString("job-b/chk-9"));

    assertEquals(
        1,
        FlinkCheckpoints.deleteOlderJobs(
            fs, new org.apache.hadoop.fs.Path(storage.toUri()), newest));
    assertFalse(Files.exists(storage.resolve("job-a")));
    assertTrue(Files.exists(storage.resolve("job-b/chk-9/_metadata")));
  }

  @Test
  public void aFirstStartCheckpointsUnderTheJobRootAndRestoresNothing() throws Exception {
    Path root = tmp.newFolder("root").toPath();
    FlinkPipelineOptions o =
        PipelineOptionsFactory.fromArgs("--runner=FlinkRunner").as(FlinkPipelineOptions.class);
    RunnerSupport.Recovery r = new FlinkRecovery().configure(o, job(root));
    assertTrue(r.restoresState());
    assertEquals(FlinkRecovery.STABLE_INPUT, r.stableInput());
    assertEquals(
        FlinkRecovery.DEFAULT_CHECKPOINTING_INTERVAL_MS, (long) o.getCheckpointingInterval());
    assertEquals("EXACTLY_ONCE", o.getCheckpointingMode());
    assertTrue(o.isExternalizedCheckpointsEnabled());
    assertTrue(o.getRetainExternalizedCheckpointsOnCancellation());
    assertEquals(FlinkRecovery.DEFAULT_STATE_BACKEND, o.getStateBackend());
    assertTrue(o.getFinishBundleBeforeCheckpointing());
    assertThat(o.getStateBackendStoragePath(), containsString("/root/flink"));
    assertNull(o.getSavepointPath());
    assertThat(r.description(), containsString("nothing to restore"));
  }

  @Test
  public void theEmbeddedClusterRestoresThroughAGeneratedConfigDirectory() throws Exception {
    Path root = tmp.newFolder("root").toPath();
    checkpoint(root.resolve("flink"), "f1", 4, true);
    FlinkPipelineOptions o =
        PipelineOptionsFactory.fromArgs("--runner=FlinkRunner", "--flinkMaster=[local]")
            .as(FlinkPipelineOptions.class);
    new FlinkRecovery().configure(o, job(root));
    assertNull("Beam ignores --savepointPath for [local]", o.getSavepointPath());
    Path config = Path.of(o.getFlinkConfDir()).resolve("config.yaml");
    // Read back the way the runner does: Flink's own loader of a configuration directory.
    org.apache.flink.configuration.Configuration flink =
        org.apache.flink.configuration.GlobalConfiguration.loadConfiguration(o.getFlinkConfDir());
    assertThat(flink.getString("execution.savepoint.path", "(none)"), containsString("f1/chk-4"));
    assertTrue(Files.exists(config));
  }

  @Test
  public void theEmbeddedClusterGetsThePrometheusReporter() throws Exception {
    Path root = tmp.newFolder("root").toPath();
    FlinkPipelineOptions o =
        PipelineOptionsFactory.fromArgs("--runner=FlinkRunner", "--flinkMaster=[local]")
            .as(FlinkPipelineOptions.class);
    RunnerSupport.Recovery r = new FlinkRecovery().configure(o, job(root));
    org.apache.flink.configuration.Configuration flink =
        org.apache.flink.configuration.GlobalConfiguration.loadConfiguration(o.getFlinkConfDir());
    assertEquals(
        BeamPrometheusReporterFactory.class.getName(),
        flink.getString("metrics.reporter.prom.factory.class", "(none)"));
    assertEquals("9249-9259", flink.getString("metrics.reporter.prom.port", "(none)"));
    assertThat(r.description(), containsString("Prometheus series on the first free port of"));
  }

  @Test
  public void aPortInTheRunsFlinkConfigurationIsKeptAndARemoteMasterGetsNoReporter()
      throws Exception {
    Path root = tmp.newFolder("root").toPath();
    Path conf = tmp.newFolder("conf").toPath();
    Files.writeString(conf.resolve("config.yaml"), "metrics.reporter.prom.port: 9300\n");
    FlinkPipelineOptions o =
        PipelineOptionsFactory.fromArgs(
                "--runner=FlinkRunner", "--flinkMaster=[local]", "--flinkConfDir=" + conf)
            .as(FlinkPipelineOptions.class);
    new FlinkRecovery().configure(o, job(root));
    org.apache.flink.configuration.Configuration flink =
        org.apache.flink.configuration.GlobalConfiguration.loadConfiguration(o.getFlinkConfDir());
    assertEquals("9300", flink.getString("metrics.reporter.prom.port", "(none)"));
    assertEquals(
        BeamPrometheusReporterFactory.class.getName(),
        flink.getString("metrics.reporter.prom.factory.class", "(none)"));

    FlinkPipelineOptions remote =
        PipelineOptionsFactory.fromArgs("--runner=FlinkRunner", "--flinkMaster=jm.example:8081")
            .as(FlinkPipelineOptions.class);
    new FlinkRecovery().configure(remote, job(tmp.newFolder("root2").toPath()));
    assertNull("the cluster's own configuration applies", remote.getFlinkConfDir());
  }

  @Test
  public void theEmbeddedClusterKeepsItsLocalFilesInTheProcessDirectoryUnlessTheRunSetsThem()
      throws Exception {
    FlinkPipelineOptions o =
        PipelineOptionsFactory.fromArgs("--runner=FlinkRunner", "--flinkMaster=[local]")
            .as(FlinkPipelineOptions.class);
    new FlinkRecovery().tune(o);
    org.apache.flink.configuration.Configuration flink =
        org.apache.flink.configuration.GlobalConfiguration.loadConfiguration(o.getFlinkConfDir());
    Path own = FlinkProcessDir.current();
    assertEquals(
        own.resolve("cluster").toString(), flink.getString(FlinkRecovery.WORKING_DIR, "(none)"));
    assertEquals(own.resolve("tmp").toString(), flink.getString(FlinkRecovery.TMP_DIRS, "(none)"));
    assertTrue(
        "the generated configuration is in it too", Path.of(o.getFlinkConfDir()).startsWith(own));

    Path conf = tmp.newFolder("conf").toPath();
    Files.writeString(conf.resolve("config.yaml"), "io.tmp.dirs: /var/tmp/flink\n");
    FlinkPipelineOptions given =
        PipelineOptionsFactory.fromArgs(
                "--runner=FlinkRunner", "--flinkMaster=[local]", "--flinkConfDir=" + conf)
            .as(FlinkPipelineOptions.class);
    new FlinkRecovery().tune(given);
    flink =
        org.apache.flink.configuration.GlobalConfiguration.loadConfiguration(
            given.getFlinkConfDir());
    assertEquals("/var/tmp/flink", flink.getString(FlinkRecovery.TMP_DIRS, "(none)"));
    assertEquals(
        own.resolve("cluster").toString(), flink.getString(FlinkRecovery.WORKING_DIR, "(none)"));

    FlinkPipelineOptions remote =
        PipelineOptionsFactory.fromArgs("--runner=FlinkRunner", "--flinkMaster=jm.example:8081")
            .as(FlinkPipelineOptions.class);
    new FlinkRecovery().tune(remote);
    assertNull("the cluster's own configuration applies", remote.getFlinkConfDir());
  }

  @Test
  public void aFlinkConfDirThatIsNoDirectoryIsAUsageError() throws Exception {
    Path root = tmp.newFolder("root").toPath();
    String missing = root.resolve("no-such-dir").toString();
    FlinkPipelineOptions o =
        PipelineOptionsFactory.fromArgs(
                "--runner=FlinkRunner", "--flinkMaster=[local]", "--flinkConfDir=" + missing)
            .as(FlinkPipelineOptions.class);
    IllegalArgumentException e =
        org.junit.Assert.assertThrows(
            IllegalArgumentException.class, () -> new FlinkRecovery().configure(o, job(root)));
    assertThat(e.getMessage(), containsString("--flinkConfDir=" + missing + " is not a directory"));
  }

  @Test
  public void aRemoteMasterRestoresThroughSavepointPath() throws Exception {
    Path root = tmp.newFolder("root").toPath();
    checkpoint(root.resolve("flink"), "f1", 4, true);
    FlinkPipelineOptions o =
        PipelineOptionsFactory.fromArgs("--runner=FlinkRunner", "--flinkMaster=jm.example:8081")
            .as(FlinkPipelineOptions.class);
    new FlinkRecovery().configure(o, job(root));
    assertThat(o.getSavepointPath(), containsString("f1/chk-4"));
  }

  @Test
  public void optionsTheUserSetAreKept() throws Exception {
    Path root = tmp.newFolder("root").toPath();
    FlinkPipelineOptions o =
        PipelineOptionsFactory.fromArgs(
                "--runner=FlinkRunner",
                "--checkpointingInterval=60000",
                "--stateBackend=rocksdb",
                "--stateBackendStoragePath=file:///elsewhere",
                "--finishBundleBeforeCheckpointing=false")
            .as(FlinkPipelineOptions.class);
    new FlinkRecovery().configure(o, job(root));
    assertFalse(o.getFinishBundleBeforeCheckpointing());
    assertEquals(60000L, (long) o.getCheckpointingInterval());
    assertEquals("rocksdb", o.getStateBackend());
    assertEquals("file:///elsewhere", o.getStateBackendStoragePath());
  }

  @Test
  public void anUnboundedKafkaReadPrimesEachSplit() {
    FlinkPipelineOptions o = PipelineOptionsFactory.as(FlinkPipelineOptions.class);
    o.setRunner(org.apache.beam.runners.flink.FlinkRunner.class);
    RunnerProfile profile = RunnerProfile.of(o, true);
    assertEquals(ReadKafka.Splits.PRIMED, profile.kafkaSplits());
    assertEquals("FlinkRunner", profile.runnerName());
    assertEquals(0, profile.pairingBuckets());
    assertNull(profile.commitInterval());
    assertFalse(profile.polledWatermark());
  }
}
