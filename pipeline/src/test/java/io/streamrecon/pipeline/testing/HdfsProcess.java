package io.streamrecon.pipeline.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * An HDFS (Hadoop's {@code MiniDFSCluster}: a NameNode and one DataNode) in its own JVM, for tests
 * that put a warehouse on a distributed file system. The child JVM runs {@link MiniHdfsMain} on
 * this JVM's class path plus the {@code hadoop-client-minicluster} and reload4j jars, which the
 * build names in the system property {@value #CLASS_PATH_PROPERTY} and keeps off the test JVM's own
 * class path (the minicluster jar carries root resources such as {@code jndi.properties}, and log4j
 * 1 is for the cluster's logging only). {@link #close} kills it by PID.
 */
public final class HdfsProcess implements AutoCloseable {
  /** The system property with the jars only the HDFS JVM gets (a class path). */
  public static final String CLASS_PATH_PROPERTY = "streamrecon.test.hdfsClassPath";

  private final Process process;
  private final Path log;
  private final String uri;

  private HdfsProcess(Process process, Path log, String uri) {
    this.process = process;
    this.log = log;
    this.uri = uri;
  }

  /** Starts an HDFS whose storage is under {@code dir} and waits until it prints its URI. */
  public static HdfsProcess start(Path dir) throws Exception {
    String jars = System.getProperty(CLASS_PATH_PROPERTY);
    if (jars == null
        || !java.util.Arrays.stream(jars.split(java.io.File.pathSeparator))
            .allMatch(j -> Files.isRegularFile(Path.of(j)))) {
      throw new IllegalStateException(
          "-D"
              + CLASS_PATH_PROPERTY
              + " must name the hadoop-client-minicluster and reload4j jars"
              + " (the pom sets it), got "
              + jars);
    }
    Files.createDirectories(dir);
    Path log = dir.resolve("hdfs.log");
    List<String> cmd = new ArrayList<>();
    cmd.add(ChildProcesses.java());
    cmd.add("-Xmx512m");
    cmd.addAll(CrashHarness.addOpensOfThisJvm());
    cmd.add("-cp");
    cmd.add(ChildProcesses.classPath(Path.of(jars)));
    cmd.add(MiniHdfsMain.class.getName());
    cmd.add(dir.resolve("data").toString());
    Process p = ChildProcesses.start(cmd, log);
    AtomicReference<String> uri = new AtomicReference<>();
    try {
      ChildProcesses.await(
          "the HDFS child JVM printed its URI",
          120,
          p,
          log,
          () -> {
            uri.set(announced(log));
            return uri.get() != null;
          });
    } catch (AssertionError | InterruptedException e) {
      ChildProcesses.kill(p);
      throw e;
    }
    return new HdfsProcess(p, log, uri.get());
  }

  private static String announced(Path log) {
    try {
      for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
        if (line.startsWith(MiniHdfsMain.URI_LINE)) {
          return line.substring(MiniHdfsMain.URI_LINE.length()).trim();
        }
      }
      return null;
    } catch (IOException e) {
      return null;
    }
  }

  /** {@code hdfs://localhost:PORT}, without a trailing slash. */
  public String uri() {
    return uri;
  }

  /** The child JVM's output, for failure messages. */
  public Path log() {
    return log;
  }

  /** True while the HDFS process runs. */
  public boolean isAlive() {
    return process.isAlive();
  }

  @Override
  public void close() {
    ChildProcesses.kill(process);
  }
}
