package io.streamrecon.model;

import java.util.UUID;
import java.util.regex.Pattern;

/**
 * How a Delta Lake data file is named: {@code part-<random UUID>.snappy.parquet}, in its partition
 * directory. The writers name new files with {@link #newName}; the pointer coder stores a raw
 * events file's path compactly because it has this form ({@link #PATTERN} and {@link #of}).
 */
public final class DataFileName {
  /** The file name prefix, before the UUID. */
  public static final String PREFIX = "part-";

  /** The file name suffix, after the UUID: Parquet with Snappy compression. */
  public static final String SUFFIX = ".snappy.parquet";

  /** The pattern of a file name's UUID, lower case as {@link UUID#toString} writes it. */
  public static final String UUID_PATTERN =
      "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

  /** A data file name, the UUID captured as group 1. */
  public static final String PATTERN =
      Pattern.quote(PREFIX) + "(" + UUID_PATTERN + ")" + Pattern.quote(SUFFIX);

  private DataFileName() {}

  /** A new, unique data file name. */
  public static String newName() {
    return of(UUID.randomUUID());
  }

  /** The data file name with this UUID. */
  public static String of(UUID uuid) {
    return PREFIX + uuid + SUFFIX;
  }
}
