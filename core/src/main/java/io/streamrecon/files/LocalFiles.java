package io.streamrecon.files;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.Set;

/**
 * Reading and writing the local files a command is given, safely against hostile paths: a file
 * given to an option is read with a size limit (so {@code /dev/zero} or a huge file ends in one
 * line, not in running out of memory), and a file is written through a fresh temporary file of an
 * unpredictable name in the same folder, then renamed over the target, so a link planted at a
 * predictable name is never followed and a reader never sees half a file.
 */
public final class LocalFiles {
  /** Limit for a small settings file given to an option (rules, Kafka properties): 1 MiB. */
  public static final int SETTINGS_FILE_LIMIT = 1 << 20;

  private static final int CHUNK = 1 << 16;

  private LocalFiles() {}

  /**
   * The whole content of {@code file}, given as {@code option}, read with at most {@code maxBytes}
   * held: the size the file system reports is not trusted (a device or pipe has none).
   *
   * @throws IllegalArgumentException one line naming the option and the file: larger than the limit
   *     (which it names), missing, a folder, or unreadable
   */
  public static byte[] readAtMost(String option, String file, int maxBytes) {
    Path path;
    try {
      path = Path.of(file);
    } catch (InvalidPathException e) {
      throw new IllegalArgumentException(option + "=" + file + ": not a file path");
    }
    if (Files.isDirectory(path)) {
      throw new IllegalArgumentException(option + "=" + file + " is a folder, not a file");
    }
    try (InputStream in = Files.newInputStream(path)) {
      byte[] bytes = readAtMost(in, maxBytes);
      if (bytes == null) {
        throw new IllegalArgumentException(
            option + "=" + file + ": the file is larger than the limit of " + size(maxBytes));
      }
      return bytes;
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException(option + "=" + file + ": no such file");
    } catch (AccessDeniedException e) {
      throw new IllegalArgumentException(option + "=" + file + ": permission denied");
    } catch (IOException e) {
      String reason =
          e instanceof FileSystemException f && f.getReason() != null
              ? f.getReason()
              : e.getClass().getSimpleName();
      throw new IllegalArgumentException(
          option + "=" + file + ": cannot read the file (" + reason + ")");
    }
  }

  /**
   * All bytes of {@code in} when there are at most {@code maxBytes}, else null; reads at most
   * {@code maxBytes + 1} bytes either way.
   */
  public static byte[] readAtMost(InputStream in, int maxBytes) throws IOException {
    if (maxBytes < 0) {
      throw new IllegalArgumentException("maxBytes must not be negative, got " + maxBytes);
    }
    byte[] buffer = new byte[Math.min(CHUNK, maxBytes + 1)];
    int length = 0;
    while (true) {
      if (length == buffer.length) {
        if (length > maxBytes) {
          return null;
        }
        buffer = Arrays.copyOf(buffer, (int) Math.min((long) maxBytes + 1, 2L * length));
      }
      int n = in.read(buffer, length, buffer.length - length);
      if (n < 0) {
        return length > maxBytes ? null : Arrays.copyOf(buffer, length);
      }
      length += n;
    }
  }

  /** A byte count in the unit users give limits in: 1 MiB, 64 MiB, 1000 bytes. */
  static String size(int bytes) {
    if (bytes >= 1 << 20 && bytes % (1 << 20) == 0) {
      return (bytes >> 20) + " MiB";
    }
    if (bytes >= 1 << 10 && bytes % (1 << 10) == 0) {
      return (bytes >> 10) + " KiB";
    }
    return bytes + " bytes";
  }

  /**
   * Writes {@code content} to {@code target} all at once: into a new file of an unpredictable name
   * in the target's folder (created exclusively, so nothing planted there is followed), then
   * renamed over the target atomically (a link at the target is replaced, not followed). The file
   * is readable by everyone the umask allows, like a file the shell would create: what is written
   * here (a report, a heartbeat) is meant to be read by others. The folder must exist.
   */
  public static void writeAtomically(Path target, byte[] content) throws IOException {
    Path dir = target.toAbsolutePath().getParent();
    Path temp = Files.createTempFile(dir, "." + target.getFileName() + ".", ".tmp", readable(dir));
    try {
      try (OutputStream out =
          Files.newOutputStream(
              temp,
              StandardOpenOption.WRITE,
              StandardOpenOption.TRUNCATE_EXISTING,
              LinkOption.NOFOLLOW_LINKS)) {
        out.write(content);
      }
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  private static FileAttribute<?>[] readable(Path dir) {
    if (!dir.getFileSystem().supportedFileAttributeViews().contains("posix")) {
      return new FileAttribute<?>[0];
    }
    Set<PosixFilePermission> rwRR = PosixFilePermissions.fromString("rw-r--r--");
    return new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(rwRR)};
  }
}
