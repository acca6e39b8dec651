package io.streamrecon.pipeline.cli;

import io.streamrecon.deltalake.DeltaLakeTables;
import io.streamrecon.deltalake.WarehouseTables;
import io.streamrecon.pipeline.FailOnRules;
import io.streamrecon.pipeline.ReconcileOptions;
import io.streamrecon.pipeline.ReconcileSettings;
import io.streamrecon.pipeline.metrics.PrometheusTextFile;
import io.streamrecon.pipeline.output.RowJson;
import io.streamrecon.pipeline.output.TerminalText;
import io.streamrecon.pipeline.run.ReconcileRun;
import io.streamrecon.pipeline.run.Summary;
import io.streamrecon.pipeline.run.SummaryJson;
import io.streamrecon.pipeline.samples.RulesSample;
import io.streamrecon.pipeline.samples.SampleGenerator;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The {@code streamrecon} command line: {@code run [options]} runs a reconciliation (options are
 * Beam pipeline options, see {@link ReconcileOptions}); {@code show
 * deltas|dead-letters|late-events} prints a table as JSON Lines; {@code explain --naturalId=X}
 * prints the stored payloads of a key, their pointers and the diff; {@code report
 * [--out=report.html]} writes a self-contained HTML report ({@link ReportCommand}); {@code compact}
 * and {@code vacuum} maintain the tables and {@code forget} erases natural ids (see {@link
 * MaintenanceCommands}). Errors are one line on standard error and a non-zero exit.
 */
@Command(
    name = "streamrecon",
    mixinStandardHelpOptions = true,
    description = "Reconciles a source and a target event stream into Delta Lake tables.",
    subcommands = {
      StreamRecon.Run.class,
      StreamRecon.Show.class,
      ExplainCommand.class,
      StreamRecon.Samples.class,
      ReplayCommand.class,
      ReportCommand.class,
      MaintenanceCommands.Compact.class,
      MaintenanceCommands.Vacuum.class,
      MaintenanceCommands.Forget.class,
      OptionsCommand.class
    })
public final class StreamRecon implements Callable<Integer> {
  /** Exit code for bad usage or options. */
  public static final int EXIT_USAGE = 2;

  /** Exit code for a run that failed. */
  public static final int EXIT_FAILED = 1;

  /**
   * Exit code for a run whose counts do not add up, and for a {@code forget} that found some id in
   * no table: the command finished, but did not do all it was asked.
   */
  public static final int EXIT_COUNTS = 3;

  /**
   * Exit code for a run that finished, with counts that add up, over a threshold of {@code
   * --failOn}: the data differ more than the caller accepts ({@link #EXIT_COUNTS} comes first).
   */
  public static final int EXIT_FAIL_ON = 4;

  /** Whether {@code --verbose} was given: library logs at INFO and a failure's stack trace. */
  private static boolean verbose;

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
          if (verbose && !(e instanceof IllegalArgumentException)) {
            // Asked for: the whole trace, to report or fix a failure that is not a usage error.
            LoggerFactory.getLogger(StreamRecon.class).error("the command failed", e);
          }
          // The line may quote a value or a file name from the data.
          cmd.getErr().println("streamrecon: " + TerminalText.escape(errorLine(e)));
          return e instanceof IllegalArgumentException ? EXIT_USAGE : EXIT_FAILED;
        });
    cli.setParameterExceptionHandler(
        (e, a) -> {
          e.getCommandLine().getErr().println("streamrecon: " + TerminalText.escape(errorLine(e)));
          return EXIT_USAGE;
        });
    return cli.execute(args);
  }

  /**
   * Removes {@code --verbose} (valid before or after the command) and, when present, logs the stack
   * trace of a failure and turns on INFO for every library on slf4j-simple (the runnable jar's back
   * end; its file says WARN). On a Spark or Flink distribution the runners' main classes decide the
   * log4j 2 levels.
   */
  static String[] applyVerbosity(String[] args) {
    List<String> kept = new ArrayList<>();
    verbose = false;
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
      List<String> args = withBundledSamples(options);
      refuseRepeatedOptions(args);
      ReconcileOptions opts;
      try {
        opts =
            PipelineOptionsFactory.fromArgs(args.toArray(new String[0]))
                .withValidation()
                .as(ReconcileOptions.class);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(explainOptionError(e.getMessage(), args), e);
      }
      ReconcileRun.skipDirectRunnerChecks(opts);
      // A bad --failOn or --summaryJson ends here, before anything runs.
      ReconcileSettings settings = ReconcileSettings.from(opts);
      Path summaryFile = settings.summaryJson();
      if (summaryFile != null) {
        // A file left by an earlier run must not pass for this run's if this one fails.
        deleteSummaryFile(summaryFile);
      }
      Path metricsFile = PrometheusTextFile.parse(opts.getMetricsTextFile());
      ReconcileRun.FinishedRun finished = ReconcileRun.run(opts, settings);
      PipelineResult.State state = finished.result().getState();
      Summary summary = finished.summary();
      System.out.print(summary.format());
      System.out.flush();
      List<FailOnRules.Breach> breached = settings.failOn().breaches(summary);
      for (FailOnRules.Breach b : breached) {
        System.err.println("streamrecon: " + b.line());
      }
      if (state != PipelineResult.State.DONE) {
        System.err.println("streamrecon: run ended in state " + state);
      }
      int code = exitCode(state, summary, breached);
      if (summaryFile != null) {
        SummaryJson json = SummaryJson.of(settings.runId(), state.name(), code, summary, breached);
        try {
          json.writeTo(summaryFile);
        } catch (IOException | RuntimeException e) {
          throw new Failure(
              "cannot write --summaryJson=" + summaryFile + " (" + e.getMessage() + ")", e);
        }
      }
      if (metricsFile != null) {
        try {
          PrometheusTextFile.write(metricsFile, finished.result().metrics().allMetrics());
        } catch (IOException | RuntimeException e) {
          throw new Failure(
              "cannot write --metricsTextFile=" + metricsFile + " (" + e.getMessage() + ")", e);
        }
      }
      return code;
    }

    private static void deleteSummaryFile(Path file) {
      try {
        Files.deleteIfExists(file);
      } catch (IOException e) {
        throw new IllegalArgumentException(
            "--summaryJson=" + file + ": cannot replace the file (" + e.getMessage() + ")", e);
      }
    }
  }

  /**
   * A run's exit code: a failed run first, then counts that do not add up (the verdicts cannot be
   * trusted, so a threshold over them says little), then a breached {@code --failOn} rule.
   */
  static int exitCode(
      PipelineResult.State state, Summary summary, List<FailOnRules.Breach> breached) {
    if (state != PipelineResult.State.DONE) {
      return EXIT_FAILED;
    }
    if (!summary.addsUp()) {
      return EXIT_COUNTS;
    }
    return breached.isEmpty() ? 0 : EXIT_FAIL_ON;
  }

  /**
   * The system property naming the directory of the bundled samples ({@code source.jsonl}, {@code
   * target.jsonl}); the launcher sets it.
   */
  static final String SAMPLES_PROPERTY = "streamrecon.samples";

  /**
   * A run given neither {@code --source} nor {@code --target} reconciles the bundled samples, under
   * whatever other options it was given (runner, warehouse, ...). Without the samples directory (no
   * launcher) the options are left as they are, and the missing {@code --source} is reported.
   */
  static List<String> withBundledSamples(List<String> options) {
    String samples = System.getProperty(SAMPLES_PROPERTY);
    boolean namesInput =
        options.stream()
            .anyMatch(
                o ->
                    o.equals("--source")
                        || o.startsWith("--source=")
                        || o.equals("--target")
                        || o.startsWith("--target="));
    if (namesInput || samples == null || samples.isBlank()) {
      return options;
    }
    java.nio.file.Path dir = java.nio.file.Path.of(samples);
    List<String> all = new ArrayList<>(options);
    all.add("--source=" + dir.resolve("source.jsonl"));
    all.add("--target=" + dir.resolve("target.jsonl"));
    System.err.println(
        "streamrecon: no --source or --target given: reconciling the bundled samples in " + dir);
    return all;
  }

  /** {@code show}: one JSON object per row. */
  @Command(name = "show", description = "Print a table as JSON Lines.")
  static final class Show implements Callable<Integer> {
    @Parameters(index = "0", description = "deltas, dead-letters or late-events")
    String table;

    @Mixin WarehouseOption warehouse;

    @Override
    public Integer call() {
      String name;
      switch (table) {
        case "deltas" -> name = WarehouseTables.DELTAS;
        case "dead-letters" -> name = WarehouseTables.DEAD_LETTERS;
        case "late-events" -> name = WarehouseTables.LATE_EVENTS;
        default ->
            throw new IllegalArgumentException(
                "show: unknown table '" + table + "': use deltas, dead-letters or late-events");
      }
      // A run writes late_events or dead_letters only when it has some: an absent table is empty.
      if (!warehouse.get().tableExists(WarehouseTables.RAW_EVENTS)) {
        warehouse.requireTable(name);
      }
      PrintWriter out = stdout();
      switch (name) {
        case WarehouseTables.DELTAS ->
            DeltaLakeTables.readDeltas(warehouse.location())
                .forEach(d -> out.println(RowJson.delta(d)));
        case WarehouseTables.DEAD_LETTERS ->
            DeltaLakeTables.readDeadLetters(warehouse.location())
                .forEach(d -> out.println(RowJson.deadLetter(d)));
        default ->
            DeltaLakeTables.readLateEvents(warehouse.location())
                .forEach(l -> out.println(RowJson.lateEvent(l)));
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

  /** Standard output in UTF-8 with data made {@linkplain TerminalText safe for a terminal}. */
  static PrintWriter stdout() {
    return TerminalText.writer(System.out);
  }

  /**
   * Refuses an option given more than once, naming it only. Beam would take the last value of some
   * and, for the others, fail with a message that quotes every value, a password among them.
   * Options of a list type (Beam's {@code --experiments}, ...) may repeat.
   *
   * @throws IllegalArgumentException naming the first repeated option
   */
  static void refuseRepeatedOptions(List<String> args) {
    java.util.Set<String> seen = new java.util.HashSet<>();
    for (String a : args) {
      if (!a.startsWith("--") || a.length() == 2) {
        continue;
      }
      int eq = a.indexOf('=');
      String name = eq < 0 ? a.substring(2) : a.substring(2, eq);
      if (!seen.add(name) && !isListOption(name)) {
        throw new IllegalArgumentException(
            "--"
                + name
                + " is given more than once: give it once"
                + (name.equals("kafkaProperties") ? ", with the properties comma-separated" : ""));
      }
    }
  }

  /** Whether a registered Beam option named {@code name} takes a list (array or collection). */
  private static boolean isListOption(String name) {
    Class<?> type = optionType(name);
    return type != null && (type.isArray() || java.util.Collection.class.isAssignableFrom(type));
  }

  /** The type of the registered Beam option named {@code name}, or null if there is none. */
  private static Class<?> optionType(String name) {
    if (name.isEmpty()) {
      return null;
    }
    String getter = "get" + Character.toUpperCase(name.charAt(0)) + name.substring(1);
    for (Class<?> options : PipelineOptionsFactory.getRegisteredOptions()) {
      for (java.lang.reflect.Method m : options.getMethods()) {
        if (m.getName().equals(getter) && m.getParameterCount() == 0) {
          return m.getReturnType();
        }
      }
    }
    return null;
  }

  /**
   * Beam refuses an empty value ({@code --maxEventBytes=}) of an option that is not text without
   * naming the option: name the first such option of {@code args}.
   */
  static String explainOptionError(String message, List<String> args) {
    if (message != null && message.startsWith("Empty argument value is only allowed for")) {
      for (String a : args) {
        if (a.startsWith("--") && a.endsWith("=") && a.indexOf('=') == a.length() - 1) {
          String name = a.substring(2, a.length() - 1);
          Class<?> type = optionType(name);
          if (type != null && type != String.class && !isListOption(name)) {
            return "--" + name + "= has no value: give " + valueOf(type);
          }
        }
      }
    }
    return explainOptionError(message);
  }

  /** What a value of an option's type is, in words. */
  private static String valueOf(Class<?> type) {
    if (type == boolean.class || type == Boolean.class) {
      return "true or false";
    }
    if (type == int.class || type == long.class || type == Integer.class || type == Long.class) {
      return "a whole number";
    }
    if (type.isEnum()) {
      return "one of " + java.util.Arrays.toString(type.getEnumConstants());
    }
    return "a value of type " + type.getSimpleName();
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
    return errorLine(new IllegalArgumentException(message));
  }

  /**
   * The one line printed for a failure: the message of the first option error or {@link Failure} in
   * the chain (written for the user), else of the root cause. A failure without a message of its
   * own is named by its type, followed by the first message found along its causes.
   */
  static String errorLine(Throwable e) {
    Throwable t = rootCause(e);
    String m = t.getMessage();
    if (m != null && !m.lines().findFirst().orElse("").isBlank()) {
      return m.lines().findFirst().orElseThrow().strip();
    }
    for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
      // Skip the message Java gives a wrapper made from its cause alone: the cause's toString().
      boolean wrapper = c.getCause() != null && c.getCause().toString().equals(c.getMessage());
      String line = wrapper ? null : firstNonBlankLine(c.getMessage());
      if (line != null) {
        return t.getClass().getSimpleName() + ": " + line;
      }
    }
    return t.getClass().getSimpleName();
  }

  private static String firstNonBlankLine(String message) {
    if (message == null) {
      return null;
    }
    return message.lines().map(String::strip).filter(l -> !l.isEmpty()).findFirst().orElse(null);
  }

  /** The first option error or {@link Failure} in the chain, else the root cause. */
  static Throwable rootCause(Throwable e) {
    Throwable t = e;
    while (!((t instanceof IllegalArgumentException || t instanceof Failure)
            && t.getMessage() != null)
        && t.getCause() != null
        && t.getCause() != t) {
      t = t.getCause();
    }
    return t;
  }

  /**
   * A failure whose message is the whole line for the user (what failed and why); exits with {@link
   * #EXIT_FAILED}.
   */
  static final class Failure extends RuntimeException {
    Failure(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
