package io.streamrecon.deltalake;

import io.delta.storage.HadoopFileSystemLogStore;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Iterator;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * The Delta log store for tables on the local file system ({@code file:} paths), registered by
 * {@link DeltaLakeEngine} as {@value #CONF_KEY}: makes a commit's log file appear atomically and
 * only if no other writer has taken that version, across threads and processes.
 *
 * <p>Why: Delta Kernel uses {@code io.delta.storage.HDFSLogStore} for {@code file:}. Its "create
 * only if absent" is an existence check followed by {@code FileContext.rename}, and its only lock
 * ({@code synchronized}, per log store instance) is taken only when the file system is a {@code
 * RawLocalFileSystem}, which Hadoop's default local file system ({@code LocalFileSystem}, a
 * checksumming wrapper) is not: a reader can get a checksum error on a commit file while two
 * compactions and a writer race. The local rename replaces an existing file, so two writers racing
 * for one version both "succeed": the later silently replaces the earlier's commit (its rows are
 * lost), and as the checksum wrapper renames the data file and its {@code .crc} one after the
 * other, a reader in between gets a {@code ChecksumException}.
 *
 * <p>Here a new log file is written completely under a temporary name, forced to disk, then
 * published with a hard link ({@code link(2)} fails atomically when the name exists, which is the
 * conflict Kernel expects as {@link FileAlreadyExistsException}). Overwrites (only {@code
 * _last_checkpoint}) are an atomic rename. No {@code .crc} files are written.
 */
public class AtomicLocalLogStore extends HadoopFileSystemLogStore {

  /** The Hadoop configuration key Delta Kernel reads the {@code file:} log store from. */
  public static final String CONF_KEY = "io.delta.kernel.logStore.file.impl";

  /** Used only where the file system cannot make hard links: safe within this JVM only. */
  private static final Object FALLBACK_LOCK = new Object();

  public AtomicLocalLogStore(Configuration hadoopConf) {
    super(hadoopConf);
  }

  @Override
  public void write(Path path, Iterator<String> actions, Boolean overwrite, Configuration conf)
      throws IOException {
    java.nio.file.Path target = Paths.get(path.toUri());
    java.nio.file.Path dir = target.getParent();
    if (dir == null || !Files.isDirectory(dir)) {
      throw new FileNotFoundException("No such file or directory: " + dir);
    }
    String name = target.getFileName().toString();
    if (!overwrite && Files.exists(target)) {
      throw new FileAlreadyExistsException(path.toString());
    }
    java.nio.file.Path temp = dir.resolve("." + name + "." + UUID.randomUUID() + ".tmp");
    try {
      try (FileChannel out =
          FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
        while (actions.hasNext()) {
          ByteBuffer line =
              ByteBuffer.wrap((actions.next() + "\n").getBytes(StandardCharsets.UTF_8));
          while (line.hasRemaining()) {
            out.write(line);
          }
        }
        out.force(true);
      }
      // A checksum left by Hadoop's local file system for an earlier version of the file would
      // no longer match.
      Files.deleteIfExists(dir.resolve("." + name + ".crc"));
      if (overwrite) {
        Files.move(
            temp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } else {
        publish(temp, target, path);
      }
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  /**
   * Makes the completely written {@code temp} visible as {@code target}, failing if the version is
   * taken. Overridable so that a crash test can stop a process exactly between the two.
   */
  protected void publish(java.nio.file.Path temp, java.nio.file.Path target, Path path)
      throws IOException {
    try {
      Files.createLink(target, temp);
    } catch (FileAlreadyExistsException e) {
      throw new FileAlreadyExistsException(path.toString());
    } catch (UnsupportedOperationException e) {
      synchronized (FALLBACK_LOCK) {
        if (Files.exists(target)) {
          throw new FileAlreadyExistsException(path.toString());
        }
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
      }
    }
  }

  /**
   * True, as for the other Hadoop log stores: checkpoint Parquet files are written by our Parquet
   * handler through the Hadoop file system, not through {@link #write}, and must go through a
   * temporary file too.
   */
  @Override
  public Boolean isPartialWriteVisible(Path path, Configuration conf) {
    return true;
  }
}
