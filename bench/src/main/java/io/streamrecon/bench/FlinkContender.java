package io.streamrecon.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Contender 5: streamrecon on Beam's FlinkRunner {@code [local]} (an embedded mini cluster,
 * parallelism 2), batch, on the same files and with the same pipeline options as the other Beam
 * contenders. The pipeline runs in a JVM of its own, started here, as {@code flink run} would run
 * it: {@code FlinkMain} from the deployable {@code -flink-run} jar on the class path of a Flink
 * 1.19 distribution ({@code runners/dist/flink}), the same class path the soak's Flink mode uses.
 * It cannot run in the contender's JVM: Flink's jars do not share a class path with the bench's
 * Spark jars.
 *
 * <p>What is measured, and how it differs from the in-process contenders:
 *
 * <ul>
 *   <li>Wall time runs from starting the pipeline JVM to the final counts read back from the
 *       warehouse, so it includes that JVM's own start (about a second) which the in-process
 *       contenders do not pay.
 *   <li>Start-up is from starting the JVM to Flink's "mini cluster started" log line: JVM start,
 *       option checks, building and translating the pipeline, the mini cluster (0 when the line is
 *       missing).
 *   <li>Heap comes from the pipeline JVM's GC log ({@code -Xlog:gc}): peak heap is the largest heap
 *       in use before a collection, or at exit; live heap the largest after a collection. The
 *       in-process contenders sample heap in use every 20 ms; just before a collection is when it
 *       is highest, so the two agree to within what 20 ms of allocation adds. Flink's managed
 *       memory is off the heap and not counted.
 *   <li>Duplicates, late events and the emitted MATCH and MISMATCH counts come from the summary
 *       FlinkMain prints (the pipeline's Beam counters); payload fetches are not in it and are
 *       reported as n/a. Final verdicts are read from the deltas table exactly as for the other
 *       Beam contenders ({@link BeamContender#finalCounts}).
 * </ul>
 */
final class FlinkContender {
  static final String VERSION = "0.2.0-SNAPSHOT";

  /** The class path of a Flink distribution's lib/, relative to the repository root. */
  static final String DIST_JARS = "runners/dist/flink/target/jars";

  /** The jar {@code flink run} is given, relative to the repository root. */
  static final String RUN_JAR =
      "runners/flink/target/streamrecon-runner-flink-" + VERSION + "-flink-run.jar";

  /** What builds both (from the repository root). */
  static final String BUILD_COMMAND =
      "mvn -B package -DskipTests -pl runners/flink,runners/dist/flink -am";

  static final String MAIN = "io.streamrecon.runners.flink.FlinkMain";

  /** The line of Flink's MiniCluster (at INFO) that ends start-up. */
  static final String STARTED = "Flink Mini Cluster started successfully";

  /** The log configuration of the pipeline JVM, a resource of this module. */
  static final String LOG_CONFIG = "bench-flink-log4j2.properties";

  private final Path dataDir;
  private final Expected expected;
  private final Path work;
  private final Path root;
  private final String xmx;
  private final Path gcLog;
  private final Path jfr;
  private final List<String> pipelineArgs;

  double startupSeconds;
  long peakHeapBytes;
  long peakLiveHeapBytes;
  long mismatchesEmitted;
  long matchesEmitted;
  final Map<String, Object> extra = new LinkedHashMap<>();

  /**
   * @param root the repository root, where the Flink jars are built
   * @param xmx heap of the pipeline JVM, as for {@code -Xmx}
   * @param gcLog where the pipeline JVM writes its GC log
   * @param jfr where the pipeline JVM writes a JFR recording, or null for none
   */
  FlinkContender(
      Path dataDir,
      Expected expected,
      Path work,
      Path root,
      String xmx,
      Path gcLog,
      Path jfr,
      List<String> pipelineArgs) {
    this.dataDir = dataDir;
    this.expected = expected;
    this.work = work;
    this.root = root;
    this.xmx = xmx;
    this.gcLog = gcLog;
    this.jfr = jfr;
    this.pipelineArgs = List.copyOf(pipelineArgs);
  }

  Path warehouse() {
    return work.resolve("warehouse");
  }

  /** The pipeline JVM's class path: the distribution's jars, then the flink-run jar. */
  static String classpath(Path root) {
    return root.resolve(DIST_JARS) + "/*" + java.io.File.pathSeparator + root.resolve(RUN_JAR);
  }

  /**
   * Null when the Flink jars are built under {@code root}, else what is missing and how to build
   * it.
   */
  static String missing(Path root) {
    List<String> absent = new ArrayList<>();
    Path dist = root.resolve(DIST_JARS);
    boolean distJars;
    try (var s =
        Files.isDirectory(dist) ? Files.list(dist) : java.util.stream.Stream.<Path>empty()) {
      distJars = s.anyMatch(p -> p.getFileName().toString().startsWith("flink-runtime"));
    } catch (IOException e) {
      distJars = false;
    }
    if (!distJars) {
      absent.add(dist + "/flink-runtime-*.jar");
    }
    if (!Files.isRegularFile(root.resolve(RUN_JAR))) {
      absent.add(root.resolve(RUN_JAR).toString());
    }
    return absent.isEmpty()
        ? null
        : "the flink contender needs the Flink jars, not built: "
            + String.join(", ", absent)
            + "; build them from the repository root with: "
            + BUILD_COMMAND;
  }

  /**
   * The pipeline JVM's command line: the same heap limit and {@code --add-opens} as the other
   * contenders' JVMs, a GC log, the log configuration, then FlinkMain with the Beam contenders'
   * common options ({@link BeamContender#commonArgs}) and the runner's.
   */
  static List<String> command(
      String java,
      String xmx,
      String classpath,
      Path gcLog,
      Path logConfig,
      Path jfr,
      Path dataDir,
      Expected expected,
      Path warehouse,
      List<String> pipelineArgs) {
    List<String> cmd = new ArrayList<>();
    cmd.add(java);
    cmd.add("-Xmx" + xmx);
    cmd.add("-Xlog:gc,gc+heap+exit:file=" + gcLog);
    cmd.add("-Dlog4j2.configurationFile=" + logConfig);
    cmd.addAll(RunCommand.sparkFlags());
    if (jfr != null) {
      cmd.add("-XX:StartFlightRecording=filename=" + jfr + ",settings=profile,dumponexit=true");
    }
    cmd.add("-cp");
    cmd.add(classpath);
    cmd.add(MAIN);
    cmd.addAll(BeamContender.commonArgs(dataDir, expected, warehouse));
    cmd.add("--runner=FlinkRunner");
    cmd.add("--flinkMaster=[local]");
    cmd.add("--parallelism=2");
    cmd.addAll(pipelineArgs);
    return cmd;
  }

  /**
   * Writes {@link #LOG_CONFIG} into {@code dir} and returns its path, for a pipeline JVM's flag.
   */
  static Path writeLogConfig(Path dir) throws IOException {
    Path logConfig = dir.resolve(LOG_CONFIG);
    try (InputStream in = FlinkContender.class.getResourceAsStream("/" + LOG_CONFIG)) {
      Files.copy(in, logConfig, StandardCopyOption.REPLACE_EXISTING);
    }
    return logConfig;
  }

  VerdictCounts run() throws IOException, InterruptedException {
    String absent = missing(root);
    if (absent != null) {
      throw new IllegalStateException(absent);
    }
    Files.createDirectories(work);
    Path logConfig = writeLogConfig(work);
    Files.deleteIfExists(gcLog);
    List<String> cmd =
        command(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            xmx,
            classpath(root),
            gcLog,
            logConfig,
            jfr,
            dataDir,
            expected,
            warehouse(),
            pipelineArgs);
    System.out.println("flink pipeline JVM: " + String.join(" ", cmd));
    System.out.flush();
    long t0 = System.nanoTime();
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    // Whoever stops this JVM (bin/bench run at its time limit) stops the pipeline JVM too.
    Thread stop = new Thread(() -> stop(p), "stop-flink-jvm");
    Runtime.getRuntime().addShutdownHook(stop);
    List<String> summary = new ArrayList<>();
    boolean inSummary = false;
    try (BufferedReader r =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = r.readLine(); line != null; line = r.readLine()) {
        if (startupSeconds == 0 && line.contains(STARTED)) {
          startupSeconds = (System.nanoTime() - t0) / 1e9;
        }
        inSummary |= line.startsWith("streamrecon summary");
        if (inSummary) {
          summary.add(line);
        }
        System.out.println(line);
      }
    }
    int code = p.waitFor();
    Runtime.getRuntime().removeShutdownHook(stop);
    extra.put("pipelineJvmSeconds", (System.nanoTime() - t0) / 1e9);
    if (code != 0) {
      throw new IllegalStateException(
          "the Flink pipeline JVM exited with code " + code + " (its output is above)");
    }
    Map<String, Long> counts = parseSummary(summary);
    for (String needed : List.of("match", "mismatch", "duplicate", "late")) {
      if (!counts.containsKey(needed)) {
        throw new IllegalStateException(
            "the Flink pipeline JVM printed no summary row '" + needed + "'");
      }
    }
    extra.put("summary", counts);
    GcPeaks heap = GcPeaks.parse(Files.readAllLines(gcLog, StandardCharsets.UTF_8));
    peakHeapBytes = heap.peakBytes();
    peakLiveHeapBytes = heap.peakLiveBytes();
    extra.put("heapFrom", "GC log of the pipeline JVM: " + gcLog);
    extra.put("collections", heap.collections());
    // As BeamContender reads the counters; no comparison rules here, so none within tolerance.
    mismatchesEmitted = counts.get("mismatch");
    matchesEmitted = counts.get("match");
    return BeamContender.finalCounts(
        warehouse(), counts.get("duplicate"), counts.get("late"), extra);
  }

  private static void stop(Process p) {
    if (!p.isAlive()) {
      return;
    }
    p.destroy();
    try {
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    } catch (InterruptedException e) {
      p.destroyForcibly();
    }
  }

  private static final Pattern SUMMARY_ROW = Pattern.compile("^\\s+(\\S.*?)\\s{2,}(-?[\\d,]+)$");

  /**
   * The rows of the summary {@code streamrecon run} prints ({@code
   * io.streamrecon.pipeline.run.Summary #format}), label to count: {@code " duplicate 1,234"} gives
   * {@code duplicate -> 1234}.
   */
  static Map<String, Long> parseSummary(List<String> lines) {
    Map<String, Long> rows = new LinkedHashMap<>();
    boolean in = false;
    for (String line : lines) {
      if (line.startsWith("streamrecon summary")) {
        in = true;
        rows.clear();
        continue;
      }
      if (!in) {
        continue;
      }
      Matcher m = SUMMARY_ROW.matcher(line);
      if (!m.matches()) {
        in = false;
        continue;
      }
      rows.put(m.group(1).strip(), Long.parseLong(m.group(2).replace(",", "")));
    }
    return rows;
  }

  /**
   * Heap use of a JVM from its unified GC log ({@code -Xlog:gc,gc+heap+exit}).
   *
   * @param peakBytes the largest heap in use before a collection or at exit
   * @param peakLiveBytes the largest heap in use after a collection
   * @param collections pauses logged
   */
  record GcPeaks(long peakBytes, long peakLiveBytes, long collections) {
    private static final Pattern PAUSE =
        Pattern.compile(" Pause .*?(\\d+)([KMG])->(\\d+)([KMG])\\((\\d+)([KMG])\\)");

    /** The per-generation (or whole heap) totals of the exit summary; sub-spaces say "NN% used". */
    private static final Pattern EXIT =
        Pattern.compile("\\bgc,heap,exit\\b.* total (\\d+)K, used (\\d+)K");

    static GcPeaks parse(List<String> lines) {
      long peak = 0;
      long live = 0;
      long pauses = 0;
      long atExit = 0;
      for (String line : lines) {
        Matcher m = PAUSE.matcher(line);
        if (m.find()) {
          pauses++;
          peak = Math.max(peak, bytes(m.group(1), m.group(2)));
          live = Math.max(live, bytes(m.group(3), m.group(4)));
          continue;
        }
        Matcher e = EXIT.matcher(line);
        if (e.find()) {
          atExit += Long.parseLong(e.group(2)) << 10;
        }
      }
      return new GcPeaks(Math.max(peak, atExit), live, pauses);
    }

    private static long bytes(String n, String unit) {
      long v = Long.parseLong(n);
      return switch (unit.toUpperCase(Locale.ROOT)) {
        case "K" -> v << 10;
        case "M" -> v << 20;
        default -> v << 30;
      };
    }
  }
}
