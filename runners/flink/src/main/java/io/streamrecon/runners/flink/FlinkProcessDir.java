package io.streamrecon.runners.flink;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.UUID;
import org.apache.flink.util.FileUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The local directory of this process's embedded Flink cluster: its working directory (Flink's
 * {@code process.working-dir}: blob store, local state), its temporary directories ({@code
 * io.tmp.dirs}: shuffle and spill files, the RPC system's extracted jar, RocksDB's working copy of
 * the state) and the configuration a run generates for it. Flink deletes its files when the cluster
 * shuts down, and this process deletes the rest when it exits; a process killed with SIGKILL (the
 * OOM killer, a lost container) leaves all of it behind, each time. A job that crashes and is
 * restarted by a service manager would fill the disk.
 *
 * <p>So every process works in {@code <java.io.tmpdir>/streamrecon-flink-<user>/process-<uuid>} and
 * holds an operating system lock on {@code process-<uuid>.lock} while it runs. The operating system
 * releases a lock when its process dies, however it dies: a start deletes every process directory
 * whose lock it can take, as its process is gone.
 */
final class FlinkProcessDir {
  private static final Logger LOG = LoggerFactory.getLogger(FlinkProcessDir.class);

  /** The prefix of a process directory's name, and of its lock file's. */
  static final String PREFIX = "process-";

  /** The suffix of a process directory's lock file. */
  static final String LOCK_SUFFIX = ".lock";

  /** This process's directory, once made; its lock is held until the process exits. */
  private static Path current;

  @SuppressWarnings("unused") // held, never read: releasing it would let another start sweep us
  private static FileLock held;

  private FlinkProcessDir() {}

  /** The directory all processes of this user share, under {@code java.io.tmpdir}. */
  static Path base() {
    String user = System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9._-]", "_");
    return Path.of(System.getProperty("java.io.tmpdir"), "streamrecon-flink-" + user);
  }

  /**
   * This process's directory: made, locked and swept for dead processes' directories on the first
   * call, and deleted when the process exits normally.
   */
  static synchronized Path current() {
    if (current != null) {
      return current;
    }
    Path base = base();
    try {
      Files.createDirectories(base);
      int swept = sweep(base);
      if (swept > 0) {
        LOG.info("deleted {} Flink working directories left by killed runs under {}", swept, base);
      }
      while (current == null) {
        String name = PREFIX + UUID.randomUUID();
        Path lockFile = base.resolve(name + LOCK_SUFFIX);
        FileChannel channel =
            FileChannel.open(lockFile, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        FileLock lock = channel.tryLock();
        // Another start may have taken the new file for a dead process's and deleted it.
        if (lock == null || !Files.exists(lockFile)) {
          channel.close();
          continue;
        }
        Path dir = Files.createDirectories(base.resolve(name));
        held = lock;
        current = dir;
        Runtime.getRuntime()
            .addShutdownHook(
                new Thread(
                    () -> {
                      // Flink's own shutdown hooks may still write; what is left keeps its lock
                      // file, released at exit, for the next start's sweep.
                      FileUtils.deleteDirectoryQuietly(dir.toFile());
                      if (!Files.exists(dir)) {
                        try {
                          Files.deleteIfExists(lockFile);
                        } catch (IOException e) {
                          // The next start sweeps it.
                        }
                      }
                    },
                    "streamrecon-flink-dir-cleanup"));
      }
      return current;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot make a Flink working directory under " + base, e);
    }
  }

  /** Deletes the directories of processes that no longer hold their lock; returns how many. */
  static int sweep(Path base) throws IOException {
    int swept = 0;
    try (DirectoryStream<Path> locks = Files.newDirectoryStream(base, PREFIX + "*" + LOCK_SUFFIX)) {
      for (Path lockFile : locks) {
        String name = lockFile.getFileName().toString();
        Path dir = base.resolve(name.substring(0, name.length() - LOCK_SUFFIX.length()));
        try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.WRITE)) {
          FileLock lock = channel.tryLock();
          if (lock == null) {
            continue; // its process runs
          }
          try {
            FileUtils.deleteDirectoryQuietly(dir.toFile());
            // A directory that could not be deleted whole keeps its lock file, for the next sweep.
            if (!Files.exists(dir)) {
              Files.deleteIfExists(lockFile);
              swept++;
            }
          } finally {
            lock.release();
          }
        } catch (OverlappingFileLockException e) {
          // This process holds it.
        } catch (NoSuchFileException e) {
          // Another start swept it first.
        }
      }
    }
    return swept;
  }
}
