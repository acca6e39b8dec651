package io.streamrecon.bench;

import io.streamrecon.json.JsonSupport;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Sustained throughput on Kafka: runs {@link SoakCommand} trials of {@code --minutes} each at
 * rising produce rates, each in a fresh broker, warehouse and pipeline JVM, and stops at the first
 * rate the engine does not hold ({@link SustainRule}). Then, with {@code --latency}, one more soak
 * at half the highest rate held, whose verdict latency is the figure the issue asks for. Every
 * trial writes MATCH rows too ({@code --emitMatches=true}), so the latency run measures the same
 * work as the throughput trials.
 *
 * <p>Writes {@code sustain.md} in {@code --dir}: one row per trial, and the trials' own {@code
 * soak.md} and {@code latency.md} in sub-directories.
 */
@Command(
    name = "sustain",
    description =
        "Highest produce rate an engine holds on Kafka with bounded lag, then latency at"
            + " half of it.")
public final class SustainCommand implements Callable<Integer> {
  /** The search's figures, machine-readable, for {@link StreamingChart}. */
  static final String JSON = "sustain.json";

  @Option(names = "--dir", required = true, description = "empty scratch directory (kept)")
  Path dir;

  @Option(names = "--engine", defaultValue = "spark", description = "spark, flink or peer")
  String engine;

  @Option(
      names = "--rates",
      split = ",",
      required = true,
      description = "produce rates to try, distinct ids per second, ascending")
  List<Double> rates;

  @Option(names = "--minutes", defaultValue = "5", description = "production time per trial")
  double minutes;

  @Option(names = "--timeout", defaultValue = "60s", description = "the pipeline's --timeout")
  String timeout;

  @Option(names = "--xmx", defaultValue = "3g", description = "the pipeline JVM's -Xmx")
  String xmx;

  @Option(
      names = "--buckets",
      defaultValue = "-1",
      description = "the pipeline's --pairingBuckets (ignored by the peer); default: the engine's")
  int buckets;

  @Option(
      names = "--latency",
      defaultValue = "true",
      arity = "1",
      description = "after the search, a soak at half the highest rate held, for verdict latency")
  boolean latency;

  @Option(names = "--pipelineArg", description = "extra pipeline option, repeatable")
  List<String> pipelineArgs = new ArrayList<>();

  @Option(names = "--pipelineJvmArg", description = "extra flag of the pipeline JVM, repeatable")
  List<String> pipelineJvmArgs = new ArrayList<>();

  @Option(
      names = "--jfr",
      arity = "1",
      defaultValue = "false",
      description = "record each trial's pipeline JVM with JFR into its directory's pipeline.jfr")
  boolean jfr;

  @Override
  public Integer call() throws Exception {
    if (rates.isEmpty() || rates.stream().anyMatch(r -> r <= 0)) {
      throw new IllegalArgumentException("--rates must list rates > 0 ids/s");
    }
    for (int i = 1; i < rates.size(); i++) {
      if (rates.get(i) <= rates.get(i - 1)) {
        throw new IllegalArgumentException("--rates must be ascending: " + rates);
      }
    }
    Files.createDirectories(dir);
    Path report = dir.resolve("sustain.md");
    Files.writeString(
        report,
        String.format(
            Locale.ROOT,
            "# Sustained rate: engine %s, %.0f minutes per trial (%s, load average at start %.1f)%n%n"
                + "Held = storage lag (events produced minus stored in raw_events, in seconds of"
                + " production) below %.0f s after a %.0f s warm-up, its last third at most %.0f s above"
                + " its first third, everything stored within %.0f s after production, and the producer"
                + " on plan. Verdicts must agree with the producer's in every trial.%n%n"
                + "| trial | ids/s | events/s | verdicts | rate | lag max s | lag first third s |"
                + " lag last third s | stored after end s | why |%n"
                + "|---|---:|---:|---|---|---:|---:|---:|---:|---|%n",
            engine,
            minutes,
            Instant.now().truncatedTo(ChronoUnit.MINUTES),
            load(),
            SustainRule.MAX_LAG_SECONDS,
            SustainRule.WARM_UP_SECONDS,
            SustainRule.MAX_GROWTH_SECONDS,
            SustainRule.MAX_DRAIN_SECONDS),
        StandardCharsets.UTF_8);
    double highest = 0;
    double highestEvents = 0;
    List<Map<String, Object>> trials = new ArrayList<>();
    for (double rate : rates) {
      SoakCommand trial = trial("rate-" + Math.round(rate), rate);
      append(report, row("rate-" + Math.round(rate), rate, trial));
      trials.add(summary(rate, trial));
      if (!trial.verdictsAgree) {
        JsonSupport.mapper()
            .writeValue(
                dir.resolve(JSON).toFile(),
                Map.of("engine", engine, "trials", trials, "verdictsAgree", false));
        append(
            report,
            "\nThe verdicts of the trial at "
                + Math.round(rate)
                + " ids/s disagree with the producer's: the search stops (see its soak.md).\n");
        return 1;
      }
      if (trial.sustain == null || !trial.sustain.held()) {
        break;
      }
      highest = rate;
      highestEvents = trial.eventsPerSecond();
    }
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("engine", engine);
    json.put("minutes", minutes);
    json.put("trials", trials);
    json.put("highestIdsPerSecond", highest);
    json.put("highestEventsPerSecond", highestEvents);
    append(
        report,
        highest == 0
            ? "\nNo rate tried was held.\n"
            : String.format(Locale.ROOT, "%nHighest rate held: %.0f ids/s.%n", highest));
    if (latency && highest > 0) {
      SoakCommand half = trial("latency-" + Math.round(highest / 2), highest / 2);
      append(report, row("latency at half", highest / 2, half));
      Map<String, Object> lat = summary(highest / 2, half);
      if (half.latency != null) {
        Map<String, Object> byStatus = new LinkedHashMap<>();
        half.latency.byStatus().forEach((status, p) -> byStatus.put(status.name(), p));
        lat.put("percentilesMillis", byStatus);
      }
      json.put("latency", lat);
      Path latencyMd = dir.resolve("latency-" + Math.round(highest / 2)).resolve("latency.md");
      if (Files.exists(latencyMd)) {
        append(report, "\n" + Files.readString(latencyMd, StandardCharsets.UTF_8));
      }
      if (!half.verdictsAgree) {
        return 1;
      }
    }
    JsonSupport.mapper()
        .writerWithDefaultPrettyPrinter()
        .writeValue(dir.resolve(JSON).toFile(), json);
    System.out.println(Files.readString(report, StandardCharsets.UTF_8));
    return 0;
  }

  private static Map<String, Object> summary(double idsPerSecond, SoakCommand trial) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("idsPerSecond", idsPerSecond);
    m.put("eventsPerSecond", trial.eventsPerSecond());
    m.put("verdictsAgree", trial.verdictsAgree);
    m.put("judgement", trial.sustain);
    return m;
  }

  private SoakCommand trial(String name, double idsPerSecond) {
    SoakCommand soak = new SoakCommand();
    List<String> args =
        new ArrayList<>(
            List.of(
                "--dir=" + dir.resolve(name),
                "--engine=" + engine,
                "--ids=" + Math.round(idsPerSecond * minutes * 60),
                "--minutes=" + minutes,
                "--sampleSeconds=20",
                "--heapSamples=false",
                "--finalWaitMinutes=5",
                "--timeout=" + timeout,
                "--xmx=" + xmx,
                "--buckets=" + buckets,
                "--pipelineArg=--emitMatches=true"));
    pipelineArgs.forEach(a -> args.add("--pipelineArg=" + a));
    pipelineJvmArgs.forEach(a -> args.add("--pipelineJvmArg=" + a));
    args.add("--jfr=" + jfr);
    int rc = new CommandLine(soak).execute(args.toArray(String[]::new));
    if (rc != 0 && soak.sustain == null) {
      System.out.println("trial " + name + " ended with exit code " + rc + " before its judgement");
    }
    return soak;
  }

  private static String row(String name, double idsPerSecond, SoakCommand trial) {
    SustainRule.Verdict v = trial.sustain;
    return String.format(
        Locale.ROOT,
        "| %s | %.0f | %s | %s | %s |%n",
        name,
        idsPerSecond,
        v == null ? "–" : String.format(Locale.ROOT, "%.0f", trial.eventsPerSecond()),
        trial.verdictsAgree ? "agree" : "**disagree**",
        v == null
            ? "**no judgement** (the soak failed; see its soak.md) | | | | |"
            : v.markdownRow());
  }

  private static void append(Path report, String text) throws IOException {
    Files.writeString(report, text, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
  }

  private static double load() {
    return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
  }
}
