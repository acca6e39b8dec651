package io.streamrecon.pipeline.run;

import io.streamrecon.deltalake.WarehouseIds;
import io.streamrecon.files.LocalFiles;
import io.streamrecon.json.ComparisonRules;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Keeps each rules file a run used under {@code <warehouse>/_rules/<rulesId>.json} (its canonical
 * form), so that {@code explain} can show the rules a DeltaRecord names by its {@code rulesId}
 * without the user finding the file again. Content-addressed: writing the same rules twice is a
 * no-op, and no two different rules share a name. Outside every table directory, so Delta Lake
 * readers never see it.
 */
public final class RulesArchive {
  static final String DIR = "_rules";

  private RulesArchive() {}

  /** Stores the rules, if any; idempotent. */
  public static void save(String warehouse, ComparisonRules rules) {
    if (rules.id() == null) {
      return;
    }
    Path file = path(warehouse, rules.id());
    try {
      FileSystem fs = file.getFileSystem(new Configuration());
      if (fs.exists(file)) {
        return;
      }
      try (OutputStream out = fs.create(file, true)) {
        out.write(rules.canonicalText().getBytes(StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot store the rules file under " + file, e);
    }
  }

  /** The rules stored under an id, or null when the warehouse has none by that id. */
  public static ComparisonRules load(String warehouse, String rulesId) {
    if (!WarehouseIds.isValid(rulesId)) {
      return null; // read from a table's row: no file of the archive can have that name
    }
    Path file = path(warehouse, rulesId);
    try {
      FileSystem fs = file.getFileSystem(new Configuration());
      if (!fs.exists(file)) {
        return null;
      }
      try (InputStream in = fs.open(file)) {
        // Stored from a rules file, so within the same limit; anything larger is not ours.
        byte[] bytes = LocalFiles.readAtMost(in, LocalFiles.SETTINGS_FILE_LIMIT);
        if (bytes == null) {
          throw new IllegalStateException(
              "the stored rules " + file + " are larger than a rules file may be (1 MiB)");
        }
        return ComparisonRules.parse(bytes);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  static Path path(String warehouse, String rulesId) {
    return new Path(
        new Path(warehouse, DIR), WarehouseIds.checkStored("rules id", rulesId) + ".json");
  }
}
