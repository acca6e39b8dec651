package io.streamrecon.fuzz;

import io.streamrecon.deltalake.DeltaLakeTables;
import io.streamrecon.deltalake.WarehouseTables;
import io.streamrecon.pipeline.cli.StreamRecon;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;
import net.jqwik.api.statistics.Statistics;

/**
 * Feeds generated inputs, options, ids and rules files ({@link FuzzCases}) through the command
 * line, in process on the DirectRunner, one case directory each ({@code in/} the inputs, {@code
 * wh/} the warehouse, {@code outside/} files nothing may touch), and checks after every command:
 *
 * <ul>
 *   <li>nothing under {@code outside/} or {@code in/} changed, nothing was created in the case
 *       directory but the warehouse and the declared report, nor in the working directory;
 *   <li>a run that exits 0 prints "counts add up", and its tables agree: raw_events rows plus
 *       dead_letters rows equal the non-blank input lines, each equal to the summary's count;
 *   <li>no stack trace on stdout or stderr;
 *   <li>exit codes as README.md and docs/operations.md document them, and a refusal or failure is
 *       one {@code streamrecon:} line on stderr.
 * </ul>
 *
 * Fixed seed and {@value #TRIES} cases by default; {@code -Dstreamrecon.fuzz.tries=N} and {@code
 * -Dstreamrecon.fuzz.seed=S} run longer or elsewhere (README.md, "Development"). A failure prints
 * the seed, every command line and the input files, and keeps the case directory.
 */
class CliFuzzTest {
  /** Cases per `mvn verify`: under a minute on 2 cores (about 0.3 s a case). */
  static final int TRIES = 100;

  /** The fixed default seed. */
  static final String SEED = "20261204";

  /** The seed in effect, for failure messages. */
  private static volatile String seedInEffect = SEED;

  /** A stack frame line, or the JVM's report of an uncaught exception. */
  private static final Pattern STACK_TRACE =
      Pattern.compile("(?m)^\\s+at [\\w.$/<>]+\\(|Exception in thread|^Caused by: ");

  /** A log line of slf4j-simple as the command line configures it ("HH:mm:ss LEVEL Name - msg"). */
  private static final Pattern LOG_LINE =
      Pattern.compile("^\\d\\d:\\d\\d:\\d\\d (TRACE|DEBUG|INFO|WARN|ERROR) .*");

  private static final Pattern COUNTS_ADD_UP =
      Pattern.compile(
          "(?m)^counts add up: input (\\d+) = blank lines (\\d+) \\+ dead letters (\\d+) \\+ raw"
              + " events (\\d+);");

  @Provide
  Arbitrary<FuzzCase> cases() {
    return FuzzCases.cases();
  }

  @Property(tries = TRIES, seed = SEED)
  @AddLifecycleHook(TriesAndSeed.class)
  void everyCommandKeepsTheInvariants(@ForAll("cases") FuzzCase c) throws IOException {
    Path dir = Files.createTempDirectory("streamrecon-fuzz-");
    boolean passed = false;
    try {
      run(c, dir);
      passed = true;
    } finally {
      if (passed) {
        deleteTree(dir);
      }
    }
  }

  /** The result of one command: exit code and what it printed. */
  record CliRun(int code, String out, String err) {}

  private static void run(FuzzCase c, Path dir) throws IOException {
    Path in = Files.createDirectories(dir.resolve("in"));
    Files.write(in.resolve("source.jsonl"), c.source());
    Files.write(in.resolve("target.jsonl"), c.target());
    if (c.rules().isPresent()) {
      Files.write(in.resolve("rules.json"), c.rules().get());
    }
    Path outside = Files.createDirectories(dir.resolve("outside"));
    Files.writeString(outside.resolve("notes.txt"), "not the warehouse's\n");
    Files.createDirectories(outside.resolve("_rules"));
    Files.writeString(outside.resolve("_rules/keep.json"), "{}\n");
    Files.writeString(outside.resolve(FuzzCase.REPORT), "<html></html>\n");
    Map<String, String> outsideBefore = digests(outside);
    Map<String, String> inBefore = digests(in);
    Set<String> workingDirBefore = listing(Path.of("").toAbsolutePath());

    for (List<String> command : c.commands()) {
      String[] args = FuzzCase.resolve(command, dir);
      CliRun o = execute(args);
      Failure f = new Failure(c, dir, args, o);
      f.check(
          !STACK_TRACE.matcher(o.out()).find() && !STACK_TRACE.matcher(o.err()).find(),
          "a stack trace was printed");
      String name = command.get(0);
      // How far the cases got: a generator that only ever produces refusals tests little.
      Statistics.label("exit codes").collect(name, o.code());
      f.check(
          EXPECTED_CODES.contains(o.code()),
          "exit code "
              + o.code()
              + " is not one "
              + name
              + " may end with here "
              + EXPECTED_CODES
              + (o.code() == StreamRecon.EXIT_COUNTS ? ": counts do not add up" : ""));
      if (o.code() != 0) {
        checkOneErrorLine(f, o);
      }
      if (name.equals("run") && o.code() == 0) {
        checkCounts(f, c, dir, o);
      }
      f.check(
          outsideBefore.equals(digests(outside)),
          "outside/ changed: before " + outsideBefore + ", after " + digests(outside));
      f.check(
          inBefore.equals(digests(in)),
          "in/ changed: before " + inBefore + ", after " + digests(in));
      Set<String> created = listing(dir);
      created.removeAll(Set.of("in", "wh", "outside", FuzzCase.REPORT));
      f.check(created.isEmpty(), "created in the case directory: " + created);
      Set<String> workingDir = listing(Path.of("").toAbsolutePath());
      workingDir.removeAll(workingDirBefore);
      f.check(workingDir.isEmpty(), "created in the working directory: " + workingDir);
    }
  }

  /**
   * The exit codes every command may end with on these cases (README.md, "Exit codes"; forget:
   * docs/operations.md, "Erasure"): 0 or 2 (bad usage or options, a refused warehouse, a replay
   * that selects nothing). 1 (failed) and 3 (counts do not add up) are findings: nothing here fails
   * a healthy local disk, and with {@code --allowMissing} forget does not end with 3.
   */
  static final Set<Integer> EXPECTED_CODES = Set.of(0, StreamRecon.EXIT_USAGE);

  /**
   * A refusal or failure is one {@code streamrecon:} line; anything else on stderr is a log line.
   */
  private static void checkOneErrorLine(Failure f, CliRun o) {
    List<String> lines = o.err().lines().filter(l -> !l.isBlank()).toList();
    List<String> errors = lines.stream().filter(l -> !LOG_LINE.matcher(l).matches()).toList();
    f.check(
        errors.size() == 1 && errors.get(0).startsWith("streamrecon: "),
        "exit code "
            + o.code()
            + " must come with exactly one 'streamrecon: ' line on stderr, got "
            + errors.size()
            + " other than log lines");
  }

  /** The summary says the counts add up, and the tables hold what it counted. */
  private static void checkCounts(Failure f, FuzzCase c, Path dir, CliRun o) {
    Matcher m = COUNTS_ADD_UP.matcher(o.out());
    f.check(m.find(), "the run exited 0 without 'counts add up' in its summary");
    long input = Long.parseLong(m.group(1));
    long blank = Long.parseLong(m.group(2));
    long deadLetters = Long.parseLong(m.group(3));
    long raw = Long.parseLong(m.group(4));
    List<byte[]> lines = new ArrayList<>(FuzzCase.lines(c.source()));
    lines.addAll(FuzzCase.lines(c.target()));
    long expectedBlank = lines.stream().filter(l -> FuzzCase.isBlank(l, c.maxEventBytes())).count();
    f.check(input == lines.size(), "summary input " + input + " != input lines " + lines.size());
    f.check(
        blank == expectedBlank,
        "summary blank lines " + blank + " != blank input lines " + expectedBlank);
    Path wh = dir.resolve("wh");
    long rawRows = rows(wh, WarehouseTables.RAW_EVENTS);
    long deadLetterRows = rows(wh, WarehouseTables.DEAD_LETTERS);
    f.check(
        rawRows + deadLetterRows == lines.size() - expectedBlank,
        "raw_events rows "
            + rawRows
            + " + dead_letters rows "
            + deadLetterRows
            + " != non-blank input lines "
            + (lines.size() - expectedBlank));
    f.check(rawRows == raw, "raw_events rows " + rawRows + " != summary raw events " + raw);
    f.check(
        deadLetterRows == deadLetters,
        "dead_letters rows " + deadLetterRows + " != summary dead letters " + deadLetters);
  }

  /**
   * Rows of a table; an absent table (a run writes dead_letters only when it has some) has none.
   */
  private static long rows(Path wh, String table) {
    if (!Files.isDirectory(wh.resolve(table).resolve("_delta_log"))) {
      return 0;
    }
    return DeltaLakeTables.readRows(wh.toString(), table).size();
  }

  /** Runs one command line in process, capturing what it prints. */
  static CliRun execute(String[] args) {
    PrintStream oldOut = System.out;
    PrintStream oldErr = System.err;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    int code;
    try {
      code = StreamRecon.execute(args);
    } finally {
      System.out.flush();
      System.err.flush();
      System.setOut(oldOut);
      System.setErr(oldErr);
    }
    return new CliRun(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /** Failure messages that carry the whole case, so that it can be replayed by hand. */
  private record Failure(FuzzCase c, Path dir, String[] args, CliRun o) {
    void check(boolean ok, String what) {
      if (ok) {
        return;
      }
      StringBuilder b = new StringBuilder(what).append('\n');
      b.append("seed: ")
          .append(seedInEffect)
          .append(" (-Dstreamrecon.fuzz.seed=")
          .append(seedInEffect)
          .append(")\n");
      b.append("case directory (kept): ").append(dir).append('\n');
      if (args.length > 0) {
        b.append("command: streamrecon");
        for (String a : args) {
          b.append(' ').append(FuzzCase.quote(a));
        }
        b.append("\nexit code: ").append(o.code()).append('\n');
        b.append("stdout:\n")
            .append(abridged(o.out()))
            .append("stderr:\n")
            .append(abridged(o.err()));
      }
      b.append(c);
      throw new AssertionError(b.toString());
    }

    private static String abridged(String s) {
      return s.length() <= 6000
          ? s
          : s.substring(0, 6000) + "\n... (" + s.length() + " characters)\n";
    }
  }

  /** Every file and folder under {@code root}, relative, with the SHA-256 of each file. */
  static Map<String, String> digests(Path root) {
    Map<String, String> all = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : walk.toList()) {
        String name = root.relativize(p).toString();
        all.put(name, Files.isDirectory(p) ? "dir" : sha256(Files.readAllBytes(p)));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return all;
  }

  private static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Set<String> listing(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return new java.util.TreeSet<>(s.map(p -> p.getFileName().toString()).toList());
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  /**
   * Longer runs or another seed on demand: {@code -Dstreamrecon.fuzz.tries=N}, {@code
   * -Dstreamrecon.fuzz.seed=S} replace the property's fixed attributes before it runs.
   */
  static final class TriesAndSeed implements AroundPropertyHook {
    @Override
    public PropertyExecutionResult aroundProperty(
        PropertyLifecycleContext context, PropertyExecutor property) {
      String tries = System.getProperty("streamrecon.fuzz.tries", "");
      if (!tries.isBlank()) {
        context.attributes().setTries(Integer.parseInt(tries.strip()));
      }
      String seed = System.getProperty("streamrecon.fuzz.seed", "");
      if (!seed.isBlank()) {
        context.attributes().setSeed(seed.strip());
      }
      seedInEffect = context.attributes().seed().orElse("(random)");
      return property.execute();
    }

    /** Outermost, so that the attributes are set before the property starts generating. */
    @Override
    public int aroundPropertyProximity() {
      return -100;
    }
  }
}
