package io.streamrecon.bench.deltalake;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermissions;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.ChecksumFs;
import org.apache.hadoop.fs.DelegateToFileSystem;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FsConstants;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * Hadoop's local file system with {@code setPermission} done through java.nio. Without Hadoop's
 * native library, every file Hadoop creates locally (each Delta commit, checkpoint and Parquet
 * file) forks a {@code chmod} process, and every rename (each commit) a {@code readlink}; on a
 * shared, loaded 2-core machine that fork dominated a commit. The log benchmark installs it ({@code
 * --noFork}, the default) to measure the Delta log rather than process creation; {@code
 * --noFork=false} shows the fork cost.
 */
public class NoForkLocalFileSystem extends LocalFileSystem {
  /** Hadoop instantiates file systems by reflection, named in the installed configuration. */
  public NoForkLocalFileSystem() {
    super(new Raw());
  }

  /** Installs this file system for {@code file:} in every Configuration created from now on. */
  public static void install() {
    Configuration.addDefaultResource("streamrecon-bench-nofork-core.xml");
  }

  /** The raw file system with a fork-free setPermission. */
  public static class Raw extends RawLocalFileSystem {
    @Override
    public void setPermission(Path p, FsPermission permission) throws IOException {
      Files.setPosixFilePermissions(
          pathToFile(p).toPath(), PosixFilePermissions.fromString(permission.toString()));
    }

    /** Hadoop forks {@code readlink} here (FileContext.rename calls it on every commit). */
    @Override
    public FileStatus getFileLinkStatus(Path f) throws IOException {
      if (Files.isSymbolicLink(pathToFile(f).toPath())) {
        return super.getFileLinkStatus(f);
      }
      return getFileStatus(f);
    }
  }

  /** The same for FileContext users (delta-standalone's log store). */
  public static class Fs extends ChecksumFs {
    public Fs(URI uri, Configuration conf) throws IOException, URISyntaxException {
      super(new RawFs(uri, conf));
    }
  }

  /** FileContext view of {@link Raw}. */
  public static class RawFs extends DelegateToFileSystem {
    public RawFs(URI uri, Configuration conf) throws IOException, URISyntaxException {
      super(uri, new Raw(), conf, FsConstants.LOCAL_FS_URI.getScheme(), false);
    }

    @Override
    public int getUriDefaultPort() {
      return -1;
    }

    @Override
    public boolean isValidName(String src) {
      return true;
    }
  }
}
