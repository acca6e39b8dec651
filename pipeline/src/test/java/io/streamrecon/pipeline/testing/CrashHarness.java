package io.streamrecon.pipeline.testing;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.fail;

import io.streamrecon.deltalake.DeltaLakeTables;
import io.streamrecon.deltalake.WarehouseTables;
import io.streamrecon.model.DeltaRecord;
import io.streamrecon.model.Difference;
import io.streamrecon.model.LateEvent;
import io.streamrecon.model.Status;
import io.streamrecon.pipeline.samples.SampleGenerator;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The crash test shared by the runners: a KRaft broker in its own JVM, two kcat producers at a
 * steady pace, and two pipeline JVMs reading the same topics into two warehouses: run A is never
 * disturbed, run B is killed with SIGKILL at seeded moments (one of them inside a Delta Lake
 * commit) and restarted each time with the same command. B must end with A's tables.
 *
 * <p>Event times are the scenario's, moved to the wall clock and compressed, so that the data is
 * "live" (the Kafka watermark follows the wall clock on idle partitions, and old event times would
 * turn into late data at a moment that depends on timing). The data starts only once both runs have
 * stored a warm-up pair, so that the faults meet runs that are reading. Late events are produced by
 * a second phase once both runs have caught up, so they are late by any watermark.
 */
public final class CrashHarness {
  /** Runner options, how the pipeline is launched, and what the runner can do. */
  public record Runner(
      String label, List<String> options, Launcher launcher, boolean lateDetected) {}

  /**
   * How the test starts a pipeline: from a shipped artifact ({@link #binStreamrecon}, or the
   * distribution launchers of the cluster tests), or from this JVM's class path ({@link
   * #classPath}: a fast unit of the same harness that proves the code, not what ships).
   */
  public interface Launcher {
    /**
     * Starts {@code streamrecon run} with {@code runArgs} (the options after {@code run}), its
     * output appended to {@code log}. {@code faults}, when not null, installs {@link
     * CommitPausingFs} the way a user adds a file system; {@code jvmOptions} are added to the
     * JVM's.
     */
    Process start(List<String> runArgs, Path log, FaultFs faults, List<String> jvmOptions)
        throws IOException;
  }

  /**
   * A Hadoop configuration directory that installs {@link CommitPausingFs}, its classes' jar, and a
   * jar of the Hadoop file systems alone (for a class path that cannot see the project's jar).
   */
  public record FaultFs(Path hadoopConfDir, Path jar, Path fileSystemJar) {}

  /** The FlinkRunner's options of the crash runs: the embedded cluster, checkpoints every 2 s. */
  public static final List<String> FLINK_OPTIONS =
      List.of(
          "--runner=FlinkRunner",
          "--flinkMaster=[local]",
          "--parallelism=2",
          "--checkpointingInterval=2000");

  /** Heap of every pipeline JVM the harness starts (two run side by side on two cores). */
  private static final String HEAP = "-Xmx1g";

  /**
   * The pipeline on this JVM's class path with {@code jvmFlags}: the harness as a fast unit of the
   * code; it does not stand for what users run.
   */
  public static Launcher classPath(List<String> jvmFlags) {
    return (runArgs, log, faults, jvmOptions) -> {
      List<String> cmd = new ArrayList<>();
      cmd.add(ChildProcesses.java());
      cmd.add(HEAP);
      // Every runner gets the JDK openings bin/streamrecon passes (and a Flink distribution's
      // env.java.opts.all): Flink's checkpoint of the @RequiresStableInput commit buffers reflects
      // into java.util and declines every checkpoint without them.
      List<String> flags = new ArrayList<>(addOpensOfThisJvm());
      jvmFlags.stream().filter(f -> !flags.contains(f)).forEach(flags::add);
      cmd.addAll(flags);
      cmd.addAll(jvmOptions);
      cmd.add("-cp");
      cmd.add(
          faults == null
              ? ChildProcesses.classPath()
              : ChildProcesses.classPath(faults.hadoopConfDir()));
      cmd.add("io.streamrecon.pipeline.cli.StreamRecon");
      cmd.add("run");
      cmd.addAll(runArgs);
      return ChildProcesses.start(cmd, log);
    };
  }

  /**
   * {@code bin/streamrecon run ...} of the checkout at {@code root}, as the README tells a user to
   * run it: the runner's shipped jar on its distribution's class path. JVM options go through
   * {@code JAVA_OPTS}, the fault file system through {@code HADOOP_CONF_DIR} and {@code
   * STREAMRECON_CLASSPATH}. {@code STREAMRECON_BUILD=never}: the jars {@code mvn verify} packaged
   * are the ones tested, never a build started from inside a test.
   */
  public static Launcher binStreamrecon(Path root) {
    return (runArgs, log, faults, jvmOptions) -> {
      List<String> cmd = new ArrayList<>();
      cmd.add(root.resolve("bin").resolve("streamrecon").toString());
      cmd.add("run");
      cmd.addAll(runArgs);
      List<String> javaOpts = new ArrayList<>();
      javaOpts.add(HEAP);
      javaOpts.addAll(jvmOptions);
      Map<String, String> env = new HashMap<>();
      env.put("JAVA_OPTS", String.join(" ", javaOpts));
      env.put("STREAMRECON_BUILD", "never");
      if (faults != null) {
        env.put("HADOOP_CONF_DIR", faults.hadoopConfDir().toString());
        env.put("STREAMRECON_CLASSPATH", faults.jar().toString());
      }
      return ChildProcesses.start(cmd, log, env);
    };
  }

  /** Something done to run B while it runs. */
  public enum Fault {
    KILL_AFTER_RAW_COMMITS,
    KILL_DURING_COMMIT,
    KILL_AFTER_DELTAS_COMMIT,
    /** SIGTERM (a stop as a service manager sends it), then a start with the same command. */
    STOP_AND_RESTART,
    /**
     * SIGKILL while a Spark checkpoint file (state or streaming context) is written, before it gets
     * the name a restore reads. SparkRunner only: Spark writes its checkpoints through Hadoop's
     * file system, where the test can pause it; Flink writes through its own.
     */
    KILL_DURING_CHECKPOINT,
    /**
     * SIGKILL, then a start with an option the checkpoint cannot take ({@code
     * --batchIntervalMillis} on the SparkRunner, {@code --timeout} elsewhere): refused with exit 2
     * and one line naming the option, the warehouse untouched; then the same command as before.
     */
    RESTART_WITH_CHANGED_OPTION,
    BROKER_DOWN_30S
  }

  private static final Pattern EVENT_TIME = Pattern.compile("\"eventTime\":\"([^\"]+)\"");
  public static final int LATE_EVENTS = 3;

  /** The warm-up pair: one record per topic, produced before the data (see {@link #warmUp}). */
  private static final String WARMUP_ID = "warmup-1";

  private static final int WARMUP_RECORDS = 2;
  private static final int COMPRESS = 5;

  private final Path dir;
  private final Runner runner;
  private final long seed;
  private final List<String> log = new ArrayList<>();

  /** When the broker stopped and when it answered again, for BROKER_DOWN_30S. */
  private Instant[] outage;

  public CrashHarness(Path dir, Runner runner, long seed) {
    this.dir = dir;
    this.runner = runner;
    this.seed = seed;
  }

  /** The {@code --add-opens} flags this JVM was started with (Spark needs them on Java 17). */
  public static List<String> addOpensOfThisJvm() {
    return java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
        .filter(a -> a.startsWith("--add-opens"))
        .toList();
  }

  /** What the test saw, for its assertions. */
  public record Result(
      Path undisturbed, Path disturbed, int produced, int badLines, List<String> events) {}

  /**
   * What the broker outage runs pass: well over the test producers' socket.timeout.ms (10 s) plus
   * librdkafka's largest reconnect backoff (10 s, +50 % jitter).
   */
  static final String KAFKA_IDLE_AFTER_FOR_OUTAGES = "--kafkaIdleAfter=75s";

  /** Runs A and B with the given faults on B, in order, and returns the two warehouses. */
  public Result run(List<Fault> faults) throws Exception {
    KcatProducer.requireKcat();
    SampleGenerator g = SampleGenerator.generate(Scenario.SEED, Scenario.IDS);
    // Sizes only: the event times are set when the producers start (below).
    int onTimeLines = g.sourceLines().size() + g.targetLines().size() + WARMUP_RECORDS;
    int produced = onTimeLines + LATE_EVENTS;

    Path whA = dir.resolve("warehouse-a");
    Path whB = dir.resolve("warehouse-b");
    Path conf = dir.resolve("crash-conf");
    Files.createDirectories(conf);
    Files.writeString(conf.resolve("core-site.xml"), CommitPausingFs.coreSiteXml());
    FaultFs faultFs =
        new FaultFs(
            conf,
            CommitPausingFs.writeJar(dir.resolve("fault-fs.jar")),
            CommitPausingFs.writeFileSystemJar(dir.resolve("fault-fs-hadoop.jar")));
    Random random = new Random(seed);

    Process a = null;
    Process b = null;
    try (KafkaBrokerProcess broker = KafkaBrokerProcess.start(dir.resolve("broker"))) {
      // Append times on the records (the pipelines read event times from the payload, so this
      // changes nothing for them): the report after a fault says when each record reached the log.
      broker.createTopics(
          2, Map.of("message.timestamp.type", "LogAppendTime"), "orders-src", "orders-tgt");
      List<String> argsA = args(broker, whA, "crash-a-" + UUID.randomUUID());
      List<String> argsB = new ArrayList<>(args(broker, whB, "crash-b-" + UUID.randomUUID()));
      if (faults.contains(Fault.BROKER_DOWN_30S)) {
        // kcat (librdkafka) can leave a produce request unanswered around the broker's stop or
        // restart waiting out socket.timeout.ms before it retries (KcatProducer sets 10 s): with
        // librdkafka's 60 s its first record once came 39 s after the broker answered again, past
        // the default --kafkaIdleAfter (30 s), and the records it had buffered were late. README
        // "Known problems" says to raise the option for such producers; this run does, with a
        // margin over the 10 s and the reconnect backoff.
        argsA.add(KAFKA_IDLE_AFTER_FOR_OUTAGES);
        argsB.add(KAFKA_IDLE_AFTER_FOR_OUTAGES);
      }
      // A control experiment: e.g. -Dstreamrecon.crashExtraArgs=--savepointPath=file:///none
      // makes FlinkRecovery leave [local] without restore, and the checks must then fail.
      String extra = System.getProperty("streamrecon.crashExtraArgs", "");
      if (!extra.isBlank()) {
        argsB.addAll(List.of(extra.trim().split("\\s+")));
      }
      Path logA = dir.resolve("run-a.log");
      Path logB = dir.resolve("run-b.log");
      a = startPipeline(argsA, logA, null, List.of());
      b = startPipeline(argsB, logB, faultFs, List.of());
      warmUp(broker, whA, whB, b, logB);
      // The data is live from the moment the producers start: an event is appended about when it
      // happens (the pipelines' watermark rule for idle partitions relies on that). Timed from the
      // start of the test instead, a slow broker start made every record tens of seconds old.
      Instant t0 = Instant.now().plusSeconds(1);
      List<String> src = live(g.sourceLines(), t0, "s");
      List<String> tgt = live(g.targetLines(), t0, "t");
      List<String> late = new ArrayList<>();
      for (int i = 1; i <= LATE_EVENTS; i++) {
        late.add(
            "late-"
                + i
                + KcatProducer.KEY_SEPARATOR
                + "{\"id\":\"late-"
                + i
                + "\",\"eventTime\":\""
                + t0.minus(Duration.ofHours(1))
                + "\",\"status\":\"LATE\"}");
      }
      try (KcatProducer ps =
              KcatProducer.live(
                  broker.bootstrapServers(),
                  "orders-src",
                  src,
                  dueTimes(src),
                  dir.resolve("kcat-src.log"));
          KcatProducer pt =
              KcatProducer.live(
                  broker.bootstrapServers(),
                  "orders-tgt",
                  tgt,
                  dueTimes(tgt),
                  dir.resolve("kcat-tgt.log"))) {
        int restarts = 0;
        for (Fault f : faults) {
          switch (f) {
            case KILL_AFTER_RAW_COMMITS -> {
              long base = commits(whB, WarehouseTables.RAW_EVENTS);
              int k = 1 + random.nextInt(3);
              ChildProcesses.await(
                  k + " more raw_events commits in B",
                  150,
                  b,
                  logB,
                  () -> commits(whB, WarehouseTables.RAW_EVENTS) >= base + k);
              note(
                  "SIGKILL B after "
                      + (base + k)
                      + " raw_events commits (produced "
                      + ps.sent()
                      + "+"
                      + pt.sent()
                      + ")");
              ChildProcesses.kill(b);
              b = startPipeline(argsB, logB, faultFs, List.of());
            }
            case KILL_DURING_COMMIT ->
                // This start is the restart: it pauses inside its k-th Delta Lake commit.
                b =
                    killPausedRestart(
                        b,
                        argsB,
                        logB,
                        faultFs,
                        CommitPausingFs.AT,
                        1 + random.nextInt(3),
                        dir.resolve("paused-" + (restarts++)),
                        "inside Delta Lake commit");
            case KILL_DURING_CHECKPOINT ->
                b =
                    killPausedRestart(
                        b,
                        argsB,
                        logB,
                        faultFs,
                        CommitPausingFs.AT_CHECKPOINT,
                        1 + random.nextInt(6),
                        dir.resolve("paused-" + (restarts++)),
                        "at Spark checkpoint file");
            case RESTART_WITH_CHANGED_OPTION -> {
              ChildProcesses.kill(b);
              String option =
                  runner.options().contains("--runner=SparkRunner")
                      ? "--batchIntervalMillis="
                      : "--timeout=";
              String value = option.equals("--timeout=") ? "21s" : "4000";
              List<String> changed =
                  argsB.stream().map(o -> o.startsWith(option) ? option + value : o).toList();
              if (changed.equals(argsB)) {
                throw new IllegalStateException("run B has no " + option + " to change");
              }
              Map<Path, String> before = listing(whB);
              long logBefore = Files.size(logB);
              Process refused = startPipeline(changed, logB, faultFs, List.of());
              try {
                ChildProcesses.await(
                    "B refusing " + option + value, 120, null, logB, () -> !refused.isAlive());
              } finally {
                ChildProcesses.kill(refused); // gone already, unless the refusal never came
              }
              String said = Files.readString(logB).substring((int) logBefore);
              if (refused.exitValue() != 2 || !said.contains(option.replace("=", ""))) {
                throw new AssertionError(
                    "a restart with "
                        + option
                        + value
                        + " ended with exit "
                        + refused.exitValue()
                        + ", not 2 with a line naming the option:\n"
                        + said);
              }
              if (!before.equals(listing(whB))) {
                throw new AssertionError("the refused restart changed warehouse B");
              }
              note(
                  "B restarted with " + option + value + ": refused (exit 2), warehouse unchanged");
              b = startPipeline(argsB, logB, faultFs, List.of());
            }
            case KILL_AFTER_DELTAS_COMMIT -> {
              long base = commits(whB, WarehouseTables.DELTAS);
              int k = 1 + random.nextInt(2);
              ChildProcesses.await(
                  k + " more deltas commits in B",
                  200,
                  b,
                  logB,
                  () -> commits(whB, WarehouseTables.DELTAS) >= base + k);
              note(
                  "SIGKILL B after "
                      + (base + k)
                      + " deltas commits (produced "
                      + ps.sent()
                      + "+"
                      + pt.sent()
                      + ")");
              ChildProcesses.kill(b);
              b = startPipeline(argsB, logB, faultFs, List.of());
            }
            case STOP_AND_RESTART -> {
              // Any commit since the last start shows the restored job at work (once the
              // producers are done, only deltas commits may still come).
              long base =
                  commits(whB, WarehouseTables.RAW_EVENTS) + commits(whB, WarehouseTables.DELTAS);
              ChildProcesses.await(
                  "one more raw_events or deltas commit in B",
                  150,
                  b,
                  logB,
                  () ->
                      commits(whB, WarehouseTables.RAW_EVENTS)
                              + commits(whB, WarehouseTables.DELTAS)
                          > base);
              note(
                  "SIGTERM B after "
                      + commits(whB, WarehouseTables.RAW_EVENTS)
                      + " raw_events commits (produced "
                      + ps.sent()
                      + "+"
                      + pt.sent()
                      + ")");
              int code = ChildProcesses.stop(b, 60);
              note("B stopped with exit code " + code);
              b = startPipeline(argsB, logB, faultFs, List.of());
            }
            case BROKER_DOWN_30S -> {
              // Mid-run: half of the data produced, so that producers and readers both meet the
              // outage (the pipelines' own progress varies too much with the machine's load).
              // Both runs must be reading by then (a loaded machine starts a pipeline JVM in tens
              // of seconds), or the outage only delays their start.
              ChildProcesses.await(
                  "half of the records produced and both runs storing",
                  150,
                  b,
                  logB,
                  () ->
                      ps.sent() >= src.size() / 2
                          && commits(whA, WarehouseTables.RAW_EVENTS) >= 1
                          && commits(whB, WarehouseTables.RAW_EVENTS) >= 1);
              note(
                  "broker stopped (produced "
                      + ps.sent()
                      + "+"
                      + pt.sent()
                      + ", B has "
                      + commits(whB, WarehouseTables.RAW_EVENTS)
                      + " raw_events commits)");
              broker.stop();
              Instant downAt = Instant.now();
              // The outage is the fault itself: hold it for 30 s of wall clock while both runs
              // and both producers keep going without a broker.
              Process pa = a;
              Process pb = b;
              ChildProcesses.await(
                  "30 s of outage",
                  40,
                  null,
                  logB,
                  () ->
                      Duration.between(downAt, Instant.now()).getSeconds() >= 30
                          || !pa.isAlive()
                          || !pb.isAlive());
              if (!a.isAlive() || !b.isAlive()) {
                throw new AssertionError(
                    "a pipeline died while the broker was down\n"
                        + ChildProcesses.tail(a.isAlive() ? logB : logA, 40));
              }
              broker.startAgain();
              Instant upAt = Instant.now();
              note(
                  "broker started again after 30 s; it answered "
                      + Duration.between(downAt, upAt).toMillis() / 1000.0
                      + " s after it stopped");
              outage = new Instant[] {downAt, upAt};
            }
            default -> throw new IllegalStateException(f.name());
          }
        }
        ps.awaitDone(300, dir.resolve("kcat-src.log"));
        pt.awaitDone(300, dir.resolve("kcat-tgt.log"));
      }
      note("all " + onTimeLines + " records produced");
      if (outage != null) {
        for (String topic : List.of("orders-src", "orders-tgt")) {
          note(broker.appendReport(topic, EVENT_TIME, outage[0], outage[1]));
        }
      }
      // Phase 2, once both runs have stored everything: events an hour old, late by any watermark.
      int onTime = onTimeLines;
      Process pa = a;
      Process pb = b;
      ChildProcesses.await("run A stored every record", 240, a, logA, () -> stored(whA) >= onTime);
      ChildProcesses.await("run B stored every record", 240, b, logB, () -> stored(whB) >= onTime);
      if (runner.lateDetected()) {
        // "Stored every record" is no sign that B caught up when its last restart came after the
        // last record: those rows were stored before the kill. A restored Flink job processes
        // what it reads before its first watermark reaches PairEvents as if the watermark were at
        // its minimum (Flink does not checkpoint watermarks), so events late by an hour would be
        // paired as on time (README, Known problems). A checkpoint completed since the last start
        // means the restored job is running with its sources' watermarks established.
        Instant since = lastStart.get(logB);
        ChildProcesses.await(
            "run B completed a checkpoint since its last start",
            120,
            b,
            logB,
            () -> checkpointedSince(whB, since));
      }
      Path lateFile = dir.resolve("late.txt");
      Files.write(lateFile, late, StandardCharsets.UTF_8);
      try (KcatProducer pl =
          KcatProducer.fromFile(
              broker.bootstrapServers(), "orders-src", lateFile, dir.resolve("kcat-late.log"))) {
        pl.awaitDone(120, dir.resolve("kcat-late.log"));
      }
      // Done when A shows every expected verdict and B agrees with A.
      Scenario expected = Scenario.of(g);
      ChildProcesses.await(
          "run A's final verdicts",
          300,
          a,
          logA,
          () -> complete(whA, expected, produced),
          () -> progress(whA, produced) + "\n" + verdictsAgainst(whA, expected) + notes());
      ChildProcesses.await(
          "run B's final verdicts equal to A's",
          300,
          b,
          logB,
          () ->
              stored(whB) >= produced
                  && view(whB).equals(view(whA))
                  && count(whB, WarehouseTables.LATE_EVENTS)
                      >= count(whA, WarehouseTables.LATE_EVENTS),
          () -> progress(whB, produced) + "\n" + difference(view(whA), view(whB)) + notes());
      note("both runs complete");
      return new Result(whA, whB, produced, g.badLines(), List.copyOf(log));
    } finally {
      ChildProcesses.kill(a);
      ChildProcesses.kill(b);
    }
  }

  /**
   * Produces one matching pair and waits until both runs stored it. Without it, a loaded machine (a
   * pipeline JVM can take 40 s to start) had every record produced before a run read the first, and
   * the faults met a run with nothing left to do: a restart that should pause inside its second
   * commit never made one. The pair is on time, MATCHes, and counts as produced.
   */
  private void warmUp(KafkaBrokerProcess broker, Path whA, Path whB, Process b, Path logB)
      throws Exception {
    Path file = dir.resolve("warmup.txt");
    Files.write(
        file,
        List.of(
            WARMUP_ID
                + KcatProducer.KEY_SEPARATOR
                + "{\"id\":\""
                + WARMUP_ID
                + "\",\"eventTime\":\""
                + Instant.now()
                + "\",\"status\":\"WARMUP\"}"),
        StandardCharsets.UTF_8);
    for (String topic : List.of("orders-src", "orders-tgt")) {
      Path kcatLog = dir.resolve("kcat-warmup-" + topic + ".log");
      try (KcatProducer p =
          KcatProducer.fromFile(broker.bootstrapServers(), topic, file, kcatLog)) {
        p.awaitDone(120, kcatLog);
      }
    }
    ChildProcesses.await(
        "both runs stored the warm-up pair",
        240,
        b,
        logB,
        () -> stored(whA) >= WARMUP_RECORDS && stored(whB) >= WARMUP_RECORDS);
    note("both runs read: they stored the warm-up pair");
  }

  /**
   * {@code fallback}, or the directory named by {@code -Dstreamrecon.crashDir} (kept after the
   * test, with every process's log, for a look after a failure).
   */
  public static Path workDir(Path fallback) throws IOException {
    String kept = System.getProperty("streamrecon.crashDir");
    if (kept == null || kept.isBlank()) {
      return fallback;
    }
    return Files.createDirectories(Path.of(kept).resolve("crash-" + System.currentTimeMillis()));
  }

  /**
   * What the harness did so far (when each fault came, and after a broker outage when each
   * partition's records reached the log), for a failure message: surefire keeps only the end of a
   * long output, and these lines are what tells a slow producer from a slow pipeline.
   */
  private String notes() {
    return "\nwhat happened: " + String.join("\n  ", log);
  }

  private void note(String s) {
    log.add(s);
    System.out.println("crash test: " + s);
  }

  private List<String> args(KafkaBrokerProcess broker, Path warehouse, String group) {
    List<String> args = new ArrayList<>();
    args.add("--source=" + broker.uri("orders-src"));
    args.add("--target=" + broker.uri("orders-tgt"));
    args.add("--warehouse=" + warehouse);
    args.add("--kafkaProperties=group.id=" + group);
    args.add("--timeout=20s");
    args.add("--kafkaMaxOutOfOrderness=10s");
    args.add("--commitInterval=1s");
    args.add("--progressInterval=10s");
    args.addAll(runner.options());
    return args;
  }

  /**
   * Kills B, starts it again paused at the {@code k}-th point that {@code property} of {@link
   * CommitPausingFs} counts, kills it there (the pause wrote {@code marker}), and starts it again:
   * returns that last start.
   */
  private Process killPausedRestart(
      Process b,
      List<String> argsB,
      Path logB,
      FaultFs faultFs,
      String property,
      int k,
      Path marker,
      String where)
      throws Exception {
    ChildProcesses.kill(b);
    Process paused =
        startPipeline(
            argsB,
            logB,
            faultFs,
            List.of("-D" + property + "=" + k, "-D" + CommitPausingFs.MARKER + "=" + marker));
    ChildProcesses.await(
        "B paused " + where + " " + k, 150, paused, logB, () -> Files.exists(marker));
    note("SIGKILL B, " + readQuietly(marker).trim());
    ChildProcesses.kill(paused);
    return startPipeline(argsB, logB, faultFs, List.of());
  }

  /** Every file under {@code root} with its size and modification time. */
  private static Map<Path, String> listing(Path root) throws IOException {
    Map<Path, String> out = new java.util.TreeMap<>();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        if (Files.isRegularFile(f)) {
          out.put(root.relativize(f), Files.size(f) + " " + Files.getLastModifiedTime(f));
        }
      }
    }
    return out;
  }

  /** When each pipeline (by its log) was last started. */
  private final Map<Path, Instant> lastStart = new HashMap<>();

  /**
   * True when a Flink checkpoint under the warehouse's job root completed at or after {@code
   * since}.
   */
  static boolean checkpointedSince(Path wh, Instant since) {
    Path root = wh.resolve("_checkpoints");
    if (!Files.isDirectory(root)) {
      return false;
    }
    try (Stream<Path> files = Files.walk(root)) {
      // Flink: a checkpoint's _metadata; Spark streaming: its checkpoint-<batch time> files.
      return files.anyMatch(
          f ->
              (f.getFileName().toString().equals("_metadata")
                      || f.getFileName().toString().startsWith("checkpoint-"))
                  && !modified(f).isBefore(since));
    } catch (IOException | java.io.UncheckedIOException e) {
      return false; // Flink removed a subsumed checkpoint while we walked: look again
    }
  }

  private static Instant modified(Path f) {
    try {
      return Files.getLastModifiedTime(f).toInstant();
    } catch (IOException e) {
      return Instant.MIN;
    }
  }

  private Process startPipeline(List<String> args, Path log, FaultFs faults, List<String> props)
      throws IOException {
    lastStart.put(log, Instant.now());
    List<String> jvmOptions = new ArrayList<>(props);
    // For a look inside a failing run, e.g. -Dstreamrecon.crashJvmFlags=-Dorg.slf4j...=debug
    String diagnostics = System.getProperty("streamrecon.crashJvmFlags", "");
    if (!diagnostics.isBlank()) {
      jvmOptions.addAll(List.of(diagnostics.trim().split("\\s+")));
    }
    Files.writeString(
        log,
        "=== start " + Instant.now() + " " + props + "\n",
        StandardCharsets.UTF_8,
        java.nio.file.StandardOpenOption.CREATE,
        java.nio.file.StandardOpenOption.APPEND);
    return runner.launcher().start(args, log, faults, jvmOptions);
  }

  /** When each line is due: its event time (a line without one: when the line before it is). */
  static List<Instant> dueTimes(List<String> lines) {
    List<Instant> due = new ArrayList<>();
    Instant last = Instant.now();
    for (String l : lines) {
      Instant t = parse(l);
      if (t != null) {
        last = t;
      }
      due.add(last);
    }
    return due;
  }

  /** Lines keyed for kcat, event times moved to {@code t0} and compressed. */
  public static List<String> live(List<String> lines, Instant t0, String side) {
    Instant base = null;
    for (String l : lines) {
      Instant t = parse(l);
      if (t != null && (base == null || t.isBefore(base))) {
        base = t;
      }
    }
    List<String> out = new ArrayList<>();
    int n = 0;
    for (String l : lines) {
      Matcher m = EVENT_TIME.matcher(l);
      String line = l;
      Instant t = parse(l);
      if (t != null) {
        long ms = Duration.between(base, t).toMillis() / COMPRESS;
        line = m.replaceFirst("\"eventTime\":\"" + t0.plusMillis(ms) + "\"");
      }
      Matcher id = Pattern.compile("\"id\":\"([^\"]+)\"").matcher(line);
      String key = id.find() ? id.group(1) : side + "-bad-" + n;
      out.add(key + KcatProducer.KEY_SEPARATOR + line);
      n++;
    }
    return out;
  }

  private static Instant parse(String line) {
    Matcher m = EVENT_TIME.matcher(line);
    if (!m.find()) {
      return null;
    }
    try {
      return Instant.parse(m.group(1));
    } catch (java.time.format.DateTimeParseException e) {
      return null;
    }
  }

  private boolean complete(Path wh, Scenario expected, int produced) {
    if (stored(wh) < produced) {
      return false;
    }
    if (runner.lateDetected()) {
      if (count(wh, WarehouseTables.LATE_EVENTS) < LATE_EVENTS) {
        return false;
      }
      try {
        expected.assertExpected(wh);
        return true;
      } catch (AssertionError e) {
        return false;
      }
    }
    // Without late detection (Spark's processing-time expiry) the late ids end as
    // MISSING_IN_TARGET: every expected id and every late id must have its verdict.
    Set<String> ids = new TreeSet<>();
    view(wh).forEach(line -> ids.add(line.substring(0, line.indexOf(' '))));
    for (Map.Entry<String, SampleGenerator.Kind> e :
        expected.generator().expectations().entrySet()) {
      if (SampleGenerator.expectedStatus(e.getValue()) != null && !ids.contains(e.getKey())) {
        return false;
      }
    }
    for (int i = 1; i <= LATE_EVENTS; i++) {
      if (!ids.contains("late-" + i)) {
        return false;
      }
    }
    return true;
  }

  private static String progress(Path wh, int produced) {
    return wh.getFileName()
        + ": stored "
        + stored(wh)
        + " of "
        + produced
        + ", late events "
        + count(wh, WarehouseTables.LATE_EVENTS)
        + ", deltas "
        + count(wh, WarehouseTables.DELTAS)
        + " in "
        + commits(wh, WarehouseTables.DELTAS)
        + " commits"
        + lateSample(wh);
  }

  /** A few late events with the watermark each missed: says which clock moved past them. */
  private static String lateSample(Path wh) {
    try {
      List<String> sample =
          DeltaLakeTables.readLateEvents(wh.toString()).stream()
              .filter(l -> !l.event().naturalId().startsWith("late-"))
              .sorted(java.util.Comparator.comparing(l -> l.event().eventTime()))
              .limit(5)
              .map(
                  l ->
                      l.event().side()
                          + " "
                          + l.event().naturalId()
                          + " at "
                          + l.event().eventTime()
                          + " missed watermark "
                          + l.watermark())
              .toList();
      return sample.isEmpty() ? "" : "\nunexpected late events (first 5): " + sample;
    } catch (RuntimeException e) {
      return "";
    }
  }

  private static String verdictsAgainst(Path wh, Scenario expected) {
    try {
      expected.assertExpected(wh);
      return "final verdicts as expected";
    } catch (AssertionError e) {
      return "final verdicts differ from the generator's: " + e.getMessage();
    }
  }

  /** Lines only in {@code a} and lines only in {@code b} (at most 20 of each). */
  static String difference(Set<String> a, Set<String> b) {
    List<String> onlyA = a.stream().filter(l -> !b.contains(l)).limit(20).toList();
    List<String> onlyB = b.stream().filter(l -> !a.contains(l)).limit(20).toList();
    return "only in A: " + onlyA + "\nonly in B: " + onlyB;
  }

  /** Raw events plus dead letters stored so far. */
  static long stored(Path wh) {
    return count(wh, WarehouseTables.RAW_EVENTS) + count(wh, WarehouseTables.DEAD_LETTERS);
  }

  static long count(Path wh, String table) {
    if (!Files.isDirectory(wh.resolve(table).resolve("_delta_log"))) {
      return 0;
    }
    try {
      return DeltaLakeTables.readRows(wh.toString(), table).size();
    } catch (RuntimeException e) {
      return 0; // a log being written right now: read again at the next poll
    }
  }

  /** Committed log entries of a table (cheap: a directory listing). */
  static long commits(Path wh, String table) {
    Path logDir = wh.resolve(table).resolve("_delta_log");
    if (!Files.isDirectory(logDir)) {
      return 0;
    }
    try (Stream<Path> s = Files.list(logDir)) {
      return s.filter(p -> p.getFileName().toString().matches("\\d{20}\\.json")).count();
    } catch (IOException e) {
      return 0;
    }
  }

  /**
   * The final verdicts per natural id: DeltaRecords no other supersedes, without MATCH, as {@code
   * id status sourceHash targetHash [path kind source target, ...]}.
   */
  public static Set<String> view(Path wh) {
    if (!Files.isDirectory(wh.resolve(WarehouseTables.DELTAS).resolve("_delta_log"))) {
      return Set.of();
    }
    List<DeltaRecord> records;
    try {
      records = DeltaLakeTables.readDeltas(wh.toString());
    } catch (RuntimeException e) {
      return Set.of();
    }
    Set<String> superseded = new java.util.HashSet<>();
    for (DeltaRecord d : records) {
      if (d.supersedes() != null) {
        superseded.add(d.supersedes());
      }
    }
    Set<String> view = new TreeSet<>();
    for (DeltaRecord d : records) {
      if (superseded.contains(d.verdictId()) || d.status() == Status.MATCH) {
        continue;
      }
      List<String> diffs = new ArrayList<>();
      for (Difference diff : d.differences()) {
        diffs.add(diff.path() + " " + diff.kind() + " " + diff.source() + " " + diff.target());
      }
      view.add(
          d.naturalId()
              + " "
              + d.status()
              + " "
              + d.sourceHash()
              + " "
              + d.targetHash()
              + " "
              + diffs);
    }
    return view;
  }

  /** Keys that occur more than once, with their counts. */
  public static <K> Map<K, Integer> repeated(List<K> keys) {
    Map<K, Integer> counts = new HashMap<>();
    keys.forEach(k -> counts.merge(k, 1, Integer::sum));
    counts.values().removeIf(c -> c == 1);
    return counts;
  }

  /** The origins (topic/partition@offset) of raw_events rows. */
  public static List<String> rawOrigins(Path wh) {
    return DeltaLakeTables.readRows(wh.toString(), WarehouseTables.RAW_EVENTS).stream()
        .map(
            r ->
                r.get("origin_stream")
                    + "/"
                    + r.get("origin_partition")
                    + "@"
                    + r.get("origin_offset"))
        .toList();
  }

  /** The distinct run ids in a table. */
  public static Set<Object> runIds(Path wh, String table) {
    Set<Object> ids = new TreeSet<>();
    DeltaLakeTables.readRows(wh.toString(), table).forEach(r -> ids.add(r.get("run_id")));
    return ids;
  }

  /** Late events as {@code side id sha}. */
  public static List<String> lateKeys(Path wh) {
    if (!Files.isDirectory(wh.resolve(WarehouseTables.LATE_EVENTS).resolve("_delta_log"))) {
      return List.of();
    }
    List<String> out = new ArrayList<>();
    for (LateEvent l : DeltaLakeTables.readLateEvents(wh.toString())) {
      out.add(l.event().side() + " " + l.event().naturalId() + " " + l.event().sha256());
    }
    return out;
  }

  private static String readQuietly(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      return "";
    }
  }

  /**
   * Every check of the crash test, collected so that one run reports all that fail. Which of them
   * wait for the Delta Lake idempotency work is said in the README ("Faults and recovery").
   */
  public static void assertSameOutcome(Result r, boolean lateDetected) {
    List<String> failures = new ArrayList<>();
    Path a = r.undisturbed();
    Path b = r.disturbed();
    check(failures, "final verdicts per natural id equal the undisturbed run's", view(a), view(b));
    List<String> ids =
        DeltaLakeTables.readDeltas(b.toString()).stream().map(DeltaRecord::verdictId).toList();
    check(failures, "every verdictId at most once in deltas", java.util.Map.of(), repeated(ids));
    check(
        failures,
        "every Kafka record at most once in raw_events",
        java.util.Map.of(),
        repeated(rawOrigins(b)));
    List<String> deadOrigins =
        DeltaLakeTables.readDeadLetters(b.toString()).stream()
            .map(d -> d.origin().describe())
            .toList();
    check(failures, "dead letters once each", java.util.Map.of(), repeated(deadOrigins));
    check(failures, "dead letters: the bad lines", (long) r.badLines(), (long) deadOrigins.size());
    List<String> late = lateKeys(b);
    check(failures, "late events once each", java.util.Map.of(), repeated(late));
    check(
        failures,
        "late events: the late phase's",
        lateDetected ? (long) LATE_EVENTS : 0L,
        (long) late.size());
    check(
        failures,
        "counts add up across the job's restarts: raw events + dead letters = produced",
        (long) r.produced(),
        (long) (rawOrigins(b).size() + deadOrigins.size()));
    check(
        failures,
        "the same counts as the undisturbed run: raw events",
        (long) rawOrigins(a).size(),
        (long) rawOrigins(b).size());
    check(
        failures,
        "one run id across the restarts of the job",
        1,
        runIds(b, WarehouseTables.RAW_EVENTS).size());
    if (!failures.isEmpty()) {
      fail(String.join("\n", failures) + "\nwhat happened: " + r.events());
    }
  }

  private static void check(List<String> failures, String what, Object expected, Object actual) {
    try {
      assertEquals(what, expected, actual);
    } catch (AssertionError e) {
      failures.add(e.getMessage());
    }
  }
}
