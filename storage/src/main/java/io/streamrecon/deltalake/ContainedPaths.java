package io.streamrecon.deltalake;

import java.io.IOException;
import java.net.URI;
import java.util.Objects;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The guard of every recursive delete of a path built from a value (an id, a name, a listing): the
 * path, once normalised, must lie strictly inside the folder it was meant for. An id such as {@code
 * ..} or {@code .} resolves to that folder's parent or to the folder itself, so that without this
 * check a recursive delete meant for one run's files removes a whole table or warehouse.
 */
public final class ContainedPaths {
  private ContainedPaths() {}

  /**
   * Deletes {@code target} and everything under it, if it exists, after checking that it lies
   * strictly inside {@code folder} (both qualified by {@code fs}).
   *
   * @return whether something was deleted
   * @throws IllegalStateException naming both paths when {@code target} is not inside {@code
   *     folder}
   */
  public static boolean deleteRecursively(FileSystem fs, Path folder, Path target)
      throws IOException {
    Path qualifiedFolder = fs.makeQualified(folder);
    Path qualifiedTarget = fs.makeQualified(target);
    requireStrictChild(qualifiedFolder, qualifiedTarget);
    return fs.exists(qualifiedTarget) && fs.delete(qualifiedTarget, true);
  }

  /**
   * Checks that {@code target} is {@code folder} plus at least one more segment once both are
   * normalised, on the same scheme and authority.
   *
   * @throws IllegalStateException naming both paths otherwise
   */
  public static void requireStrictChild(Path folder, Path target) {
    URI f = folder.toUri().normalize();
    URI t = target.toUri().normalize();
    if (!Objects.equals(f.getScheme(), t.getScheme())
        || !Objects.equals(f.getAuthority(), t.getAuthority())
        || !strictlyUnder(f.getPath(), t.getPath())) {
      throw outside(folder, target);
    }
  }

  /** {@link #requireStrictChild(Path, Path)} for local paths, made absolute and normalised. */
  public static void requireStrictChild(java.nio.file.Path folder, java.nio.file.Path target) {
    java.nio.file.Path f = folder.toAbsolutePath().normalize();
    java.nio.file.Path t = target.toAbsolutePath().normalize();
    if (!t.startsWith(f) || t.equals(f)) {
      throw outside(folder, target);
    }
  }

  private static boolean strictlyUnder(String folder, String target) {
    if (folder == null || target == null) {
      return false;
    }
    String prefix = folder.endsWith("/") ? folder : folder + "/";
    if (!target.startsWith(prefix) || target.length() == prefix.length()) {
      return false;
    }
    for (String segment : target.substring(prefix.length()).split("/")) {
      if (segment.equals(".") || segment.equals("..")) {
        return false;
      }
    }
    return true;
  }

  private static IllegalStateException outside(Object folder, Object target) {
    return new IllegalStateException(
        "refusing to delete " + target + ": it is not inside " + folder);
  }
}
