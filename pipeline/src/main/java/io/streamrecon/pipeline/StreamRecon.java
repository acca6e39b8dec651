package io.streamrecon.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamrecon.deltalake.DeltaLakeIO;
import io.streamrecon.deltalake.DeltaLakeLookup;
import io.streamrecon.deltalake.DeltaLakeTables;
import io.streamrecon.json.ComparisonRules;
import io.streamrecon.json.JsonDiff;
import io.streamrecon.model.DeltaRecord;
import io.streamrecon.model.Difference;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The {@code streamrecon} command line: {@code run [options]} runs a reconciliation (options are
 * Beam pipeline options, see {@link ReconcileOptions}); {@code show deltas|dead-letters|late-events}
 * prints a table as JSON Lines; {@code explain --naturalId=X} prints the stored payloads of a key,
 * their pointers and the diff; {@code report [--out=report.html]} writes a self-contained HTML
 * report ({@link io.streamrecon.pipeline.report.ReportCommand}); {@code compact} and {@code
 * vacuum} maintain the tables (see {@link MaintenanceCommands}). Errors are one line on standard
 * error and a non-zero exit.
 */
@Command(
    name = "streamrecon",
    mixinStandardHelpOptions = true,
    description = "Reconciles a source and a target event stream into Delta Lake tables.",
    subcommands = {
      StreamRecon.Run.class,
      StreamRecon.Show.class,
      StreamRecon.Explain.class,
      StreamRecon.Samples.class,
      ReplayCommand.class,
      io.streamrecon.pipeline.report.ReportCommand.class,
      MaintenanceCommands.Compact.class,
      MaintenanceCommands.Vacuum.class
    })
public final class StreamRecon implements Callable<Integer> {
  /** Exit code for bad usage or options. */
  public static final int EXIT_USAGE = 2;
  /** Exit code for a run that failed. */
  public static final int EXIT_FAILED = 1;
  /** Exit code for a run whose counts do not add up. */
  public static final int EXIT_COUNTS = 3;

  /** Entry point; exits with the command's code. */
  public static void main(String[] args) {
    System.exit(execute(args));
  }

  /** Runs a command line and returns its exit code (for tests). */
  public static int execute(String... args) {
    args = applyVerbosity(args);
    CommandLine cli = new CommandLine(new StreamRecon());
    cli.setUnmatchedOptionsArePositionalParams(true);
    cli.getSubcommands().get("run").setUnmatchedOptionsArePositionalParams(true);
    cli.getSubcommands().get("replay").setUnmatchedOptionsArePositionalParams(true);
    cli.setExecutionExceptionHandler(
        (e, cmd, parsed) -> {
          Throwable root = rootCause(e);
          if (!(e instanceof IllegalArgumentException)) {
            // Not a usage error: whoever runs the job needs the whole trace to report or fix it.
            LoggerFactory.getLogger(StreamRecon.class).error("the command failed", e);
          }
          cmd.getErr().println("streamrecon: " + oneLine(root));
          return e instanceof IllegalArgumentException ? EXIT_USAGE : EXIT_FAILED;
        });
    cli.setParameterExceptionHandler(
        (e, a) -> {
          e.getCommandLine().getErr().println("streamrecon: " + e.getMessage());
          return EXIT_USAGE;
        });
    return cli.execute(args);
  }

  /**
   * Removes {@code --verbose} (valid before or after the command) and, when present, turns on
   * INFO for every library on slf4j-simple (the runnable jar's back end; its file says WARN). On
   * a Spark or Flink distribution the runners' main classes decide the log4j 2 levels.
   */
  static String[] applyVerbosity(String[] args) {
    List<String> kept = new ArrayList<>();
    boolean verbose = false;
    for (String a : args) {
      if (a.equals("--verbose") || a.equals("--verbose=true")) {
        verbose = true;
      } else if (!a.equals("--verbose=false")) {
        kept.add(a);
      }
    }
    if (verbose) {
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "info");
    }
    return kept.toArray(new String[0]);
  }

  @Override
  public Integer call() {
    new CommandLine(this).usage(System.err);
    return EXIT_USAGE;
  }

  /** {@code run}: Beam options are passed on untouched. */
  @Command(
      name = "run",
      description = "Run a reconciliation; options are --name=value (see --help=ReconcileOptions).")
  static final class Run implements Callable<Integer> {
    @Parameters(arity = "0..*", description = "--source=..., --target=..., --runner=..., ...")
    List<String> options = new ArrayList<>();

    @Override
    public Integer call() {
      ReconcileOptions opts;
      try {
        opts =
            PipelineOptionsFactory.fromArgs(options.toArray(new String[0]))
                .withValidation()
                .as(ReconcileOptions.class);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(explainOptionError(e.getMessage()), e);
      }
      ReconcilePipeline.skipDirectRunnerChecks(opts);
      ReconcilePipeline.Outcome outcome = ReconcilePipeline.run(opts);
      PipelineResult.State state = outcome.result().getState();
      System.out.print(outcome.summary().format());
      System.out.flush();
      if (state != PipelineResult.State.DONE) {
        System.err.println("streamrecon: run ended in state " + state);
        return EXIT_FAILED;
      }
      return outcome.summary().addsUp() ? 0 : EXIT_COUNTS;
    }
  }

  /** {@code show}: one JSON object per row. */
  @Command(name = "show", description = "Print a table as JSON Lines.")
  static final class Show implements Callable<Integer> {
    @Parameters(index = "0", description = "deltas, dead-letters or late-events")
    String table;

    @Option(names = "--warehouse", defaultValue = "./warehouse", description = "Warehouse dir")
    String warehouse;

    @Override
    public Integer call() {
      String name;
      switch (table) {
        case "deltas" -> name = DeltaLakeIO.DELTAS;
        case "dead-letters" -> name = DeltaLakeIO.DEAD_LETTERS;
        case "late-events" -> name = DeltaLakeIO.LATE_EVENTS;
        default -> throw new IllegalArgumentException(
            "show: unknown table '" + table + "': use deltas, dead-letters or late-events");
      }
      // A run writes late_events or dead_letters only when it has some: an absent table is empty.
      if (!tableExists(warehouse, DeltaLakeIO.RAW_EVENTS)) {
        requireTable(warehouse, name);
      }
      PrintWriter out = stdout();
      switch (name) {
        case DeltaLakeIO.DELTAS -> DeltaLakeTables.readDeltas(warehouse)
            .forEach(d -> out.println(RowJson.delta(d)));
        case DeltaLakeIO.DEAD_LETTERS -> DeltaLakeTables.readDeadLetters(warehouse)
            .forEach(d -> out.println(RowJson.deadLetter(d)));
        default -> DeltaLakeTables.readLateEvents(warehouse)
            .forEach(l -> out.println(RowJson.lateEvent(l)));
      }
      out.flush();
      return 0;
    }
  }

  /** {@code explain}: everything stored about one natural id. */
  @Command(
      name = "explain",
      description = "Print the stored payloads of a natural id, their pointers, and the diff.")
  static final class Explain implements Callable<Integer> {
    @Option(names = "--naturalId", required = true, description = "The natural id")
    String naturalId;

    @Option(names = "--warehouse", defaultValue = "./warehouse", description = "Warehouse dir")
    String warehouse;

    @Option(
        names = "--rules",
        description =
            "Comparison rules file; default: the rules the latest delta record names, as stored"
                + " in the warehouse by the run")
    String rulesFile;

    @Option(names = "--ignoreFields", defaultValue = "", description = "As for the run")
    String ignoreFields;

    @Override
    public Integer call() {
      requireTable(warehouse, DeltaLakeIO.RAW_EVENTS);
      ComparisonRules given = rulesFile == null ? null : ComparisonRules.fromFile(rulesFile);
      PrintWriter out = stdout();
      // Lookups skip files and pages by natural_id statistics: fast on large tables.
      List<Map<String, Object>> rows = DeltaLakeLookup.findRawEvents(warehouse, naturalId);
      List<DeltaRecord> deltas = new ArrayList<>();
      if (tableExists(warehouse, DeltaLakeIO.DELTAS)) {
        deltas.addAll(DeltaLakeLookup.findDeltas(warehouse, naturalId));
      }
      if (rows.isEmpty() && deltas.isEmpty()) {
        throw new IllegalArgumentException(
            "explain: no stored event has natural id '" + naturalId + "' in " + warehouse);
      }
      out.println(
          "natural id "
              + naturalId
              + ": "
              + rows.size()
              + " stored event(s); raw_events is at table version "
              + DeltaLakeTables.tableVersion(warehouse, DeltaLakeIO.RAW_EVENTS)
              + ", deltas at "
              + DeltaLakeTables.tableVersion(warehouse, DeltaLakeIO.DELTAS));
      JsonNode latestSource = null;
      JsonNode latestTarget = null;
      for (Map<String, Object> row : Explained.sorted(rows)) {
        Explained e = Explained.of(row);
        out.println();
        out.println(e.header());
        out.println(e.prettyPayload());
        if ("SOURCE".equals(e.side())) {
          latestSource = e.payload();
        } else if ("TARGET".equals(e.side())) {
          latestTarget = e.payload();
        }
      }
      deltas.sort(Comparator.comparing(DeltaRecord::detectedAt));
      out.println();
      out.println("delta records: " + deltas.size());
      for (DeltaRecord d : deltas) {
        ObjectNode o = RowJson.delta(d);
        out.println(o.toPrettyString());
      }
      // A pointer whose row retention removed is reported, not an error (README, retention).
      for (String expired : Explained.expiredPointers(deltas, rows)) {
        out.println(expired);
      }
      out.println();
      String recordedRulesId = deltas.isEmpty() ? null : deltas.get(deltas.size() - 1).rulesId();
      ComparisonRules rules = given;
      String rulesOrigin = "--rules=" + rulesFile;
      if (rules == null && recordedRulesId != null) {
        rules = RulesArchive.load(warehouse, recordedRulesId);
        rulesOrigin = "stored in the warehouse by the run";
      }
      if (rules == null) {
        out.println(
            recordedRulesId == null
                ? "comparison rules: none named by a delta record of this id (a MATCH is recorded"
                    + " only with --emitMatches); pass --rules=FILE to diff under rules"
                : "comparison rules: " + recordedRulesId + " (not stored in this warehouse;"
                    + " pass --rules=FILE to see them)");
        rules = ComparisonRules.none();
      } else {
        out.println("comparison rules " + rules.id() + " (" + rulesOrigin + "):");
        for (String line : rules.describe()) {
          out.println("  " + line);
        }
        if (recordedRulesId != null && !recordedRulesId.equals(rules.id())) {
          out.println(
              "  warning: the latest delta record was judged by other rules: " + recordedRulesId);
        }
      }
      if (!ignoreFields.isBlank()) {
        rules = rules.withIgnoreFields(List.of(ignoreFields.split(",")));
      }
      if (latestSource == null && latestTarget == null) {
        out.println("diff: the raw events of this natural id have expired");
      } else if (latestSource != null && latestTarget != null) {
        JsonDiff.Result result = JsonDiff.diff(latestSource, latestTarget, rules);
        List<Difference> diff = result.differences();
        out.println(
            "diff of the latest source and target payloads"
                + (rules.isEmpty() ? "" : " under these rules")
                + ": "
                + (diff.isEmpty() ? "none, they are equal" : diff.size() + " difference(s)")
                + (result.withinTolerance() > 0
                    ? " (" + result.withinTolerance() + " number(s) equal within tolerance)"
                    : ""));
        for (Difference d : diff) {
          out.println("  " + RowJson.difference(d));
        }
      } else {
        out.println(
            "diff: only the " + (latestSource != null ? "source" : "target") + " side was stored");
      }
      out.flush();
      return 0;
    }
  }

  /** {@code samples}: regenerates the bundled sample streams. */
  @Command(name = "samples", description = "Write deterministic sample streams (source/target).")
  static final class Samples implements Callable<Integer> {
    @Option(names = "--out", defaultValue = "samples", description = "Output directory")
    String out;

    @Option(names = "--seed", defaultValue = "42", description = "Random seed")
    long seed;

    @Option(names = "--ids", defaultValue = "3000", description = "Number of natural ids")
    int ids;

    @Option(
        names = "--rules",
        description =
            "Write the comparison-rules migration sample instead (legacy.jsonl, replacement.jsonl)")
    boolean rules;

    @Override
    public Integer call() throws java.io.IOException {
      if (rules) {
        RulesSample r = RulesSample.generate(seed, ids);
        r.writeTo(java.nio.file.Path.of(out));
        System.out.printf(
            "wrote %s/legacy.jsonl and %s/replacement.jsonl (%d orders each)%n",
            out, out, r.legacyLines().size());
        return 0;
      }
      SampleGenerator g = SampleGenerator.generate(seed, ids);
      g.writeTo(java.nio.file.Path.of(out));
      System.out.printf(
          "wrote %s/source.jsonl (%d lines) and %s/target.jsonl (%d lines)%n",
          out, g.sourceLines().size(), out, g.targetLines().size());
      return 0;
    }
  }

  static void requireTable(String warehouse, String table) {
    if (!tableExists(warehouse, table)) {
      throw new IllegalArgumentException(
          "no " + table + " table under --warehouse=" + warehouse + " (has a run written there?)");
    }
  }

  /** A Delta Lake table exists where its transaction log does. */
  static boolean tableExists(String warehouse, String table) {
    if (warehouse.matches("^[a-zA-Z][a-zA-Z0-9+.-]*://.*") && !warehouse.startsWith("file:")) {
      return true; // a remote store: the reader finds out, and reads a missing table as empty
    }
    String base = warehouse.startsWith("file:") ? java.net.URI.create(warehouse).getPath() : warehouse;
    return java.nio.file.Files.isDirectory(java.nio.file.Path.of(base, table, "_delta_log"));
  }

  private static PrintWriter stdout() {
    return new PrintWriter(new java.io.OutputStreamWriter(System.out, StandardCharsets.UTF_8));
  }

  /** Beam's messages for unknown options name its interface; say it the user's way. */
  static String explainOptionError(String message) {
    if (message == null) {
      return "invalid options";
    }
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("missing a property named '([^']+)'").matcher(message);
    if (m.find()) {
      return "unknown option --" + m.group(1) + " (list them with: run --help=ReconcileOptions)";
    }
    return oneLine(new IllegalArgumentException(message));
  }

  /** The first option error in the chain (its message is for the user), else the root cause. */
  static Throwable rootCause(Throwable e) {
    Throwable t = e;
    while (!(t instanceof IllegalArgumentException && t.getMessage() != null)
        && t.getCause() != null
        && t.getCause() != t) {
      t = t.getCause();
    }
    return t;
  }

  static String oneLine(Throwable t) {
    String m = t.getMessage();
    if (m == null || m.isBlank()) {
      m = t.getClass().getSimpleName();
    }
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }
}
