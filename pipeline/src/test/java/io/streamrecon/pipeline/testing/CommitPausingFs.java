package io.streamrecon.pipeline.testing;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.DelegateToFileSystem;
import org.apache.hadoop.fs.FsConstants;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;

/**
 * Test-only local file systems that pause a process at the moment a crash test kills it. Hadoop's
 * {@code FileContext} (and the project's local log store): with {@code
 * -Dstreamrecon.test.pauseAtCommit=K} the K-th Delta Lake commit of the process announces itself in
 * the file named by {@code -Dstreamrecon.test.pauseMarker} and then blocks for ever, after its log
 * entry was written to a temporary file and before the rename that commits it. Hadoop's {@code
 * FileSystem} ({@link CheckpointPausingFs}): the same at the K-th Spark checkpoint file ({@link
 * #AT_CHECKPOINT}). Enabled by a {@code core-site.xml} ({@link #coreSiteXml}) in the Hadoop
 * configuration directory.
 */
public final class CommitPausingFs extends DelegateToFileSystem {
  public static final String AT = "streamrecon.test.pauseAtCommit";
  public static final String MARKER = "streamrecon.test.pauseMarker";

  /**
   * With {@code -Dstreamrecon.test.pauseAtCheckpoint=K}, the K-th Spark checkpoint file of the
   * process (a state partition {@code rdd-N/part-NNNNN} or the streaming context's {@code
   * checkpoint-<time>}) announces itself in the marker file and blocks for ever, written under its
   * temporary name and not yet renamed to the name a restore reads.
   */
  public static final String AT_CHECKPOINT = "streamrecon.test.pauseAtCheckpoint";

  public CommitPausingFs(URI uri, Configuration conf) throws IOException, URISyntaxException {
    super(
        FsConstants.LOCAL_FS_URI, new Pausing(), conf, FsConstants.LOCAL_FS_URI.getScheme(), false);
  }

  @Override
  public int getUriDefaultPort() {
    return -1;
  }

  /** The core-site.xml that installs this file system for {@code file:} in a child JVM. */
  public static String coreSiteXml() {
    return "<?xml version=\"1.0\"?>\n<configuration>\n  <property>\n"
        + "    <name>fs.AbstractFileSystem.file.impl</name>\n"
        + "    <value>"
        + CommitPausingFs.class.getName()
        + "</value>\n"
        + "  </property>\n  <property>\n"
        + "    <name>"
        + io.streamrecon.deltalake.AtomicLocalLogStore.CONF_KEY
        + "</name>\n"
        + "    <value>"
        + PausingLogStore.class.getName()
        + "</value>\n"
        + "  </property>\n  <property>\n"
        + "    <name>fs.file.impl</name>\n"
        + "    <value>"
        + CheckpointPausingFs.class.getName()
        + "</value>\n"
        + "  </property>\n</configuration>\n";
  }

  /**
   * Writes a jar of this file system's classes (and nothing else of the test class path) to {@code
   * jar}: what a user adds to a shipped artifact's class path for a file system of their own
   * ({@code STREAMRECON_CLASSPATH}, spark-submit's {@code --jars}), together with {@link
   * #coreSiteXml} in a Hadoop configuration directory.
   */
  public static java.nio.file.Path writeJar(java.nio.file.Path jar) throws IOException {
    return writeJar(
        jar,
        java.util.List.of(
            CommitPausingFs.class,
            Pausing.class,
            PausingLogStore.class,
            CheckpointPausingFs.class));
  }

  /**
   * Writes a jar of the Hadoop file systems alone, without {@link PausingLogStore} (which extends a
   * class of the project's jar): for spark-submit's driver class path, where Hadoop loads a {@code
   * file:} file system before {@code --jars} are added, and which cannot see the application jar.
   */
  public static java.nio.file.Path writeFileSystemJar(java.nio.file.Path jar) throws IOException {
    return writeJar(
        jar, java.util.List.of(CommitPausingFs.class, Pausing.class, CheckpointPausingFs.class));
  }

  private static java.nio.file.Path writeJar(
      java.nio.file.Path jar, java.util.List<Class<?>> classes) throws IOException {
    String pkg = CommitPausingFs.class.getPackageName().replace('.', '/');
    try (java.util.jar.JarOutputStream out =
        new java.util.jar.JarOutputStream(Files.newOutputStream(jar))) {
      for (Class<?> c : classes) {
        String file = c.getName().substring(c.getName().lastIndexOf('.') + 1) + ".class";
        try (java.io.InputStream in = c.getResourceAsStream(file)) {
          if (in == null) {
            throw new IOException("class file of " + c.getName() + " not found");
          }
          out.putNextEntry(new java.util.jar.JarEntry(pkg + "/" + file));
          in.transferTo(out);
          out.closeEntry();
        }
      }
    }
    return jar;
  }

  private static final AtomicInteger COMMITS = new AtomicInteger();

  /**
   * Counts a Delta Lake commit about to be published ({@code _delta_log/<20 digits>.json}) and, if
   * it is the chosen one, writes the marker and blocks until the process is killed. Public: on
   * spark-submit the log store comes through {@code --jars}, another class loader, and so another
   * runtime package than this class on the driver's class path.
   */
  public static void pauseIfChosen(String dirName, String fileName, String what)
      throws IOException {
    if (!dirName.equals("_delta_log") || !fileName.matches("\\d{20}\\.json")) {
      return;
    }
    pauseIfNth(COMMITS.incrementAndGet(), AT, "paused before committing " + what);
  }

  private static final AtomicInteger CHECKPOINT_FILES = new AtomicInteger();

  /** Counts a Spark checkpoint file about to get its final name; pauses if it is the chosen one. */
  static void pauseIfChosenCheckpoint(Path src, Path dst) throws IOException {
    String dir = dst.getParent() == null ? "" : dst.getParent().getName();
    boolean statePartition = dir.matches("rdd-\\d+") && dst.getName().matches("part-\\d+");
    boolean context = dst.getName().matches("checkpoint-\\d+");
    if (statePartition || context) {
      pauseIfNth(
          CHECKPOINT_FILES.incrementAndGet(),
          AT_CHECKPOINT,
          "paused before publishing Spark checkpoint file " + dst + " (temporary " + src + ")");
    }
  }

  private static void pauseIfNth(int n, String property, String what) throws IOException {
    Integer at = Integer.getInteger(property);
    String marker = System.getProperty(MARKER);
    if (at != null && marker != null && n == at) {
      Files.writeString(java.nio.file.Path.of(marker), what + "\n", StandardCharsets.UTF_8);
      Object never = new Object();
      synchronized (never) {
        while (true) {
          try {
            never.wait(); // the test kills the process here
          } catch (InterruptedException e) {
            // keep pausing: only SIGKILL ends this
          }
        }
      }
    }
  }

  /**
   * The project's atomic local log store, paused between writing a commit's log file and publishing
   * it: the moment a crash inside a Delta Lake commit leaves behind.
   */
  public static final class PausingLogStore extends io.streamrecon.deltalake.AtomicLocalLogStore {
    public PausingLogStore(Configuration conf) {
      super(conf);
    }

    @Override
    protected void publish(java.nio.file.Path temp, java.nio.file.Path target, Path path)
        throws IOException {
      pauseIfChosen(
          target.getParent() == null ? "" : target.getParent().getFileName().toString(),
          target.getFileName().toString(),
          target + " (temporary " + temp + ")");
      super.publish(temp, target, path);
    }
  }

  /**
   * Hadoop's local {@code file:} file system (through which Spark writes its checkpoints), paused
   * at the chosen checkpoint file ({@link #AT_CHECKPOINT}); otherwise Hadoop's own.
   */
  public static final class CheckpointPausingFs extends org.apache.hadoop.fs.LocalFileSystem {
    @Override
    public boolean rename(Path src, Path dst) throws IOException {
      pauseIfChosenCheckpoint(src, dst);
      return super.rename(src, dst);
    }
  }

  static final class Pausing extends RawLocalFileSystem {
    @Override
    public boolean rename(Path src, Path dst) throws IOException {
      pauseIfChosen(
          dst.getParent() == null ? "" : dst.getParent().getName(),
          dst.getName(),
          dst + " (temporary " + src + ")");
      return super.rename(src, dst);
    }
  }
}
