package io.streamrecon.pipeline.cli;

import io.streamrecon.deltalake.DeltaLakeIO;
import io.streamrecon.deltalake.DeltaLakeMaintenance;
import io.streamrecon.pipeline.DurationParser;
import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.joda.time.Duration;
import org.joda.time.Instant;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The table maintenance commands, {@code compact} and {@code vacuum}: both run beside a pipeline
 * that writes the same tables (see README, "Maintaining the tables").
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
      return DeltaLakeIO.TABLES;
    }
    if (!DeltaLakeIO.TABLES.contains(table)) {
      throw new IllegalArgumentException(
          "--table=" + table + " is not a table: use one of " + String.join(", ", DeltaLakeIO.TABLES));
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

    @Option(names = "--table", description = "raw_events, deltas, dead_letters or late_events (default: all)")
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

    @Option(names = "--table", description = "raw_events, deltas, dead_letters or late_events (default: all)")
    String table;

    @Option(names = "--retain", defaultValue = "7d", description = "Keep files readable for this long (at least 1h)")
    String retain;

    @Option(
        names = "--retainRawEvents",
        description = "Remove raw_events partitions whose event_date is older than this (e.g. 30d)")
    String retainRawEvents;

    @Option(names = "--timeout", defaultValue = "10m", description = "The running job's --timeout")
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
      if (retainRawEvents != null) {
        Duration pairing = DurationParser.parse("timeout", timeout);
        Duration lateness =
            allowedLateness == null || allowedLateness.isBlank()
                ? pairing
                : DurationParser.parse("allowedLateness", allowedLateness);
        Duration rawRetention = DurationParser.parse("retainRawEvents", retainRawEvents);
        warehouse.requireTable(DeltaLakeIO.RAW_EVENTS);
        System.out.println(
            DeltaLakeMaintenance.expireRawEvents(
                conf, warehouse.location(), rawRetention, pairing, lateness, now)
                .describe());
      }
      for (String name : names) {
        if (warehouse.get().tableExists(name)) {
          System.out.println(
              DeltaLakeMaintenance.vacuum(conf, warehouse.location(), name, keep, now).describe());
        }
      }
      return 0;
    }
  }
}
