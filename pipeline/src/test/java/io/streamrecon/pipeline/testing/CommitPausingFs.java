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
 * Test-only local file system for Hadoop's {@code FileContext} (through which delta-standalone
 * writes the transaction log): with {@code -Dstreamrecon.test.pauseAtCommit=K} the K-th Delta Lake
 * commit of the process announces itself in the file named by {@code
 * -Dstreamrecon.test.pauseMarker} and then blocks for ever, after its log entry was written to a
 * temporary file and before the rename that commits it. A crash test kills the process there.
 * Enabled by a {@code core-site.xml} on the class path ({@link #coreSiteXml}).
 */
public final class CommitPausingFs extends DelegateToFileSystem {
  public static final String AT = "streamrecon.test.pauseAtCommit";
  public static final String MARKER = "streamrecon.test.pauseMarker";

  public CommitPausingFs(URI uri, Configuration conf) throws IOException, URISyntaxException {
    super(FsConstants.LOCAL_FS_URI, new Pausing(), conf, FsConstants.LOCAL_FS_URI.getScheme(), false);
  }

  @Override
  public int getUriDefaultPort() {
    return -1;
  }

  /** The core-site.xml that installs this file system for {@code file:} in a child JVM. */
  public static String coreSiteXml() {
    return "<?xml version=\"1.0\"?>\n<configuration>\n  <property>\n"
        + "    <name>fs.AbstractFileSystem.file.impl</name>\n"
        + "    <value>" + CommitPausingFs.class.getName() + "</value>\n"
        + "  </property>\n</configuration>\n";
  }

  static final class Pausing extends RawLocalFileSystem {
    private static final AtomicInteger COMMITS = new AtomicInteger();

    @Override
    public boolean rename(Path src, Path dst) throws IOException {
      Path parent = dst.getParent();
      if (parent != null
          && parent.getName().equals("_delta_log")
          && dst.getName().matches("\\d{20}\\.json")) {
        int n = COMMITS.incrementAndGet();
        Integer at = Integer.getInteger(AT);
        String marker = System.getProperty(MARKER);
        if (at != null && marker != null && n == at) {
          Files.writeString(
              java.nio.file.Path.of(marker),
              "paused before committing " + dst + " (temporary " + src + ")\n",
              StandardCharsets.UTF_8);
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
      return super.rename(src, dst);
    }
  }
}
