package io.streamrecon.pipeline.run;

import io.streamrecon.deltalake.WarehouseIds;
import io.streamrecon.deltalake.WarehouseTables;
import io.streamrecon.pipeline.ReconcileOptions;
import io.streamrecon.pipeline.ReconcileSettings;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;
import org.joda.time.Instant;

/**
 * The checked settings of a replay: what to select from {@code raw_events} (runs, a half-open
 * event-time window, natural ids) and how to judge it ({@link #run}: the settings of the judging
 * half a run uses, under the replay's own run id, with {@code raw_events} as its input). The
 * judging options are those of {@code run} ({@link ReconcileOptions}).
 *
 * @param run the judging settings; its run id is the replay's id
 * @param options the Beam options the pipeline runs with (runner and runner options included)
 * @param runIds the selected runs, empty for every run
 * @param since start of the selected event time (inclusive), null for open
 * @param until end of the selected event time (exclusive), null for open
 * @param naturalIds the selected natural ids, empty for every id
 * @param given the judging options the command line set, name to value, for the replay's record
 */
public record ReplaySettings(
    ReconcileSettings run,
    ReconcileOptions options,
    List<String> runIds,
    Instant since,
    Instant until,
    List<String> naturalIds,
    java.util.Map<String, String> given) {

  /** The prefix of a generated replay id, which tells a replay's rows from a live run's. */
  public static final String ID_PREFIX = "replay-";

  /**
   * A run id a selection names: wider than {@link WarehouseIds} (it admits {@code :}, which stored
   * rows may hold), since a selection only compares it with the rows' run ids and never names a
   * file.
   */
  private static final Pattern SELECTED_RUN_ID = Pattern.compile("[A-Za-z0-9._:-]{1,128}");

  /**
   * Checks a replay's selection and builds its settings: the judging settings of {@code options}
   * with {@code raw_events} as both inputs and the replay id as run id.
   *
   * @param options the Beam options of the command line, with the warehouse and judging options
   * @param replayId the id given, or null for a new one
   * @param runIds the selected runs as given, comma-separated, or null
   * @param naturalIds the selected natural ids as given, comma-separated, or null
   * @param since start of the selected event time (inclusive) as given, null for open
   * @param until end of the selected event time (exclusive) as given, null for open
   * @param given the judging options the command line set, name to value
   * @throws IllegalArgumentException whose message names the option
   */
  public static ReplaySettings of(
      ReconcileOptions options,
      String replayId,
      String runIds,
      String naturalIds,
      String since,
      String until,
      java.util.Map<String, String> given) {
    replayId = replayId(replayId);
    String warehouse = options.getWarehouse();
    String rawEvents =
        warehouse == null
            ? WarehouseTables.RAW_EVENTS
            : warehouse + "/" + WarehouseTables.RAW_EVENTS;
    options.setSource(rawEvents);
    options.setTarget(rawEvents);
    options.setRunId(replayId);
    ReconcileSettings run = ReconcileSettings.from(options);

    List<String> selectedRuns = list(runIds);
    for (String r : selectedRuns) {
      if (!SELECTED_RUN_ID.matcher(r).matches()) {
        throw new IllegalArgumentException(
            "--runId=" + r + " is not a run id: 1 to 128 letters, digits, '.', '_', ':' or '-'");
      }
    }
    List<String> selectedIds = list(naturalIds);
    Instant from = instant("since", since);
    Instant to = instant("until", until);
    if (from != null && to != null && !from.isBefore(to)) {
      throw new IllegalArgumentException("--since=" + since + " must be before --until=" + until);
    }
    if (selectedRuns.isEmpty() && selectedIds.isEmpty() && from == null && to == null) {
      throw new IllegalArgumentException(
          "replay: select the stored events with --runId=ID[,ID...], --since=T/--until=T or"
              + " --naturalId=ID[,ID...] (--since=1970-01-01 selects every stored event)");
    }
    if (selectedRuns.contains(replayId)) {
      throw new IllegalArgumentException("--replayId=" + replayId + " is one of the runs replayed");
    }
    return new ReplaySettings(
        run,
        options,
        selectedRuns,
        from,
        to,
        selectedIds,
        java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(given)));
  }

  /**
   * The replay id given, checked, or a new one when none was given.
   *
   * @throws IllegalArgumentException naming {@code --replayId} when it cannot name a file
   */
  public static String replayId(String given) {
    if (given == null) {
      return newReplayId();
    }
    // The replay id names its record, _replays/<replayId>.json, and its row key sidecars.
    return WarehouseIds.check("replayId", given);
  }

  private static List<String> list(String value) {
    List<String> result = new ArrayList<>();
    if (value == null) {
      return result;
    }
    for (String p : value.split(",")) {
      String t = p.trim();
      if (!t.isEmpty() && !result.contains(t)) {
        result.add(t);
      }
    }
    return result;
  }

  /** As {@code report}'s: an ISO-8601 instant with offset, or a date (its UTC midnight). */
  private static Instant instant(String option, String value) {
    if (value == null || value.isBlank()) {
      return null;
    }
    try {
      return new Instant(java.time.OffsetDateTime.parse(value).toInstant().toEpochMilli());
    } catch (java.time.format.DateTimeParseException notDateTime) {
      try {
        return new Instant(
            java.time.LocalDate.parse(value)
                .atStartOfDay(ZoneOffset.UTC)
                .toInstant()
                .toEpochMilli());
      } catch (java.time.format.DateTimeParseException notDate) {
        throw new IllegalArgumentException(
            "--"
                + option
                + "="
                + value
                + " is neither an ISO-8601 date-time with offset (2024-03-01T08:00:00Z) nor a"
                + " date (2024-03-01)");
      }
    }
  }

  private static final DateTimeFormatter ID_TIME =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'", Locale.ROOT);

  /** {@code replay-<UTC start time>-<random>}. */
  static String newReplayId() {
    return ID_PREFIX
        + ID_TIME.format(ZonedDateTime.now(ZoneOffset.UTC))
        + "-"
        + String.format("%06x", ThreadLocalRandom.current().nextInt(1 << 24));
  }

  /** The replay's own run id. */
  public String replayId() {
    return run.runId();
  }
}
