package io.streamrecon.bench;

import io.streamrecon.deltalake.ContainedPaths;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bin/bench run}: generates the data sets, runs every contender on each in a JVM of its own,
 * checks the verdicts against the generator's and each other, measures state size, lookup cost and
 * (optionally) profiles, and writes the report and chart. Exits 1 if any contender's verdicts
 * disagree.
 */
@Command(name = "run", description = "Runs the benchmark and writes the report.")
final class RunCommand implements Callable<Integer> {
  @Option(
      names = "--sizes",
      split = ",",
      defaultValue = "1000,10000,100000,1000000",
      description = "records per data set (about N events per side)")
  List<Integer> sizes;

  @Option(
      names = "--contenders",
      split = ",",
      defaultValue = "bare,direct,spark,peer",
      description =
          "bare, direct, spark, peer and (not by default) flink: the FlinkRunner [local] in a"
              + " JVM of its own, which needs the Flink jars built ("
              + FlinkContender.BUILD_COMMAND
              + ")")
  List<String> contenders;

  @Option(
      names = "--zipf-size",
      defaultValue = "100000",
      description = "records of the Zipf data set (0 = none)")
  int zipfSize;

  @Option(names = "--seed", defaultValue = "42")
  long seed;

  @Option(
      names = "--work",
      defaultValue = "bench/target/bench-work",
      description = "data sets, tables, logs")
  Path work;

  @Option(names = "--report", defaultValue = "bench/REPORT.md")
  Path report;

  @Option(names = "--chart", defaultValue = "bench/throughput.png")
  Path chart;

  @Option(names = "--xmx", defaultValue = "8g", description = "heap of each contender JVM")
  String xmx;

  @Option(
      names = "--run-timeout",
      defaultValue = "PT12M",
      description = "a contender run longer than this is stopped")
  Duration runTimeout;

  @Option(
      names = "--largest-timeout",
      defaultValue = "PT15M",
      description = "time limit of a run on the largest uniform size")
  Duration largestTimeout;

  @Option(
      names = "--profile",
      split = ",",
      defaultValue = "bare,direct,spark",
      description = "contenders to profile with JFR on the profile size (empty = none)")
  List<String> profile;

  @Option(
      names = "--profile-under",
      defaultValue = "PT5M",
      description = "profile each contender on the largest uniform set it ran in less than this")
  Duration profileUnder;

  @Option(
      names = "--lookup-size",
      defaultValue = "100000",
      description = "measure lookup cost on the SparkRunner run's tables of this uniform set")
  int lookupSize;

  @Option(
      names = "--reuse",
      defaultValue = "false",
      description =
          "reuse results and JFR recordings already in --work instead of running again"
              + " (to rebuild the report)")
  boolean reuse;

  @Option(
      names = "--repeats",
      defaultValue = "3",
      description = "runs of a contender on a data set when its first run is short (median kept)")
  int repeats;

  @Option(
      names = "--repeat-under",
      defaultValue = "PT2M",
      description = "a first run shorter than this is repeated (--repeats)")
  Duration repeatUnder;

  @Option(
      names = "--skip-on-slow",
      defaultValue = "true",
      description = "skip a contender at larger sizes once one of its runs timed out")
  boolean skipOnSlow;

  private final List<Row> rows = new ArrayList<>();
  private final List<String> notes = new ArrayList<>();

  /**
   * One contender on one data set: its result (the median run by wall time where it was repeated),
   * or why there is none; the wall times of all its runs, and the 1-minute load average at the end
   * of each.
   */
  record Row(
      String dataSet,
      String contender,
      RunResult result,
      String failure,
      Expected expected,
      List<Double> walls,
      List<Double> loads) {
    Row(String dataSet, String contender, RunResult result, String failure, Expected expected) {
      this(
          dataSet,
          contender,
          result,
          failure,
          expected,
          result == null ? List.of() : List.of(result.wallSeconds()),
          List.of(load1()));
    }

    boolean agrees() {
      return result != null && expectedCounts().equals(result.counts());
    }

    VerdictCounts expectedCounts() {
      return result != null && result.mode().equals("batch")
          ? expected.batch()
          : expected.streaming();
    }
  }

  @Override
  public Integer call() throws Exception {
    if (contenders.contains("flink")) {
      // Before any data set is generated or any other contender runs.
      String absent = FlinkContender.missing(Path.of("").toAbsolutePath());
      if (absent != null) {
        System.err.println(absent);
        return 1;
      }
    }
    Files.createDirectories(work);
    String started =
        ZonedDateTime.now(ZoneOffset.UTC)
            .format(DateTimeFormatter.ISO_LOCAL_DATE_TIME)
            .substring(0, 16);
    // Smaller sets first, the Zipf set before any larger uniform one, the largest last: a slow
    // contender's time-out at the largest size then costs nothing else.
    List<Integer> ordered = new ArrayList<>(sizes);
    ordered.sort(null);
    int largest = ordered.get(ordered.size() - 1);
    List<Path> sets = new ArrayList<>();
    boolean zipfDone = zipfSize <= 0;
    for (int n : ordered) {
      if (!zipfDone && zipfSize < n) {
        sets.add(
            dataSet("z" + zipfSize, base(zipfSize).withSkew(GeneratorConfig.Skew.ZIPF, 1.1, 0)));
        zipfDone = true;
      }
      sets.add(dataSet("u" + n, base(n)));
      if (!zipfDone && zipfSize == n) {
        sets.add(
            dataSet("z" + zipfSize, base(zipfSize).withSkew(GeneratorConfig.Skew.ZIPF, 1.1, 0)));
        zipfDone = true;
      }
    }
    if (!zipfDone) {
      sets.add(dataSet("z" + zipfSize, base(zipfSize).withSkew(GeneratorConfig.Skew.ZIPF, 1.1, 0)));
    }
    Map<String, Long> timedOutAt = new LinkedHashMap<>();
    for (Path set : sets) {
      Expected e = Expected.read(set.resolve(Generator.EXPECTED));
      Duration limit =
          ordered.size() > 1
                  && e.records() == largest
                  && e.config().skew() == GeneratorConfig.Skew.UNIFORM
              ? largestTimeout
              : runTimeout;
      for (String c : contenders) {
        Long at = timedOutAt.get(c);
        if (skipOnSlow && at != null && e.records() > at) {
          rows.add(
              new Row(
                  set.getFileName().toString(),
                  c,
                  null,
                  "skipped: its run on " + at + " records did not finish in time",
                  e));
          continue;
        }
        Row row = runContender(set, c, e, null, limit);
        if (row.result() != null
            && repeats > 1
            && row.result().wallSeconds() < repeatUnder.toSeconds()) {
          row = median(row, set, c, e, limit);
        }
        if (row.failure() != null && row.failure().startsWith("timed out")) {
          timedOutAt.put(c, e.records());
        }
        rows.add(row);
        System.out.println(describe(row));
      }
    }
    Map<String, JfrTop> profiles = new LinkedHashMap<>();
    for (String c : profile) {
      if (c.isBlank()) {
        continue;
      }
      Row best = null;
      for (Row r : rows) {
        if (r.contender().equals(c)
            && r.dataSet().startsWith("u")
            && r.result() != null
            && r.result().wallSeconds() < profileUnder.toSeconds()
            && (best == null || r.result().records() > best.result().records())) {
          best = r;
        }
      }
      if (best == null) {
        notes.add(
            "No profile of "
                + c
                + ": none of its runs finished in "
                + profileUnder.toMinutes()
                + " min.");
        continue;
      }
      Path set = work.resolve("data").resolve(best.dataSet());
      Path jfr = work.resolve("profile-" + c + "-" + best.dataSet() + ".jfr");
      if (!reuse) {
        Files.deleteIfExists(jfr);
      }
      Row r = runContender(set, c, best.expected(), jfr, runTimeout);
      if (Files.exists(jfr)) {
        profiles.put(c + " on " + best.dataSet(), JfrTop.of(jfr));
      } else {
        notes.add("Profile of " + c + " failed: " + r.failure());
      }
    }
    StateSize state = StateSize.measure(sets.get(Math.min(1, sets.size() - 1)), 20_000);
    LookupCost lookup = null;
    Path lookupWarehouse = work.resolve("runs/u" + lookupSize + "-spark/work/warehouse");
    if (Files.isDirectory(lookupWarehouse)) {
      try {
        lookup = LookupCost.measure(lookupWarehouse, 2000, 100);
      } catch (Exception ex) {
        notes.add("Lookup cost could not be measured: " + ex);
      }
    } else {
      notes.add("Lookup cost not measured: no SparkRunner warehouse for u" + lookupSize + ".");
    }
    Chart.write(chart, rows);
    ReportWriter writer =
        new ReportWriter(rows, profiles, state, lookup, notes, started, commandLine(), xmx);
    writer.lookupSet = String.valueOf(lookupSize);
    writer.write(report);
    boolean ok = rows.stream().allMatch(r -> r.result() == null || r.agrees());
    boolean anyRan = rows.stream().anyMatch(r -> r.result() != null);
    System.out.println("report: " + report + ", chart: " + chart);
    if (!ok) {
      System.out.println("FAILED: verdicts disagree (see report)");
    }
    return ok && anyRan ? 0 : 1;
  }

  /**
   * Runs a short run {@code --repeats - 1} more times and keeps the median by wall time: on a
   * shared 2-core machine one run says little. A repeat that fails makes the row fail.
   */
  private Row median(Row first, Path set, String contender, Expected e, Duration limit)
      throws IOException, InterruptedException {
    List<Row> runs = new ArrayList<>(List.of(first));
    for (int i = 2; i <= repeats; i++) {
      Row again = runContender(set, contender, e, null, limit, "-run" + i);
      if (again.result() == null) {
        return again;
      }
      if (!again.agrees()) {
        return again; // a disagreeing repeat is reported, not hidden behind a median
      }
      runs.add(again);
    }
    List<Row> byWall = new ArrayList<>(runs);
    byWall.sort(java.util.Comparator.comparingDouble(r -> r.result().wallSeconds()));
    Row m = byWall.get(byWall.size() / 2);
    return new Row(
        m.dataSet(),
        m.contender(),
        m.result(),
        null,
        e,
        runs.stream().map(r -> r.result().wallSeconds()).toList(),
        runs.stream().flatMap(r -> r.loads().stream()).toList());
  }

  /** The 1-minute load average now; -1 where the system has none. */
  static double load1() {
    return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
  }

  private String commandLine() {
    return "bin/bench run --sizes="
        + join(sizes)
        + " --contenders="
        + String.join(",", contenders)
        + " --zipf-size="
        + zipfSize
        + " --seed="
        + seed
        + " --xmx="
        + xmx
        + " --run-timeout="
        + runTimeout
        + " --largest-timeout="
        + largestTimeout
        + " --profile="
        + String.join(",", profile)
        + " --profile-under="
        + profileUnder
        + " --lookup-size="
        + lookupSize
        + " --repeats="
        + repeats
        + " --repeat-under="
        + repeatUnder;
  }

  private static String join(List<Integer> l) {
    return String.join(",", l.stream().map(String::valueOf).toList());
  }

  private GeneratorConfig base(int n) {
    GeneratorConfig d = GeneratorConfig.defaults();
    return d.withSeed(seed)
        .withRecords(n)
        .withTiming(d.spacing(), d.disorder(), Math.max(1000, n / 50), d.timeout());
  }

  /** Generates a data set unless an identical one is already there. */
  private Path dataSet(String name, GeneratorConfig config) throws IOException {
    Path dir = work.resolve("data").resolve(name);
    Path exp = dir.resolve(Generator.EXPECTED);
    if (Files.exists(exp) && Expected.read(exp).config().equals(config)) {
      return dir;
    }
    deleteTree(work, dir);
    long t0 = System.nanoTime();
    Expected e = new Generator(config).generate(dir);
    System.out.printf(
        "generated %s: %d events, %.0f MB in %.1f s%n",
        name, e.events(), e.payloadBytes() / 1e6, (System.nanoTime() - t0) / 1e9);
    return dir;
  }

  private Row runContender(Path set, String contender, Expected e, Path jfr, Duration limit)
      throws IOException, InterruptedException {
    return runContender(set, contender, e, jfr, limit, "");
  }

  private Row runContender(
      Path set, String contender, Expected e, Path jfr, Duration limit, String repeat)
      throws IOException, InterruptedException {
    String name = set.getFileName().toString();
    String runName = name + "-" + contender + (jfr != null ? "-profile" : "") + repeat;
    Path runDir = work.resolve("runs").resolve(runName);
    if (reuse && jfr != null && Files.exists(jfr)) {
      return new Row(name, contender, null, null, e);
    }
    if (reuse && Files.exists(runDir.resolve("result.json"))) {
      return new Row(name, contender, RunResult.read(runDir.resolve("result.json")), null, e);
    }
    if (reuse && Files.exists(runDir.resolve("log.txt"))) {
      return new Row(
          name, contender, null, previousFailure(runDir.resolve("log.txt"), limit, e), e);
    }
    deleteTree(work, runDir);
    Files.createDirectories(runDir);
    Path result = runDir.resolve("result.json");
    Path log = runDir.resolve("log.txt");
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx" + xmx);
    cmd.addAll(sparkFlags());
    boolean ownJvm = contender.equals("flink"); // the contender's pipeline runs in a JVM it starts
    if (jfr != null && !ownJvm) {
      cmd.add("-XX:StartFlightRecording=filename=" + jfr + ",settings=profile,dumponexit=true");
    }
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(ContenderMain.class.getName());
    cmd.add("--contender=" + contender);
    cmd.add("--data=" + set);
    cmd.add("--work=" + runDir.resolve("work"));
    cmd.add("--result=" + result);
    if (jfr != null && ownJvm) {
      cmd.add("--jfr=" + jfr);
    }
    Process p =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    if (!p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
      // SIGTERM first: the JVM's shutdown hooks still dump a JFR recording. A JVM the contender
      // started (flink) is stopped the same way, whether or not the contender's hook gets to it.
      List<ProcessHandle> children = p.descendants().toList();
      children.forEach(ProcessHandle::destroy);
      p.destroy();
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly().waitFor();
      }
      for (ProcessHandle c : children) {
        try {
          c.onExit().get(60, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException
            | java.util.concurrent.TimeoutException ex) {
          c.destroyForcibly();
        }
      }
      return new Row(
          name,
          contender,
          null,
          String.format(
              Locale.ROOT,
              "timed out: not finished after %d min, so below %,.0f events/s",
              limit.toMinutes(),
              e.events() / (double) limit.toSeconds()),
          e);
    }
    if (p.exitValue() != 0 || !Files.exists(result)) {
      return new Row(name, contender, null, "failed (exit " + p.exitValue() + "), see " + log, e);
    }
    RunResult r = RunResult.read(result);
    deleteTree(work, runDir.resolve("work/checkpoint"));
    // Keep the tables of the SparkRunner run at the lookup size for the lookup measurement.
    if (jfr != null
        || !repeat.isEmpty()
        || !(contender.equals("spark") && name.equals("u" + lookupSize))) {
      deleteTree(work, runDir.resolve("work"));
    }
    return new Row(name, contender, r, null, e);
  }

  /** Why a run kept in --work left no result: its log ends in an exception, or it was stopped. */
  private static String previousFailure(Path log, Duration limit, Expected e) throws IOException {
    List<String> lines = Files.readAllLines(log);
    boolean exception = lines.stream().anyMatch(l -> l.startsWith("Exception in thread"));
    return exception
        ? "failed, see " + log
        : String.format(
            Locale.ROOT,
            "timed out: not finished after %d min, so below %,.0f events/s",
            limit.toMinutes(),
            e.events() / (double) limit.toSeconds());
  }

  static List<String> sparkFlags() {
    List<String> flags = new ArrayList<>();
    for (String m :
        List.of(
            "java.base/sun.nio.ch",
            "java.base/java.nio",
            "java.base/java.lang",
            "java.base/java.util",
            "java.base/java.lang.invoke",
            "java.base/sun.util.calendar",
            "java.base/java.util.concurrent",
            "java.base/java.net",
            "java.base/java.io",
            "java.base/sun.nio.cs",
            "java.base/sun.security.action",
            "java.base/java.lang.reflect")) {
      flags.add("--add-opens=" + m + "=ALL-UNNAMED");
    }
    return flags;
  }

  private static String describe(Row r) {
    if (r.result() == null) {
      return r.dataSet() + " " + r.contender() + ": " + r.failure();
    }
    RunResult x = r.result();
    return String.format(
        "%s %s: %.1f s, %.0f events/s, peak heap %d MB, %s%s",
        r.dataSet(),
        r.contender(),
        x.wallSeconds(),
        x.eventsPerSecond(),
        x.peakHeapBytes() >> 20,
        x.counts().brief(),
        r.agrees() ? "" : "  DISAGREES, expected " + r.expectedCounts().brief());
  }

  /** Deletes {@code dir}, which names a data set or run and must lie inside {@code folder}. */
  static void deleteTree(Path folder, Path dir) throws IOException {
    ContainedPaths.requireStrictChild(folder, dir);
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList()) {
        Files.delete(p);
      }
    }
  }

  static String machine() {
    return Runtime.getRuntime().availableProcessors()
        + " cores, "
        + (((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getTotalMemorySize()
            >> 30)
        + " GiB RAM, "
        + System.getProperty("os.name")
        + " "
        + System.getProperty("os.version")
        + ", Java "
        + System.getProperty("java.version");
  }
}
