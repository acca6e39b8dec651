package io.streamrecon.pipeline.run;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.matchesPattern;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.streamrecon.pipeline.ReconcileOptions;
import io.streamrecon.pipeline.ReconcilePipeline;
import io.streamrecon.pipeline.ReconcileSettings;
import io.streamrecon.pipeline.cli.StreamRecon;
import io.streamrecon.pipeline.runner.JobIdentity;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** The job manifest on a real (local) file system: first start, restart, refusal, fresh start. */
public class JobCheckpointsTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  private ReconcileOptions options(Path warehouse, String... more) {
    List<String> args = new ArrayList<>();
    args.add("--source=kafka://127.0.0.1:9/orders.src");
    args.add("--target=kafka://127.0.0.1:9/orders.tgt");
    args.add("--warehouse=" + warehouse);
    args.addAll(List.of(more));
    return PipelineOptionsFactory.fromArgs(args.toArray(new String[0])).as(ReconcileOptions.class);
  }

  private static JobIdentity prepare(ReconcileOptions o) {
    return JobCheckpoints.prepare(o, ReconcileSettings.from(o));
  }

  @Test
  public void theManifestIsWrittenThroughNoLinkPlantedAtATemporaryName() throws Exception {
    Path wh = tmp.newFolder("wh").toPath();
    Path root = Files.createDirectories(wh.resolve("_checkpoints").resolve("orders-recon"));
    Path victim = tmp.newFile("victim").toPath();
    Files.writeString(victim, "not yours");
    Files.createSymbolicLink(root.resolve(".job.json.tmp"), victim);
    JobIdentity first = prepare(options(wh, "--jobName=orders-recon"));
    assertEquals("not yours", Files.readString(victim));
    assertFalse(Files.isSymbolicLink(root.resolve("job.json")));
    assertThat(Files.readString(root.resolve("job.json")), containsString(first.runId()));
  }

  @Test
  public void firstStartWritesTheManifestAndARestartReusesItsRunId() throws Exception {
    Path wh = tmp.newFolder("wh").toPath();
    JobIdentity first = prepare(options(wh));
    assertFalse(first.resumed());
    assertThat(first.jobName(), matchesPattern("streamrecon-[0-9a-f]{12}"));
    Path manifest = wh.resolve("_checkpoints").resolve(first.jobName()).resolve("job.json");
    assertTrue(Files.isRegularFile(manifest));
    assertThat(Files.readString(manifest), containsString(first.runId()));

    JobIdentity again = prepare(options(wh));
    assertTrue(again.resumed());
    assertEquals(first.jobName(), again.jobName());
    assertEquals("a restart continues the run", first.runId(), again.runId());
    assertEquals(first.checkpointRoot(), again.checkpointRoot());
    assertThat(first.checkpointRoot(), containsString("/_checkpoints/" + first.jobName()));
  }

  @Test
  public void theDefaultJobNameFollowsWhatIsReadAndWhereItIsWritten() throws Exception {
    Path wh = tmp.newFolder("wh").toPath();
    String a = ReconcileSettings.from(options(wh)).runId();
    String name = JobCheckpoints.defaultJobName(ReconcileSettings.from(options(wh)));
    assertEquals(name, JobCheckpoints.defaultJobName(ReconcileSettings.from(options(wh))));
    assertNotEquals(
        name,
        JobCheckpoints.defaultJobName(
            ReconcileSettings.from(options(tmp.newFolder("other").toPath()))));
    assertNotEquals(
        name,
        JobCheckpoints.defaultJobName(
            ReconcileSettings.from(options(wh, "--kafkaProperties=group.id=other"))));
    assertEquals(
        "broker addresses are not part of the identity",
        name,
        JobCheckpoints.defaultJobName(
            ReconcileSettings.from(
                PipelineOptionsFactory.fromArgs(
                        "--source=kafka://otherhost:9092/orders.src",
                        "--target=kafka://otherhost:9092/orders.tgt",
                        "--warehouse=" + wh)
                    .as(ReconcileOptions.class))));
    assertThat(a, containsString("run-"));
  }

  @Test
  public void anExplicitJobNameIsUsedAndChecked() throws Exception {
    Path wh = tmp.newFolder("wh").toPath();
    assertEquals("orders-recon", prepare(options(wh, "--jobName=orders-recon")).jobName());
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> prepare(options(wh, "--jobName=../x")));
    assertThat(e.getMessage(), containsString("--jobName=../x is not valid"));
    for (String name : new String[] {"..", ".", "a..b", "a:b"}) {
      assertThrows(
          name, IllegalArgumentException.class, () -> prepare(options(wh, "--jobName=" + name)));
    }
  }

  @Test
  public void aManifestWhoseRunIdCannotNameAFolderIsRefusedBeforeItIsResumed() throws Exception {
    Path wh = tmp.newFolder("wh").toPath();
    JobIdentity first = prepare(options(wh, "--runId=ok-1"));
    Path manifest = wh.resolve("_checkpoints").resolve(first.jobName()).resolve("job.json");
    Files.writeString(manifest, Files.readString(manifest).replace("\"ok-1\"", "\"..\""));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> prepare(options(wh)));
    assertThat(e.getMessage(), containsString("is run .. (in "));
    assertThat(e.getMessage(), containsString("add --fresh"));
  }

  @Test
  public void aChangedStateShapingOptionIsRefusedWithOneLineNamingIt() throws Exception {
    Path wh = tmp.newFolder("wh").toPath();
    prepare(options(wh, "--timeout=10m"));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> prepare(options(wh, "--timeout=5m")));
    assertThat(e.getMessage(), containsString("--timeout=5m (the job has 10m)"));
    assertThat(e.getMessage(), containsString("--fresh"));
    assertFalse(e.getMessage().contains("\n"));
  }

  @Test
  public void checkpointsOfAnotherReleaseAreRefusedWithOneLineUntilFresh() throws Exception {
    Path wh = tmp.newFolder("wh").toPath();
    JobIdentity first = prepare(options(wh));
    Path manifest = wh.resolve("_checkpoints").resolve(first.jobName()).resolve("job.json");
    // The manifest as the release before wrote it: format 1, no release recorded.
    Files.writeString(
        manifest,
        "{\"format\":1,\"jobName\":\""
            + first.jobName()
            + "\",\"runId\":\""
            + first.runId()
            + "\",\"createdAt\":\"\",\"stateOptions\":{}}");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> prepare(options(wh)));
    assertThat(e.getMessage(), containsString("written by an earlier streamrecon release"));
    assertThat(e.getMessage(), containsString("add --fresh"));
    assertFalse(e.getMessage().contains("\n"));
    assertFalse("refused before any table is written", Files.exists(wh.resolve("raw_events")));

    JobIdentity fresh = prepare(options(wh, "--fresh=true"));
    assertFalse(fresh.resumed());
    assertThat(Files.readString(manifest), containsString("\"release\" : \"" + Release.VERSION));
  }

  @Test
  public void anExplicitRunIdOtherThanTheJobsIsRefused() throws Exception {
    Path wh = tmp.newFolder("wh").toPath();
    JobIdentity first = prepare(options(wh, "--runId=run-a"));
    assertEquals("run-a", first.runId());
    assertEquals("run-a", prepare(options(wh, "--runId=run-a")).runId());
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> prepare(options(wh, "--runId=run-b")));
    assertThat(e.getMessage(), containsString("is run run-a"));
  }

  @Test
  public void freshMovesTheOldCheckpointsAsideAndStartsANewRun() throws Exception {
    Path wh = tmp.newFolder("wh").toPath();
    JobIdentity first = prepare(options(wh, "--timeout=10m"));
    Path root = wh.resolve("_checkpoints").resolve(first.jobName());
    Files.createDirectories(root.resolve("flink/abc/chk-3"));
    Files.writeString(root.resolve("flink/abc/chk-3/_metadata"), "x");

    JobIdentity fresh = prepare(options(wh, "--timeout=5m", "--fresh=true"));
    assertFalse(fresh.resumed());
    assertNotEquals(first.runId(), fresh.runId());
    assertFalse("old checkpoints are gone from the root", Files.exists(root.resolve("flink")));
    try (Stream<Path> s = Files.list(wh.resolve("_checkpoints"))) {
      List<Path> aside =
          s.filter(p -> p.getFileName().toString().startsWith(first.jobName() + ".replaced-"))
              .toList();
      assertEquals(1, aside.size());
      assertTrue(Files.exists(aside.get(0).resolve("flink/abc/chk-3/_metadata")));
    }
    // The new run's manifest has the new options: a later plain restart resumes it.
    assertEquals(fresh.runId(), prepare(options(wh, "--timeout=5m")).runId());
  }

  @Test
  public void anUnboundedKafkaRunOnTheDirectRunnerNeedsTheStateLossFlag() throws Exception {
    Path wh = tmp.newFolder("wh").toPath();
    ReconcileOptions o = options(wh, "--runner=DirectRunner");
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> ReconcileRun.prepareRecovery(o, ReconcileSettings.from(o)));
    assertThat(e.getMessage(), containsString("--runner=SparkRunner"));
    assertThat(e.getMessage(), containsString("--runner=FlinkRunner"));
    assertThat(e.getMessage(), containsString("--allowStateLossOnCrash=true"));
    assertFalse("refused before anything is written", Files.exists(wh.resolve("_checkpoints")));

    ReconcileOptions allowed = options(wh, "--runner=DirectRunner", "--allowStateLossOnCrash=true");
    ReconcilePipeline.WriterIdentity w =
        ReconcileRun.prepareRecovery(allowed, ReconcileSettings.from(allowed));
    assertThat(
        "the DirectRunner restores nothing, so each process writes under its own id",
        w.writerId(),
        matchesPattern(allowed.getRunId() + "/[0-9a-f]{8}"));
    assertFalse(w.stableInput());
  }

  @Test
  public void theCommandLineRefusesWithExitCode2AndOneLine() throws Exception {
    Path wh = tmp.newFolder("wh").toPath();
    String[] base = {
      "run",
      "--source=kafka://127.0.0.1:9/orders.src",
      "--target=kafka://127.0.0.1:9/orders.tgt",
      "--warehouse=" + wh
    };
    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
    java.io.PrintStream saved = System.err;
    System.setErr(new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8));
    int direct;
    int changed;
    try {
      direct = StreamRecon.execute(base);
      prepare(options(wh, "--timeout=10m"));
      List<String> args = new ArrayList<>(List.of(base));
      args.add("--allowStateLossOnCrash=true");
      args.add("--timeout=5m");
      changed = StreamRecon.execute(args.toArray(new String[0]));
    } finally {
      System.setErr(saved);
    }
    String[] lines = err.toString(java.nio.charset.StandardCharsets.UTF_8).split("\n");
    assertEquals(StreamRecon.EXIT_USAGE, direct);
    assertEquals(StreamRecon.EXIT_USAGE, changed);
    assertEquals(List.of(lines).toString(), 2, lines.length);
    assertThat(lines[0], containsString("streamrecon: an unbounded Kafka run on the DirectRunner"));
    assertThat(lines[1], containsString("streamrecon: job streamrecon-"));
    assertThat(lines[1], containsString("--timeout=5m (the job has 10m)"));
  }
}
