package io.streamrecon.deltalake;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamrecon.model.DataFileName;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;

/**
 * Tells a streamrecon warehouse, and the tables streamrecon wrote, from a folder that only happens
 * to hold directories of the same names, so that a run never adopts, and maintenance never deletes
 * from, anything streamrecon did not write (docs/operations.md#the-warehouse).
 *
 * <p>A warehouse is recognised by its marker file, {@value #MARKER}, which a run writes when it
 * creates the warehouse (or finds it empty). A warehouse of an earlier release has no marker; it is
 * recognised by its tables, and a run writes the marker then. A table is streamrecon's when its
 * Delta log holds a commit of ours (engine info naming streamrecon, a transaction app id {@code
 * streamrecon/...}, or the {@code streamrecon <table>} description of the first releases), or,
 * before its first commit, when every data file in it is a Parquet file our writer marked with the
 * table's name ({@code streamrecon.table} in the footer) or one it was cut short writing.
 */
public final class WarehouseOwnership {
  /**
   * The marker file at the warehouse's root; Delta readers ignore names starting with {@code _}.
   */
  public static final String MARKER = "_streamrecon_warehouse";

  private static final String DELTA_LOG = "_delta_log";
  private static final String PRODUCT = "streamrecon";
  private static final Pattern COMMIT_FILE = Pattern.compile("\\d{20}\\.json");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern DATA_FILE_NAME = Pattern.compile(DataFileName.PATTERN);

  /** A complete Parquet file ends with its footer and these four bytes. */
  private static final byte[] PARQUET_MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);

  private WarehouseOwnership() {}

  /**
   * For a run that writes {@code warehouse}: creates it when missing, accepts it when empty or
   * recognised, and writes the marker where it is missing. Refuses anything else with an {@link
   * IllegalArgumentException} of one line, having changed nothing.
   */
  public static void claim(Configuration conf, String warehouse) throws IOException {
    Path root = new Path(warehouse);
    FileSystem fs = root.getFileSystem(conf);
    if (fs.exists(root)) {
      if (!fs.getFileStatus(root).isDirectory()) {
        throw new IllegalArgumentException(
            "--warehouse="
                + warehouse
                + " is a file: give a directory (new, empty or a warehouse)");
      }
      if (fs.exists(new Path(root, MARKER))) {
        requireOwnTables(conf, warehouse, WarehouseTables.TABLES);
        return;
      }
      if (fs.listStatus(root).length > 0) {
        requireEarlierRelease(conf, fs, root, warehouse);
      }
    } else {
      fs.mkdirs(root);
    }
    writeMarker(fs, root);
  }

  /**
   * Fails with one line when a table of {@code tables} exists under {@code warehouse} (its folder
   * does) but was not written by streamrecon; a missing table is fine.
   */
  public static void requireOwnTables(Configuration conf, String warehouse, List<String> tables)
      throws IOException {
    for (String table : tables) {
      Path root = DeltaLakeCommitter.tablePath(warehouse, table);
      FileSystem fs = root.getFileSystem(conf);
      if (fs.exists(root) && !isOwnTable(fs, root, table)) {
        throw notOurs(warehouse, table);
      }
    }
  }

  /** Whether the folder {@code root} holds streamrecon's table {@code table}. */
  static boolean isOwnTable(FileSystem fs, Path root, String table) throws IOException {
    if (!fs.getFileStatus(root).isDirectory()) {
      return false;
    }
    Path log = new Path(root, DELTA_LOG);
    // A log without a commit yet (a process killed inside its first commit leaves only the
    // commit's temporary file) is a table before its first commit, as a folder without a log is.
    return hasCommit(fs, log) ? logHasOurCommit(fs, log) : onlyOurDataFiles(fs, root, table);
  }

  private static boolean hasCommit(FileSystem fs, Path log) throws IOException {
    if (!fs.exists(log)) {
      return false;
    }
    for (FileStatus f : fs.listStatus(log)) {
      if (COMMIT_FILE.matcher(f.getPath().getName()).matches()
          || f.getPath().getName().endsWith(".checkpoint.parquet")) {
        return true;
      }
    }
    return false;
  }

  private static void requireEarlierRelease(
      Configuration conf, FileSystem fs, Path root, String warehouse) throws IOException {
    boolean anyTable = false;
    for (String table : WarehouseTables.TABLES) {
      Path tableRoot = new Path(root, table);
      if (fs.exists(tableRoot)) {
        if (!isOwnTable(fs, tableRoot, table)) {
          throw notOurs(warehouse, table);
        }
        anyTable = true;
      }
    }
    if (!anyTable) {
      throw new IllegalArgumentException(
          "--warehouse="
              + warehouse
              + " is not empty and not a streamrecon warehouse (no "
              + MARKER
              + " file, no table streamrecon wrote): give a new or empty directory");
    }
  }

  private static IllegalArgumentException notOurs(String warehouse, String table) {
    return new IllegalArgumentException(
        "--warehouse="
            + warehouse
            + ": "
            + table
            + "/ there was not written by streamrecon, so it is left untouched: give a new or"
            + " empty directory, or move that folder away");
  }

  /** Newest commit first: a table we write is recognised by its last commit, in one read. */
  private static boolean logHasOurCommit(FileSystem fs, Path log) throws IOException {
    List<Path> commits = new ArrayList<>();
    for (FileStatus f : fs.listStatus(log)) {
      if (COMMIT_FILE.matcher(f.getPath().getName()).matches()) {
        commits.add(f.getPath());
      }
    }
    commits.sort(Comparator.comparing(Path::getName).reversed());
    for (Path commit : commits) {
      try (BufferedReader in =
          new BufferedReader(new InputStreamReader(fs.open(commit), StandardCharsets.UTF_8))) {
        for (String line = in.readLine(); line != null; line = in.readLine()) {
          if (!line.isBlank() && isOurAction(line)) {
            return true;
          }
        }
      }
    }
    return false;
  }

  private static boolean isOurAction(String line) {
    JsonNode action;
    try {
      action = JSON.readTree(line);
    } catch (IOException e) {
      return false; // not a Delta action: not evidence either way
    }
    // Kernel writes "Kernel-<version>/streamrecon"; the first releases "streamrecon Delta-...".
    String engine = action.path("commitInfo").path("engineInfo").asText("");
    String appId = action.path("txn").path("appId").asText("");
    String description = action.path("metaData").path("description").asText("");
    return engine.contains(PRODUCT)
        || appId.startsWith(PRODUCT + "/")
        || description.startsWith(PRODUCT + " ");
  }

  /**
   * A table folder before its first commit (a first run that failed before committing): ours when
   * each data file in it is a Parquet file whose footer names the table as our writer does, or one
   * our writer was cut short writing ({@link #cutShort}). Names starting with {@code _} or {@code
   * .} (checksums, row key sidecars) are not data; a folder without data holds nothing to lose.
   */
  private static boolean onlyOurDataFiles(FileSystem fs, Path root, String table)
      throws IOException {
    String rootPath = fs.makeQualified(root).toUri().getPath();
    RemoteIterator<LocatedFileStatus> files = fs.listFiles(root, true);
    while (files.hasNext()) {
      LocatedFileStatus f = files.next();
      String path = f.getPath().toUri().getPath();
      if (DeltaLakeVacuum.hidden(path.substring(Math.min(path.length(), rootPath.length())))) {
        continue;
      }
      if (!table.equals(writtenFor(fs.getConf(), f)) && !cutShort(fs, f)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether {@code file} is a data file our writer was writing when its process died: named as our
   * writer names data files ({@link DataFileName}), and without the Parquet footer, which the
   * writer adds last and which holds the mark {@link #writtenFor} reads. Such a file holds no row a
   * reader could find, so counting it as ours risks nothing; refusing it would make a table killed
   * inside its first data file refuse every restart.
   */
  private static boolean cutShort(FileSystem fs, LocatedFileStatus file) {
    if (!DATA_FILE_NAME.matcher(file.getPath().getName()).matches()) {
      return false;
    }
    long length = file.getLen();
    if (length < PARQUET_MAGIC.length * 2L) {
      return true;
    }
    byte[] tail = new byte[PARQUET_MAGIC.length];
    try (FSDataInputStream in = fs.open(file.getPath())) {
      in.readFully(length - tail.length, tail);
    } catch (IOException e) {
      return false; // unreadable: not evidence that it is ours
    }
    return !Arrays.equals(tail, PARQUET_MAGIC);
  }

  /** The table a data file's footer names ({@code streamrecon.table}), or null. */
  static String writtenFor(Configuration conf, FileStatus file) {
    if (!file.getPath().getName().endsWith(".parquet")) {
      return null;
    }
    try (ParquetFileReader reader =
        ParquetFileReader.open(HadoopInputFile.fromStatus(file, conf))) {
      return reader
          .getFooter()
          .getFileMetaData()
          .getKeyValueMetaData()
          .get(RowWriteSupport.TABLE_KEY);
    } catch (IOException | RuntimeException e) {
      return null; // not a Parquet file we can read: not ours
    }
  }

  private static void writeMarker(FileSystem fs, Path root) throws IOException {
    try (OutputStream out = fs.create(new Path(root, MARKER), false)) {
      out.write(
          ("This directory is a streamrecon warehouse; its tables are maintained by streamrecon"
                  + " (vacuum, compact, forget).\n")
              .getBytes(StandardCharsets.UTF_8));
    } catch (FileAlreadyExistsException e) {
      // A run starting beside this one wrote it first.
    }
  }
}
