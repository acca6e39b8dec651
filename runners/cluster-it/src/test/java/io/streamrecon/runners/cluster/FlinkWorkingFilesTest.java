package io.streamrecon.runners.cluster;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import io.streamrecon.pipeline.testing.ChildProcesses;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * {@code bin/streamrecon run} on the FlinkRunner keeps the files of its embedded Flink cluster
 * (working directory, spilled and shuffled data) in a directory of its own under {@code
 * java.io.tmpdir}, and the next start deletes what a killed process left there: a job killed and
 * started again by a service manager does not fill the disk.
 */
public class FlinkWorkingFilesTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  @Test
  public void aStartDeletesTheFilesAKilledRunLeft() throws Exception {
    Path jvmTmp = tmp.newFolder("jvm-tmp").toPath();
    Path killedLog = tmp.getRoot().toPath().resolve("killed.log");
    Process killed = start(jvmTmp, tmp.newFolder("warehouse-killed").toPath(), killedLog);
    try {
      ChildProcesses.await(
          "the embedded Flink cluster's working directory",
          180,
          killed,
          killedLog,
          () -> !processDirsWith(jvmTmp, "cluster").isEmpty());
    } finally {
      ChildProcesses.kill(killed);
    }
    List<Path> left = processDirsWith(jvmTmp, "cluster");
    assertEquals("the killed run's directory: " + left, 1, left.size());

    Path nextLog = tmp.getRoot().toPath().resolve("next.log");
    Process next = start(jvmTmp, tmp.newFolder("warehouse-next").toPath(), nextLog);
    try {
      assertTrue("the next run did not end within 300 s", next.waitFor(300, TimeUnit.SECONDS));
    } finally {
      ChildProcesses.kill(next); // gone already, unless it did not end in time
    }

    assertEquals(ChildProcesses.tail(nextLog, 40), 0, next.exitValue());
    assertFalse("left by the killed run: " + left.get(0), Files.exists(left.get(0)));
    assertEquals(
        "every process directory is gone once its process ended", List.of(), list(base(jvmTmp)));
  }

  /** {@code bin/streamrecon run} on the bundled samples, on the FlinkRunner. */
  private static Process start(Path jvmTmp, Path warehouse, Path log) throws IOException {
    Path root = Distribution.runnersDir().normalize().getParent();
    return ChildProcesses.start(
        List.of(
            root.resolve("bin").resolve("streamrecon").toString(),
            "run",
            "--runner=FlinkRunner",
            "--warehouse=" + warehouse),
        log,
        Map.of("JAVA_OPTS", "-Xmx1g -Djava.io.tmpdir=" + jvmTmp, "STREAMRECON_BUILD", "never"));
  }

  /** The directory the processes of this user share: the only one named so under the tmpdir. */
  private static Path base(Path jvmTmp) throws IOException {
    try (Stream<Path> dirs = Files.list(jvmTmp)) {
      return dirs.filter(d -> d.getFileName().toString().startsWith("streamrecon-flink-"))
          .findFirst()
          .orElseThrow(() -> new AssertionError("no streamrecon-flink-<user> under " + jvmTmp));
    }
  }

  /** The process directories holding {@code child}. */
  private static List<Path> processDirsWith(Path jvmTmp, String child) {
    try {
      return list(base(jvmTmp)).stream().filter(d -> Files.isDirectory(d.resolve(child))).toList();
    } catch (IOException | AssertionError e) {
      return List.of(); // not made yet
    }
  }

  private static List<Path> list(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.sorted().toList();
    }
  }
}
