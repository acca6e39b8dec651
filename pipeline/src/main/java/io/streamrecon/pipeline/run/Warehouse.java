package io.streamrecon.pipeline.run;

import io.streamrecon.deltalake.WarehouseOwnership;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The {@code --warehouse} of a run or a command: a local directory, a {@code file:} URI or a Hadoop
 * URI ({@code s3a://}, {@code hdfs://}, ...) under which each table is a directory of its own
 * (docs/design.md#tables-and-pointers). The one place that tells a local warehouse from a remote
 * one.
 */
public final class Warehouse {
  /** A URI with a scheme and an authority part: {@code scheme://...}. */
  private static final Pattern SCHEME_URI = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*://.*");

  private static final String DELTA_LOG = "_delta_log";

  private final String location;

  private Warehouse(String location) {
    this.location = location;
  }

  /** The warehouse at {@code location}, as given (surrounding blanks removed). */
  public static Warehouse of(String location) {
    if (location == null || location.isBlank()) {
      throw new IllegalArgumentException(
          "--warehouse is empty: give a directory or a Hadoop URI such as s3a://bucket/path");
    }
    return new Warehouse(location.trim());
  }

  /** The location as given. */
  public String location() {
    return location;
  }

  /** True for a local directory or a {@code file:} URI; false for any other Hadoop URI. */
  public boolean isLocal() {
    return location.startsWith("file:") || !SCHEME_URI.matcher(location).matches();
  }

  /** The local directory; only for a {@link #isLocal local} warehouse. */
  public Path localPath() {
    if (!isLocal()) {
      throw new IllegalStateException("not a local warehouse: " + location);
    }
    return location.startsWith("file:") ? Path.of(URI.create(location)) : Path.of(location);
  }

  /** The warehouse as an absolute URI without a trailing slash: a local one as {@code file:/..}. */
  public String uri() {
    String uri = isLocal() ? localPath().toAbsolutePath().normalize().toUri().toString() : location;
    return uri.endsWith("/") ? uri.substring(0, uri.length() - 1) : uri;
  }

  /** Where a table of this warehouse lives, in the form the location was given. */
  public String tablePath(String table) {
    return location.endsWith("/") ? location + table : location + "/" + table;
  }

  /**
   * True when the table exists, that is where its transaction log does. A remote warehouse is asked
   * through its Hadoop file system (one existence check), so that a mistyped {@code hdfs://}
   * location fails as a local one does instead of reading as empty tables; when that file system
   * cannot be reached or is not on the class path, the table's reader finds out.
   */
  public boolean tableExists(String table) {
    if (isLocal()) {
      return Files.isDirectory(localPath().resolve(table).resolve(DELTA_LOG));
    }
    org.apache.hadoop.fs.Path log =
        new org.apache.hadoop.fs.Path(tablePath(table) + "/" + DELTA_LOG);
    try {
      return log.getFileSystem(new org.apache.hadoop.conf.Configuration()).exists(log);
    } catch (java.io.IOException | RuntimeException e) {
      return true;
    }
  }

  /**
   * True when the table's folder exists, with or without a transaction log (a first run that failed
   * before its first commit leaves data files without one).
   */
  public boolean hasTableFolder(String table) {
    if (isLocal()) {
      return Files.isDirectory(localPath().resolve(table));
    }
    org.apache.hadoop.fs.Path folder = new org.apache.hadoop.fs.Path(tablePath(table));
    try {
      return folder.getFileSystem(new org.apache.hadoop.conf.Configuration()).exists(folder);
    } catch (java.io.IOException | RuntimeException e) {
      return true;
    }
  }

  /**
   * Fails with one line when one of {@code tables} exists here but was not written by streamrecon
   * ({@link WarehouseOwnership}): maintenance touches nothing then.
   */
  public void requireOwnTables(List<String> tables) {
    try {
      WarehouseOwnership.requireOwnTables(
          new org.apache.hadoop.conf.Configuration(), location, tables);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("reading the tables under --warehouse=" + location, e);
    }
  }

  /** Fails with a line naming the option when the table does not exist. */
  public void requireTable(String table) {
    if (!tableExists(table)) {
      throw new IllegalArgumentException(
          "no " + table + " table under --warehouse=" + location + " (has a run written there?)");
    }
  }

  @Override
  public String toString() {
    return location;
  }
}
