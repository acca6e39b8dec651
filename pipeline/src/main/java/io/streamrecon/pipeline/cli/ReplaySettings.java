package io.streamrecon.pipeline.cli;

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
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.joda.time.Instant;

/**
 * The checked form of a {@code replay} command line: what to select from {@code raw_events} (runs,
 * a half-open event-time window, natural ids) and how to judge it ({@link #run}: the settings of
 * the judging half a run uses, under the replay's own run id, with {@code raw_events} as its
 * input). The judging options are those of {@code run} ({@link ReconcileOptions}); the options
 * that only say how to read inputs are refused, since a replay reads stored events.
 *
 * @param run the judging settings; its run id is the replay's id
 * @param options the Beam options the pipeline runs with (runner and runner options included)
 * @param runIds the selected runs, empty for every run
 * @param since start of the selected event time (inclusive), null for open
 * @param until end of the selected event time (exclusive), null for open
 * @param naturalIds the selected natural ids, empty for every id
 * @param given the judging options the command line set, name to value, for the replay's record
 */
record ReplaySettings(
    ReconcileSettings run,
    ReconcileOptions options,
    List<String> runIds,
    Instant since,
    Instant until,
    List<String> naturalIds,
    java.util.Map<String, String> given) {

  /** The prefix of a generated replay id, which tells a replay's rows from a live run's. */
  static final String ID_PREFIX = "replay-";

  /**
   * A run id a selection names: wider than {@link WarehouseIds} (it admits {@code :}, which stored
   * rows may hold), since a selection only compares it with the rows' run ids and never names a
   * file.
   */
  private static final Pattern SELECTED_RUN_ID = Pattern.compile("[A-Za-z0-9._:-]{1,128}");

  /** Options of {@code run} that say how to read or key the inputs: fixed by the stored rows. */
  private static final Set<String> INPUT_OPTIONS =
      Set.of(
          "source",
          "target",
          "keyField",
          "timeField",
          "maxEventBytes",
          "streaming",
          "fresh",
          "allowStateLossOnCrash",
          "autoCompact",
          "autoCompactFiles");

  /**
   * Options of {@code run} that gate a run on its summary: a replay prints its own report of what
   * changed, not a run's summary, so they would be ignored there.
   */
  private static final Set<String> RUN_GATE_OPTIONS = Set.of("failOn", "summaryJson");

  /** Options the replay reads itself; all others go to Beam as options of {@code run}. */
  private static final Set<String> SELECTION = Set.of("runId", "since", "until", "naturalId");

  /**
   * Checks a command line.
   *
   * @throws IllegalArgumentException whose message names the option
   */
  static ReplaySettings parse(List<String> args) {
    List<String> beam = new ArrayList<>();
    java.util.Map<String, String> mine = new java.util.HashMap<>();
    java.util.Map<String, String> given = new java.util.TreeMap<>();
    String replayId = null;
    for (String a : args) {
      if (!a.startsWith("--")) {
        throw new IllegalArgumentException(
            "replay: unexpected argument '" + a + "': options are --name=value");
      }
      int eq = a.indexOf('=');
      String name = eq < 0 ? a.substring(2) : a.substring(2, eq);
      String value = eq < 0 ? null : a.substring(eq + 1);
      if (SELECTION.contains(name) || name.equals("replayId")) {
        if (value == null) {
          throw new IllegalArgumentException(
              "replay: --" + name + " needs a value: --" + name + "=...");
        }
        if (name.equals("replayId")) {
          replayId = value.trim();
        } else {
          mine.put(name, value.trim());
        }
      } else if (RUN_GATE_OPTIONS.contains(name)) {
        throw new IllegalArgumentException(
            "replay: --"
                + name
                + " does not apply: it is an option of run only (a replay records what it"
                + " judged under _replays/ instead)");
      } else if (INPUT_OPTIONS.contains(name) || name.startsWith("kafka")) {
        throw new IllegalArgumentException(
            "replay: --"
                + name
                + " does not apply: a replay judges the events stored in raw_events, with the"
                + " natural ids and event times they were stored with");
      } else {
        beam.add(a);
        if (!name.equals("warehouse") && !name.equals("runner") && value != null) {
          given.put(name, value);
        }
      }
    }
    if (replayId == null) {
      replayId = newReplayId();
    } else {
      // The replay id names its record, _replays/<replayId>.json, and its row key sidecars.
      WarehouseIds.check("replayId", replayId);
    }
    StreamRecon.refuseRepeatedOptions(beam);
    ReconcileOptions options;
    try {
      options =
          PipelineOptionsFactory.fromArgs(beam.toArray(new String[0]))
              .withValidation()
              .as(ReconcileOptions.class);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(StreamRecon.explainOptionError(e.getMessage(), beam), e);
    }
    String warehouse = options.getWarehouse();
    String rawEvents =
        warehouse == null ? WarehouseTables.RAW_EVENTS : warehouse + "/" + WarehouseTables.RAW_EVENTS;
    options.setSource(rawEvents);
    options.setTarget(rawEvents);
    options.setRunId(replayId);
    ReconcileSettings run = ReconcileSettings.from(options);

    List<String> runIds = list(mine.get("runId"));
    for (String r : runIds) {
      if (!SELECTED_RUN_ID.matcher(r).matches()) {
        throw new IllegalArgumentException(
            "--runId=" + r + " is not a run id: 1 to 128 letters, digits, '.', '_', ':' or '-'");
      }
    }
    List<String> naturalIds = list(mine.get("naturalId"));
    Instant since = instant("since", mine.get("since"));
    Instant until = instant("until", mine.get("until"));
    if (since != null && until != null && !since.isBefore(until)) {
      throw new IllegalArgumentException(
          "--since=" + mine.get("since") + " must be before --until=" + mine.get("until"));
    }
    if (runIds.isEmpty() && naturalIds.isEmpty() && since == null && until == null) {
      throw new IllegalArgumentException(
          "replay: select the stored events with --runId=ID[,ID...], --since=T/--until=T or"
              + " --naturalId=ID[,ID...] (--since=1970-01-01 selects every stored event)");
    }
    if (runIds.contains(replayId)) {
      throw new IllegalArgumentException("--replayId=" + replayId + " is one of the runs replayed");
    }
    return new ReplaySettings(run, options, runIds, since, until, naturalIds, given);
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
            java.time.LocalDate.parse(value).atStartOfDay(ZoneOffset.UTC).toInstant()
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
  String replayId() {
    return run.runId();
  }
}
