package io.streamrecon.pipeline.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamrecon.deltalake.DeltaLakeMaintenance;
import io.streamrecon.deltalake.DeltaLakeTables;
import io.streamrecon.deltalake.WarehouseTables;
import io.streamrecon.files.LocalFiles;
import io.streamrecon.json.ParseConfig;
import io.streamrecon.pipeline.DurationParser;
import io.streamrecon.pipeline.ReconcileSettings;
import io.streamrecon.pipeline.records.ErasureRecords;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.joda.time.Duration;
import org.joda.time.Instant;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The table maintenance commands, {@code compact}, {@code vacuum} and {@code forget}: each runs
 * beside a pipeline that writes the same tables (see README, "Maintaining the tables").
 */
final class MaintenanceCommands {
  private MaintenanceCommands() {}

  private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*(b|kb|k|mb|m|gb|g)?");

  /** {@code 128MB}, {@code 1g}, {@code 65536}: binary units (1 MB = 1024 KB). */
  static long parseSize(String option, String text) {
    Matcher m = SIZE.matcher(text == null ? "" : text.trim().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "--" + option + "=" + text + " is not a size: use bytes or a number with KB, MB or GB");
    }
    long n = Long.parseLong(m.group(1));
    String unit = m.group(2) == null ? "b" : m.group(2);
    long factor =
        switch (unit.charAt(0)) {
          case 'k' -> 1L << 10;
          case 'm' -> 1L << 20;
          case 'g' -> 1L << 30;
          default -> 1L;
        };
    if (n < 1 || n > Long.MAX_VALUE / factor) {
      throw new IllegalArgumentException("--" + option + "=" + text + " is out of range");
    }
    return n * factor;
  }

  static List<String> tables(String table) {
    if (table == null) {
      return WarehouseTables.TABLES;
    }
    if (!WarehouseTables.TABLES.contains(table)) {
      throw new IllegalArgumentException(
          "--table="
              + table
              + " is not a table: use one of "
              + String.join(", ", WarehouseTables.TABLES));
    }
    return List.of(table);
  }

  /** {@code compact}: bin-packs small files, like OPTIMIZE, with {@code dataChange=false}. */
  @Command(
      name = "compact",
      description =
          "Bin-pack the small files of each partition (like OPTIMIZE; no data change); safe while a"
              + " pipeline writes.")
  static final class Compact implements Callable<Integer> {
    @Mixin WarehouseOption warehouse;

    @Option(
        names = "--table",
        description = "raw_events, deltas, dead_letters or late_events (default: all)")
    String table;

    @Option(names = "--targetFileSize", defaultValue = "128MB", description = "Target file size")
    String targetFileSize;

    @Override
    public Integer call() throws IOException {
      long target = parseSize("targetFileSize", targetFileSize);
      List<String> names = tables(table);
      if (table != null) {
        warehouse.requireTable(table);
      }
      warehouse.get().requireOwnTables(WarehouseTables.TABLES);
      for (String name : names) {
        if (!warehouse.get().tableExists(name)) {
          continue;
        }
        System.out.println(
            DeltaLakeMaintenance.compact(new Configuration(), warehouse.location(), name, target)
                .describe());
      }
      return 0;
    }
  }

  /** {@code vacuum}: deletes unreferenced files; optionally expires old raw events first. */
  @Command(
      name = "vacuum",
      description =
          "Delete data files no snapshot within --retain references; with --retainRawEvents, first"
              + " remove raw_events partitions older than that.")
  static final class Vacuum implements Callable<Integer> {
    @Mixin WarehouseOption warehouse;

    @Option(
        names = "--table",
        description = "raw_events, deltas, dead_letters or late_events (default: all)")
    String table;

    @Option(
        names = "--retain",
        defaultValue = "7d",
        description = "Keep files readable for this long (at least 1h)")
    String retain;

    @Option(
        names = "--retainRawEvents",
        description = "Remove raw_events partitions whose event_date is older than this (e.g. 30d)")
    String retainRawEvents;

    @Option(
        names = "--timeout",
        defaultValue = ReconcileSettings.DEFAULT_TIMEOUT,
        description = "The running job's --timeout")
    String timeout;

    @Option(
        names = "--allowedLateness",
        description = "The running job's --allowedLateness (default: the timeout)")
    String allowedLateness;

    @Override
    public Integer call() throws IOException {
      Duration keep = DurationParser.parse("retain", retain);
      DeltaLakeMaintenance.checkVacuumRetention(keep);
      Instant now = Instant.now();
      Configuration conf = new Configuration();
      List<String> names = tables(table);
      // Every table is checked before the first is touched: a refusal changes nothing.
      warehouse.get().requireOwnTables(WarehouseTables.TABLES);
      if (retainRawEvents != null) {
        Duration pairing = DurationParser.parse("timeout", timeout);
        Duration lateness =
            allowedLateness == null || allowedLateness.isBlank()
                ? pairing
                : DurationParser.parse("allowedLateness", allowedLateness);
        Duration rawRetention = DurationParser.parse("retainRawEvents", retainRawEvents);
        warehouse.requireTable(WarehouseTables.RAW_EVENTS);
        System.out.println(
            DeltaLakeMaintenance.expireRawEvents(
                    conf, warehouse.location(), rawRetention, pairing, lateness, now)
                .describe());
      }
      for (String name : names) {
        if (warehouse.get().hasTableFolder(name)) {
          System.out.println(
              DeltaLakeMaintenance.vacuum(conf, warehouse.location(), name, keep, now).describe());
        }
      }
      return 0;
    }
  }

  /**
   * {@code forget}: erases natural ids, their payloads and raw values, from every table, one commit
   * per table (docs/design.md#erasure), and writes the erasure's record for {@code explain} and
   * auditors. Ids are matched exactly, as the run stored them; an id no table held is named after
   * the others are erased, and makes the exit code {@link StreamRecon#EXIT_COUNTS} unless {@code
   * --allowMissing}: an erasure that silently missed an id (a typo, a stray blank) would leave the
   * payload stored while the caller believes it gone.
   */
  @Command(
      name = "forget",
      description =
          "Erase natural ids: remove their raw events and late events, clear the values of their"
              + " delta records and the raw input of dead letters that name them; one commit per"
              + " table, safe while a pipeline writes. A later vacuum deletes the old files. Ids"
              + " match exactly (no trimming). An id no table holds is named and makes the exit"
              + " code 3, after the others are erased, unless --allowMissing.")
  static final class Forget implements Callable<Integer> {
    private static final DateTimeFormatter ID_TIME =
        DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'");

    @Mixin WarehouseOption warehouse;

    @Option(
        names = "--naturalId",
        description =
            "The natural id(s) to erase: ID[,ID...], each exactly as stored (spaces included)")
    String naturalId;

    @Option(
        names = "--naturalIdFile",
        description =
            "A file of natural ids to erase, one per line, each line exactly as written (only the"
                + " line break removed); empty and whitespace-only lines are skipped; at most 64 MiB")
    String naturalIdFile;

    @Option(
        names = "--allowMissing",
        description =
            "Exit 0 even when some id is held by no table (already erased, or never stored);"
                + " such ids are still listed")
    boolean allowMissing;

    @Option(
        names = "--keyField",
        defaultValue = ParseConfig.DEFAULT_KEY_FIELD,
        description =
            "The run's --keyField: tells which dead letters name the ids"
                + " (default: ${DEFAULT-VALUE})")
    String keyField;

    @Override
    public Integer call() throws IOException {
      Set<String> ids = naturalIds(naturalId, naturalIdFile);
      List<String> keys = keyFields(keyField);
      warehouse.requireTable(WarehouseTables.RAW_EVENTS);
      warehouse.get().requireOwnTables(WarehouseTables.TABLES);
      String location = warehouse.location();
      java.time.Instant now = java.time.Instant.now().truncatedTo(ChronoUnit.MILLIS);
      String erasureId =
          "erasure-"
              + ID_TIME.format(now.atZone(ZoneOffset.UTC))
              + "-"
              + String.format("%06x", ThreadLocalRandom.current().nextInt(1 << 24));
      // The record is written before the first commit, so that an erasure stopped between its
      // commits and its end still shows in explain; it is completed or taken back afterwards.
      Map<String, Long> versions = versions(location);
      ErasureRecords.write(
          location, erasureId, now.toString(), ErasureRecords.STARTED, ids, keys, List.of());
      List<DeltaLakeMaintenance.ForgetResult> results;
      try {
        results = DeltaLakeMaintenance.forget(new Configuration(), location, ids, keys);
      } catch (IOException | RuntimeException e) {
        if (versions.equals(versions(location))) {
          ErasureRecords.delete(location, erasureId); // refused or failed before any commit
        }
        throw e;
      }
      PrintWriter out = StreamRecon.stdout();
      out.println("forget: " + ids.size() + " natural id(s)");
      for (DeltaLakeMaintenance.ForgetResult r : results) {
        out.println(r.describe());
      }
      Set<String> erased = new LinkedHashSet<>(ids);
      List<String> missing = new ArrayList<>();
      for (String id : ids) {
        if (results.stream().noneMatch(r -> r.naturalIdsErased().contains(id))) {
          erased.remove(id);
          missing.add(id);
        }
      }
      if (erased.isEmpty()) {
        ErasureRecords.delete(location, erasureId);
        out.println(
            "nothing erased: no table holds a payload or value of these ids (any more); no"
                + " record written");
      } else {
        out.println(
            "erased: "
                + erased.size()
                + " natural id(s); record: "
                + ErasureRecords.write(
                    location, erasureId, now.toString(), ErasureRecords.DONE, erased, keys, results)
                + "; the old files stay readable to time travel until a vacuum deletes them"
                + " (vacuum --retain, 7d by default; docs/operations.md#erasure)");
      }
      if (!missing.isEmpty()) {
        out.println("not found in any table: " + missing.size() + " natural id(s):");
        missing.forEach(id -> out.println("  " + quoted(id)));
      }
      out.flush();
      if (missing.isEmpty() || allowMissing) {
        return 0;
      }
      System.err.println(
          "streamrecon: forget: "
              + missing.size()
              + " of "
              + ids.size()
              + " natural id(s) not found in any table (already erased, never stored, or not"
              + " written exactly as stored): "
              + quotedList(missing)
              + (erased.isEmpty() ? "" : "; the others were erased")
              + "; --allowMissing accepts that");
      return StreamRecon.EXIT_COUNTS;
    }

    /** Most missing ids the error line names; stdout lists them all. */
    private static final int MISSING_IN_ERROR_LINE = 5;

    private static String quotedList(List<String> ids) {
      List<String> shown = new ArrayList<>();
      for (String id : ids.subList(0, Math.min(ids.size(), MISSING_IN_ERROR_LINE))) {
        shown.add(quoted(id));
      }
      String more =
          ids.size() > MISSING_IN_ERROR_LINE
              ? " and " + (ids.size() - MISSING_IN_ERROR_LINE) + " more (listed on stdout)"
              : "";
      return String.join(", ", shown) + more;
    }

    /** A JSON string, so that an id's leading or trailing spaces show. */
    static String quoted(String id) {
      try {
        return JSON.writeValueAsString(id);
      } catch (JsonProcessingException e) {
        throw new IllegalStateException(e);
      }
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private static Map<String, Long> versions(String warehouse) {
      Map<String, Long> versions = new java.util.HashMap<>();
      for (String table : WarehouseTables.TABLES) {
        versions.put(table, DeltaLakeTables.tableVersion(warehouse, table));
      }
      return versions;
    }

    /**
     * Largest {@code --naturalIdFile} read: 64 MiB, about a million ids of 60 characters, well
     * beyond one erasure request while bounding the memory a mistyped path can take.
     */
    static final int NATURAL_ID_FILE_LIMIT = 64 << 20;

    /**
     * The ids as given: a natural id is an exact string (docs/design.md), so nothing is trimmed; an
     * empty or whitespace-only entry or line is skipped, since no natural id is blank.
     */
    static Set<String> naturalIds(String list, String file) throws IOException {
      Set<String> ids = new LinkedHashSet<>();
      if (list != null) {
        for (String id : list.split(",")) {
          if (!id.isBlank()) {
            ids.add(id);
          }
        }
      }
      if (file != null) {
        java.nio.file.Path path = java.nio.file.Path.of(file);
        if (!Files.isRegularFile(path)) {
          throw new IllegalArgumentException("--naturalIdFile=" + file + " is not a file");
        }
        byte[] bytes = LocalFiles.readAtMost("--naturalIdFile", file, NATURAL_ID_FILE_LIMIT);
        String text =
            StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(bytes)).toString();
        // lines() removes only the line terminator (\n, \r\n or \r): spaces stay part of the id.
        text.lines().filter(line -> !line.isBlank()).forEach(ids::add);
      }
      if (ids.isEmpty()) {
        throw new IllegalArgumentException(
            "forget: give the natural ids to erase with --naturalId=ID[,ID...] or"
                + " --naturalIdFile=FILE (one id per line)");
      }
      return ids;
    }

    static List<String> keyFields(String text) {
      List<String> keys = new ArrayList<>();
      for (String k : text.split(",")) {
        if (!k.isBlank()) {
          keys.add(k.strip());
        }
      }
      if (keys.isEmpty()) {
        throw new IllegalArgumentException(
            "--keyField must name at least one JSON Pointer, like /id or /orderId,/lineNo");
      }
      try {
        ParseConfig.defaults().withKeyFields(keys);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("--keyField=" + text + ": " + e.getMessage(), e);
      }
      return keys;
    }
  }
}
