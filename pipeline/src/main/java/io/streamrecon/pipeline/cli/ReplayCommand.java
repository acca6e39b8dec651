package io.streamrecon.pipeline.cli;

import io.streamrecon.pipeline.ReconcileOptions;
import io.streamrecon.pipeline.run.ReconcileRun;
import io.streamrecon.pipeline.run.ReplayRun;
import io.streamrecon.pipeline.run.ReplaySettings;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code streamrecon replay}: judges stored events again, without reading the sources ({@link
 * ReplayRun}), prints the counts and, per natural id, how the replay's final verdict compares with
 * the final verdict of the runs it re-judged, and exits with a code that says whether it judged
 * anything and whether its counts add up (see docs/replay.md).
 */
@Command(
    name = "replay",
    description =
        "Judge stored events again (from raw_events) under new rules: --runId=ID[,ID...],"
            + " --since=T --until=T, --naturalId=ID[,ID...]; --rules, --ignoreFields, --timeout,"
            + " --allowedLateness, --runner as for run.")
final class ReplayCommand implements Callable<Integer> {
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
   * Options of {@code run} that gate or export a run on its summary and metrics: a replay prints
   * its own report of what changed, not a run's summary, so they would be ignored there.
   */
  private static final Set<String> RUN_GATE_OPTIONS =
      Set.of("failOn", "summaryJson", "metricsTextFile");

  /** Options the replay reads itself; all others go to Beam as options of {@code run}. */
  private static final Set<String> SELECTION = Set.of("runId", "since", "until", "naturalId");

  @Parameters(arity = "0..*", description = "--warehouse=..., --runId=..., --rules=..., ...")
  List<String> options = new ArrayList<>();

  @Override
  public Integer call() {
    ReplaySettings r = parse(options);
    ReconcileRun.skipDirectRunnerChecks(r.options());
    ReplayRun.FinishedReplay finished = ReplayRun.run(r);
    System.out.print(finished.format());
    System.out.flush();
    if (finished.state() != PipelineResult.State.DONE) {
      System.err.println("streamrecon: replay ended in state " + finished.state());
      return StreamRecon.EXIT_FAILED;
    }
    if (finished.eventsRead() == 0) {
      System.err.println(
          "streamrecon: replay: no stored event matches the selection; nothing was judged");
      return StreamRecon.EXIT_USAGE;
    }
    return finished.addsUp() ? 0 : StreamRecon.EXIT_COUNTS;
  }

  /**
   * Checks a {@code replay} command line: the selection and {@code --replayId} are the replay's
   * own, the options of {@code run} that do not apply to stored events are refused, and the rest
   * are Beam options of {@code run}.
   *
   * @throws IllegalArgumentException whose message names the option
   */
  static ReplaySettings parse(List<String> args) {
    List<String> beam = new ArrayList<>();
    Map<String, String> mine = new HashMap<>();
    Map<String, String> given = new TreeMap<>();
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
    replayId = ReplaySettings.replayId(replayId);
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
    return ReplaySettings.of(
        options,
        replayId,
        mine.get("runId"),
        mine.get("naturalId"),
        mine.get("since"),
        mine.get("until"),
        given);
  }
}
