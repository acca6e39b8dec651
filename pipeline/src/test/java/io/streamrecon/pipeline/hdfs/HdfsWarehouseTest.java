package io.streamrecon.pipeline.hdfs;

import static io.streamrecon.pipeline.testing.WarehouseCommands.assertCompactAndVacuumKeepRows;
import static io.streamrecon.pipeline.testing.WarehouseCommands.assertReadsBackAsLocal;
import static io.streamrecon.pipeline.testing.WarehouseCommands.cli;
import static io.streamrecon.pipeline.testing.WarehouseCommands.storedCounts;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.delta.kernel.defaults.internal.logstore.LogStoreProvider;
import io.delta.storage.HDFSLogStore;
import io.streamrecon.deltalake.DeltaLakeTables;
import io.streamrecon.deltalake.WarehouseTables;
import io.streamrecon.pipeline.cli.StreamRecon;
import io.streamrecon.pipeline.testing.ChildProcesses;
import io.streamrecon.pipeline.testing.CommitPausingFs;
import io.streamrecon.pipeline.testing.CrashHarness;
import io.streamrecon.pipeline.testing.HdfsCommitWriter;
import io.streamrecon.pipeline.testing.HdfsProcess;
import io.streamrecon.pipeline.testing.RecordingHdfsLogStore;
import io.streamrecon.pipeline.testing.Scenario;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * A warehouse on HDFS (a {@code MiniDFSCluster} in its own JVM, {@link HdfsProcess}): a run writes
 * it and the commands read it back as they read a local one; a writer killed with SIGKILL inside a
 * commit and restarted stores every row once; two writers in two JVMs appending to one table lose
 * no commit, through Kernel's {@code HDFSLogStore} as the Hadoop configuration chose it.
 */
public class HdfsWarehouseTest {
  @ClassRule public static TemporaryFolder tmp = new TemporaryFolder();

  private static HdfsProcess hdfs;

  private static final Pattern TXN =
      Pattern.compile("\"txn\":\\{\"appId\":\"([^\"]+)\",\"version\":(\\d+)");

  @BeforeClass
  public static void startHdfs() throws Exception {
    hdfs = HdfsProcess.start(tmp.newFolder("hdfs").toPath());
  }

  @AfterClass
  public static void stopHdfs() {
    if (hdfs != null) {
      hdfs.close();
    }
  }

  /**
   * The scenario through {@code streamrecon run} on the DirectRunner into an {@code hdfs://}
   * warehouse and into a local one: both runs' counts add up, they read and stored the same, and
   * end with the same verdicts. {@code show}, {@code explain} and {@code report} print from the
   * HDFS warehouse what they print from a local copy of it. (Two runs are not compared row by row:
   * whether a resolved mismatch was reported before it resolved depends on arrival order.)
   */
  @Test
  public void aRunOnHdfsReadsBackAsTheSameRunOnALocalWarehouse() throws Exception {
    Scenario scenario = Scenario.writeTo(tmp.newFolder("input").toPath());
    String local = tmp.newFolder("local").toPath().resolve("wh").toString();
    String remote = hdfs.uri() + "/warehouses/run";
    String localSummary = run(scenario, local);
    String remoteSummary = run(scenario, remote);
    assertThat(localSummary, containsString("counts add up"));
    assertThat(remoteSummary, containsString("counts add up"));
    assertEquals(storedCounts(localSummary), storedCounts(remoteSummary));
    String copy =
        assertReadsBackAsLocal(scenario, local, remote, fs(), tmp.newFolder("hdfs-copy").toPath());
    String mismatch = scenario.generator().mismatchPaths().keySet().iterator().next();

    // A mistyped location fails as a local one does, instead of showing empty tables.
    String nowhere = hdfs.uri() + "/warehouses/nothing-here";
    assertEquals(
        StreamRecon.EXIT_USAGE, StreamRecon.execute("show", "deltas", "--warehouse=" + nowhere));
    assertEquals(
        StreamRecon.EXIT_USAGE,
        StreamRecon.execute("explain", "--naturalId=" + mismatch, "--warehouse=" + nowhere));

    // Maintenance on HDFS: compaction rewrites files there, vacuum walks the tables (nothing is
    // old enough to delete yet); every row stays readable.
    assertCompactAndVacuumKeepRows(remote, copy);
  }

  private static String run(Scenario scenario, String warehouse) {
    List<String> args = new ArrayList<>(List.of("run", "--runner=DirectRunner"));
    args.addAll(scenario.arguments(warehouse));
    return cli(args.toArray(new String[0]));
  }

  /**
   * A writer JVM killed with SIGKILL inside its third commit (the log entry written to HDFS under a
   * temporary name, not yet renamed) and started again from its first batch: every batch is in the
   * log once, in consecutive versions, every row once, and every transaction of the writer's app id
   * once.
   */
  @Test
  public void aWriterKilledInsideACommitAndRestartedStoresEveryRowOnce() throws Exception {
    String warehouse = hdfs.uri() + "/warehouses/crash";
    Path dir = tmp.newFolder("crash").toPath();
    Path conf = confDir(dir);
    Path marker = dir.resolve("paused");
    Path log = dir.resolve("writer.log");
    int batches = 5;
    int rows = 40;
    Process p =
        writer(
            conf,
            dir.resolve("record"),
            log,
            List.of("-D" + CommitPausingFs.AT + "=3", "-D" + CommitPausingFs.MARKER + "=" + marker),
            warehouse,
            "crash-writer",
            batches,
            rows);
    try {
      ChildProcesses.await(
          "the writer paused inside its third commit", 90, p, log, () -> Files.exists(marker));
    } finally {
      ChildProcesses.kill(p);
    }
    FileSystem fs = fs();
    org.apache.hadoop.fs.Path logDir = logDir(warehouse);
    assertEquals("two commits before the kill", List.of(0L, 1L), versions(fs, logDir));
    assertTrue(
        "the killed commit left its log entry under a temporary name",
        java.util.Arrays.stream(fs.listStatus(logDir))
            .anyMatch(
                s -> s.getPath().getName().matches("\\.00000000000000000002\\.json\\..*tmp")));

    Process again =
        writer(
            conf, dir.resolve("record"), log, List.of(), warehouse, "crash-writer", batches, rows);
    try {
      ChildProcesses.await("the restarted writer finished", 90, null, log, () -> !again.isAlive());
      assertEquals(ChildProcesses.tail(log, 40), 0, again.exitValue());
    } finally {
      ChildProcesses.kill(again);
    }
    assertEquals(List.of(0L, 1L, 2L, 3L, 4L), versions(fs, logDir));
    Map<Long, List<String>> txns = transactions(fs, logDir);
    for (long v = 0; v < batches; v++) {
      assertEquals("version " + v, List.of("crash-writer " + v), txns.get(v));
    }
    assertRowsOnce(warehouse, Map.of("crash-writer", batches * rows));
  }

  /**
   * Two writer JVMs with their own app ids append to one table at once, the first commit creating
   * it: no commit is lost (one version per batch of each, consecutive), every row is stored once,
   * and the log store that published the commits is the one the Hadoop configuration named.
   */
  @Test
  public void twoWriterJvmsAppendingToOneTableLoseNoCommit() throws Exception {
    assertEquals(
        "Kernel's log store for hdfs: when nothing is configured",
        HDFSLogStore.class,
        LogStoreProvider.getLogStore(new Configuration(), "hdfs").getClass());
    String warehouse = hdfs.uri() + "/warehouses/concurrent";
    Path dir = tmp.newFolder("concurrent").toPath();
    Path conf = confDir(dir);
    Path go = dir.resolve("go");
    int batches = 8;
    int rows = 20;
    List<Process> writers = new ArrayList<>();
    try {
      for (String app : List.of("writer-a", "writer-b")) {
        writers.add(
            writer(
                conf,
                dir.resolve("record-" + app),
                dir.resolve(app + ".log"),
                List.of(),
                warehouse,
                app,
                batches,
                rows,
                go.toString()));
      }
      for (String app : List.of("writer-a", "writer-b")) {
        Path log = dir.resolve(app + ".log");
        Process p = writers.get(app.equals("writer-a") ? 0 : 1);
        ChildProcesses.await(app + " ready", 90, p, log, () -> contains(log, "ready"));
      }
      Files.writeString(go, "go");
      for (String app : List.of("writer-a", "writer-b")) {
        Path log = dir.resolve(app + ".log");
        Process p = writers.get(app.equals("writer-a") ? 0 : 1);
        ChildProcesses.await(app + " finished", 90, null, log, () -> !p.isAlive());
        assertEquals(ChildProcesses.tail(log, 40), 0, p.exitValue());
      }
    } finally {
      writers.forEach(ChildProcesses::kill);
    }
    FileSystem fs = fs();
    org.apache.hadoop.fs.Path logDir = logDir(warehouse);
    List<Long> expected = new ArrayList<>();
    for (long v = 0; v < 2L * batches; v++) {
      expected.add(v);
    }
    assertEquals(expected, versions(fs, logDir));
    List<String> all = new ArrayList<>();
    transactions(fs, logDir).values().forEach(all::addAll);
    for (String app : List.of("writer-a", "writer-b")) {
      for (int b = 0; b < batches; b++) {
        assertEquals(app + " batch " + b, 1, all.stream().filter((app + " " + b)::equals).count());
      }
      List<String> record = Files.readAllLines(dir.resolve("record-" + app));
      assertEquals(
          "every commit of " + app + " went through the configured log store",
          batches,
          record.stream().filter(l -> l.matches("written \\d{20}\\.json")).count());
      System.out.println(
          app
              + ": versions lost to the other writer and retried: "
              + record.stream().filter(l -> l.startsWith("taken ")).count());
    }
    assertRowsOnce(warehouse, Map.of("writer-a", batches * rows, "writer-b", batches * rows));
  }

  private static void assertRowsOnce(String warehouse, Map<String, Integer> rowsPerApp) {
    List<Map<String, Object>> stored =
        DeltaLakeTables.readRows(warehouse, WarehouseTables.RAW_EVENTS);
    Map<String, Integer> perApp = new TreeMap<>();
    List<String> origins = new ArrayList<>();
    for (Map<String, Object> r : stored) {
      perApp.merge(String.valueOf(r.get("origin_stream")), 1, Integer::sum);
      origins.add(r.get("origin_stream") + "@" + r.get("origin_offset"));
    }
    assertEquals("no row twice", Map.of(), CrashHarness.repeated(origins));
    assertEquals(new TreeMap<>(rowsPerApp), perApp);
  }

  private static Process writer(
      Path conf,
      Path record,
      Path log,
      List<String> props,
      String warehouse,
      String app,
      int batches,
      int rows,
      String... extra)
      throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(ChildProcesses.java());
    cmd.add("-Xmx256m");
    cmd.addAll(CrashHarness.addOpensOfThisJvm());
    cmd.add("-D" + RecordingHdfsLogStore.RECORD + "=" + record);
    cmd.addAll(props);
    cmd.add("-cp");
    cmd.add(ChildProcesses.classPath(conf));
    cmd.add(HdfsCommitWriter.class.getName());
    cmd.addAll(List.of(warehouse, app, String.valueOf(batches), String.valueOf(rows)));
    cmd.addAll(List.of(extra));
    return ChildProcesses.start(cmd, log);
  }

  /** A directory with the core-site.xml that installs {@link RecordingHdfsLogStore}. */
  private static Path confDir(Path dir) throws IOException {
    Path conf = Files.createDirectories(dir.resolve("conf"));
    Files.writeString(conf.resolve("core-site.xml"), RecordingHdfsLogStore.coreSiteXml());
    return conf;
  }

  private static FileSystem fs() throws IOException {
    return FileSystem.get(URI.create(hdfs.uri()), new Configuration());
  }

  private static org.apache.hadoop.fs.Path logDir(String warehouse) {
    return new org.apache.hadoop.fs.Path(
        warehouse + "/" + WarehouseTables.RAW_EVENTS + "/_delta_log");
  }

  /** The versions of the log's commit files, in order. */
  private static List<Long> versions(FileSystem fs, org.apache.hadoop.fs.Path logDir)
      throws IOException {
    List<Long> versions = new ArrayList<>();
    for (FileStatus s : fs.listStatus(logDir)) {
      String name = s.getPath().getName();
      if (name.matches("\\d{20}\\.json")) {
        versions.add(Long.parseLong(name.substring(0, 20)));
      }
    }
    versions.sort(null);
    return versions;
  }

  /** Each commit's transaction identifiers, as {@code appId version}. */
  private static Map<Long, List<String>> transactions(
      FileSystem fs, org.apache.hadoop.fs.Path logDir) throws IOException {
    Map<Long, List<String>> txns = new TreeMap<>();
    for (long v : versions(fs, logDir)) {
      List<String> found = new ArrayList<>();
      org.apache.hadoop.fs.Path file =
          new org.apache.hadoop.fs.Path(logDir, String.format("%020d.json", v));
      try (InputStream in = fs.open(file)) {
        Matcher m = TXN.matcher(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        while (m.find()) {
          found.add(m.group(1) + " " + m.group(2));
        }
      }
      txns.put(v, found);
    }
    return txns;
  }

  private static boolean contains(Path log, String line) {
    try {
      return Files.readAllLines(log).contains(line);
    } catch (IOException e) {
      return false;
    }
  }
}
