package io.streamrecon.pipeline.s3;

import static io.streamrecon.pipeline.testing.WarehouseCommands.assertCompactAndVacuumKeepRows;
import static io.streamrecon.pipeline.testing.WarehouseCommands.assertReadsBackAsLocal;
import static io.streamrecon.pipeline.testing.WarehouseCommands.cli;
import static io.streamrecon.pipeline.testing.WarehouseCommands.storedCounts;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import io.delta.kernel.defaults.internal.logstore.LogStoreProvider;
import io.delta.storage.S3SingleDriverLogStore;
import io.streamrecon.deltalake.WarehouseTables;
import io.streamrecon.pipeline.cli.StreamRecon;
import io.streamrecon.pipeline.testing.ChildProcesses;
import io.streamrecon.pipeline.testing.CrashHarness;
import io.streamrecon.pipeline.testing.Scenario;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * A warehouse on an S3-compatible object store through Hadoop's S3A ({@code hadoop-aws} with the
 * AWS SDK it is built against), the store being s3mock in its own JVM ({@link S3Process}). A run
 * writes it from a JVM configured as {@code bin/streamrecon} with {@code HADOOP_CONF_DIR} is (a
 * {@code core-site.xml} first on the class path) and the commands read it back as they read a local
 * one. One writer at a time: Kernel's log store for {@code s3a:} is {@code S3SingleDriverLogStore}.
 * s3mock is not AWS: nothing here shows S3's consistency or throttling.
 */
public class S3WarehouseTest {
  @ClassRule public static TemporaryFolder tmp = new TemporaryFolder();

  /** The bucket the S3A settings in {@value #SITE} are for. */
  private static final String BUCKET = "streamrecon-test";

  /** The S3A settings, a class path resource. */
  private static final String SITE = "io/streamrecon/pipeline/s3/core-site.xml";

  /** The system property that {@value #SITE} takes the server's endpoint from. */
  private static final String ENDPOINT_PROPERTY = "streamrecon.test.s3.endpoint";

  private static S3Process s3;

  @BeforeClass
  public static void startS3() throws Exception {
    s3 = S3Process.start(tmp.newFolder("s3").toPath(), BUCKET);
    System.setProperty(ENDPOINT_PROPERTY, s3.endpoint());
    // As Hadoop loads core-site.xml: every Configuration made in this JVM from now on reads it.
    Configuration.addDefaultResource(SITE);
  }

  @AfterClass
  public static void stopS3() throws IOException {
    if (s3 != null) {
      // Drops the cached S3A file system with its connection pool to the server.
      FileSystem.get(URI.create("s3a://" + BUCKET + "/"), new Configuration()).close();
      s3.close();
    }
  }

  /**
   * The scenario through {@code streamrecon run --runner=DirectRunner} into an {@code s3a://}
   * warehouse (in a child JVM whose only S3 settings are a {@code core-site.xml} first on its class
   * path) and into a local one: both runs' counts add up and are equal, they end with the same
   * verdicts, and every table's log and data files are objects on the S3 server and nothing of the
   * run is on the local disk. {@code show}, {@code explain} and {@code report} print from S3 what
   * they print from a local copy of it; {@code compact} and {@code vacuum} run there.
   */
  @Test
  public void aRunOnS3ReadsBackAsTheSameRunOnALocalWarehouse() throws Exception {
    assertEquals(
        "Kernel's log store for s3a: when nothing is configured",
        S3SingleDriverLogStore.class,
        LogStoreProvider.getLogStore(new Configuration(), "s3a").getClass());
    Scenario scenario = Scenario.writeTo(tmp.newFolder("input").toPath());
    String local = tmp.newFolder("local").toPath().resolve("wh").toString();
    String remote = "s3a://" + BUCKET + "/recon";
    List<String> args = new ArrayList<>(List.of("run", "--runner=DirectRunner"));
    args.addAll(scenario.arguments(local));
    String localSummary = cli(args.toArray(new String[0]));
    Path work = tmp.newFolder("run-on-s3").toPath();
    String remoteSummary = runInChildJvm(scenario, remote, work);

    assertThat(localSummary, containsString("counts add up"));
    assertThat(remoteSummary, containsString("counts add up"));
    assertEquals(storedCounts(localSummary), storedCounts(remoteSummary));
    // The child JVM ran in an empty working directory: a warehouse taken for a local path
    // (s3a:/streamrecon-test/recon) would be there.
    try (Stream<Path> left = Files.list(work.resolve("cwd"))) {
      assertEquals("written to the local disk by the run", List.of(), left.toList());
    }
    assertFalse(Files.exists(Path.of("s3a:")));
    // Every table's log as the server lists it, and as S3A does: the same commits.
    for (String table :
        List.of(WarehouseTables.RAW_EVENTS, WarehouseTables.DELTAS, WarehouseTables.DEAD_LETTERS)) {
      Set<String> stored = serverObjects("recon/" + table + "/_delta_log");
      assertTrue(table + ": " + stored, stored.contains("00000000000000000000.json"));
      assertEquals(table, stored, listedThroughS3a(remote + "/" + table + "/_delta_log"));
    }
    assertTrue(
        "raw events' Parquet files are objects on the server",
        s3.keys("recon/" + WarehouseTables.RAW_EVENTS + "/").stream()
            .anyMatch(k -> k.endsWith(".parquet")));

    String copy =
        assertReadsBackAsLocal(scenario, local, remote, s3a(), tmp.newFolder("s3-copy").toPath());

    // A mistyped location fails as a local one does, instead of showing empty tables.
    String nowhere = "s3a://" + BUCKET + "/nothing-here";
    assertEquals(
        StreamRecon.EXIT_USAGE, StreamRecon.execute("show", "deltas", "--warehouse=" + nowhere));

    // Maintenance on S3, from this JVM after the run's ended (one writer at a time): compaction
    // rewrites files there, vacuum walks the tables; every row stays readable.
    assertCompactAndVacuumKeepRows(remote, copy);
  }

  /**
   * {@code streamrecon run} in a JVM of its own started in {@code work/cwd}, with {@value #SITE}
   * (the endpoint written in) as {@code core-site.xml} in a directory first on its class path;
   * returns what it printed, after asserting exit code 0.
   */
  private static String runInChildJvm(Scenario scenario, String warehouse, Path work)
      throws Exception {
    Path conf = Files.createDirectories(work.resolve("conf"));
    String site;
    try (InputStream in = S3WarehouseTest.class.getClassLoader().getResourceAsStream(SITE)) {
      site = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    Files.writeString(
        conf.resolve("core-site.xml"), site.replace("${" + ENDPOINT_PROPERTY + "}", s3.endpoint()));
    Path cwd = Files.createDirectories(work.resolve("cwd"));
    Path out = work.resolve("run.out");
    Path log = work.resolve("run.log");
    List<String> cmd = new ArrayList<>();
    cmd.add(ChildProcesses.java());
    cmd.add("-Xmx768m");
    cmd.addAll(CrashHarness.addOpensOfThisJvm());
    cmd.add("-cp");
    cmd.add(ChildProcesses.classPath(conf));
    cmd.add(StreamRecon.class.getName());
    cmd.addAll(List.of("run", "--runner=DirectRunner"));
    cmd.addAll(scenario.arguments(warehouse));
    Process p =
        new ProcessBuilder(cmd)
            .directory(cwd.toFile())
            .redirectOutput(out.toFile())
            .redirectError(log.toFile())
            .start();
    try {
      ChildProcesses.await("the run on S3 ended", 300, null, log, () -> !p.isAlive());
    } finally {
      ChildProcesses.kill(p);
    }
    String printed = Files.readString(out);
    assertEquals(printed + ChildProcesses.tail(log, 40), 0, p.exitValue());
    return printed;
  }

  /**
   * The names of the objects directly under {@code dir} (a key prefix without the trailing slash),
   * as the server lists them.
   */
  private static Set<String> serverObjects(String dir) throws Exception {
    Set<String> names = new TreeSet<>();
    for (String key : s3.keys(dir + "/")) {
      String name = key.substring(dir.length() + 1);
      if (!name.isEmpty() && !name.contains("/")) {
        names.add(name);
      }
    }
    return names;
  }

  /** The names of the files directly under {@code dir}, listed through S3A. */
  private static Set<String> listedThroughS3a(String dir) throws IOException {
    Set<String> names = new TreeSet<>();
    for (FileStatus s : s3a().listStatus(new org.apache.hadoop.fs.Path(dir))) {
      if (s.isFile()) {
        names.add(s.getPath().getName());
      }
    }
    return names;
  }

  private static FileSystem s3a() throws IOException {
    return FileSystem.get(URI.create("s3a://" + BUCKET + "/"), new Configuration());
  }
}
