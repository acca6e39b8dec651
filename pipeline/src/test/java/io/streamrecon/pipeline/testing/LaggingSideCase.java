package io.streamrecon.pipeline.testing;

import static org.junit.Assert.assertEquals;

import io.streamrecon.deltalake.DeltaLakeTables;
import io.streamrecon.deltalake.WarehouseTables;
import io.streamrecon.model.LateEvent;
import io.streamrecon.pipeline.samples.SampleGenerator;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * One side of the shared scenario produced behind the wall clock on a real broker, while a
 * streaming job reads both topics with event-time expiry: the Kafka watermark's idle rule met by a
 * replica that runs behind, a side loaded in bursts, and a side that starts late.
 *
 * <p>The scenario's event times are moved so that its first event is {@code lag} before the moment
 * the lagging side is produced. The other side is on time: its records carry their event times as
 * Kafka record times (appended when they happened), and one more record of it, an id of its own,
 * has the current time, so that side is up to date. The lagging side's records are appended now,
 * that is {@code lag} after their event times, in {@code bursts} parts; before each part after the
 * first, the job has read everything produced and then seen nothing for longer than {@code
 * --kafkaIdleAfter}, so the lagging partition is idle when its next records come. Both sides end
 * with one matching pair (its own id) far enough after the scenario that the lagging side's
 * watermark passes every scenario entry's expiry: the final verdicts come without waiting for the
 * wall clock.
 *
 * <p>The job must end with the generator's known verdicts (those of the same data fed on time),
 * nothing in late_events while the scenario is read (each side's records are on time for their own
 * partition: its disorder is within the bound), and then exactly the records a day old that the
 * test produces last.
 *
 * <p>The test compresses the wall clock: a burst carries minutes of event time while the quiet
 * spells between bursts last seconds. The watermark rule only compares the kept lag with the wall
 * clock, so a quiet spell of seconds past {@code --kafkaIdleAfter} meets the same rule as one of an
 * hour; only the margin differs.
 */
public final class LaggingSideCase {
  /** Which side is produced behind the other. */
  public enum Side {
    SOURCE("src", "--sourceLag="),
    TARGET("tgt", "--targetLag=");

    private final String topic;
    private final String lagOption;

    Side(String topic, String lagOption) {
      this.topic = topic;
      this.lagOption = lagOption;
    }
  }

  /** {@code --kafkaIdleAfter} of every case: short, so that quiet spells are cheap. */
  static final Duration IDLE_AFTER = Duration.ofSeconds(3);

  /** How long each quiet spell lasts after the job stored everything: well past IDLE_AFTER. */
  private static final Duration QUIET = IDLE_AFTER.multipliedBy(3);

  /** {@code --kafkaMaxOutOfOrderness}: the scenario's disorder is up to 30 s (a new version). */
  private static final Duration BOUND = Duration.ofSeconds(60);

  /** {@code --timeout}: short against the lags, longer than any id's spread (30 s). */
  private static final Duration TIMEOUT = Duration.ofMinutes(2);

  /**
   * With a declared lag the lagging side is produced once the job runs: the scenario is placed as
   * if that happens this long after the test starts, so its records are appended about the declared
   * lag behind their event times, not more, however long the job takes to start.
   */
  private static final Duration START_ALLOWANCE = Duration.ofSeconds(60);

  private static final Pattern EVENT_TIME = Pattern.compile("\"eventTime\":\"([^\"]+)\"");
  private static final Pattern ID = Pattern.compile("\"id\":\"[^\"]*\"");
  private static final int DAY_OLD = 3;

  private final CrashHarness.Launcher launcher;
  private final List<String> runnerOptions;
  private final Path dir;

  /**
   * @param runnerOptions the runner's options ({@code --runner=...} and what it needs)
   * @param dir where the broker, the warehouse and the job's log go
   */
  public LaggingSideCase(CrashHarness.Launcher launcher, List<String> runnerOptions, Path dir) {
    this.launcher = launcher;
    this.runnerOptions = List.copyOf(runnerOptions);
    this.dir = dir;
  }

  /**
   * Runs one case and asserts its outcome.
   *
   * @param lagging the side produced behind
   * @param lag how far behind its event times the lagging side is appended
   * @param declared the lag passed as {@code --sourceLag}/{@code --targetLag}, or null to let the
   *     job observe it
   * @param bursts in how many parts the lagging side comes, each after a quiet spell; with no
   *     declared lag the first part is in the topic before the job starts, so the job has read
   *     records of the side (and learned its lag) before the side's first quiet spell
   */
  public void run(Side lagging, Duration lag, Duration declared, int bursts) throws Exception {
    SampleGenerator g = SampleGenerator.generate(Scenario.SEED, Scenario.IDS);
    Side onTime = lagging == Side.SOURCE ? Side.TARGET : Side.SOURCE;
    Instant start = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    Instant firstEvent = start.minus(lag).plus(declared == null ? Duration.ZERO : START_ALLOWANCE);
    Duration shift = Duration.between(scenarioStart(g), firstEvent);
    Instant tailTime = firstEvent.plus(span(g)).plus(TIMEOUT).plus(BOUND).plusSeconds(30);
    String template =
        g.sourceLines().stream().filter(l -> l.contains("\"id\":\"ord-")).findFirst().orElseThrow();
    String tail = withIdAndTime(template, "tail-0", tailTime);

    List<String> onTimeLines = new ArrayList<>(shifted(lines(g, onTime), shift));
    onTimeLines.add(tail);
    onTimeLines.add(withIdAndTime(template, "head-0", start));
    List<String> laggingLines = new ArrayList<>(shifted(lines(g, lagging), shift));
    laggingLines.add(tail);
    List<List<String>> parts = split(laggingLines, bursts);

    Path wh = dir.resolve("warehouse");
    Path log = dir.resolve("run.log");
    List<String> args =
        new ArrayList<>(
            List.of(
                "--source=",
                "--target=",
                "--warehouse=" + wh,
                "--kafkaProperties=group.id=lag-" + UUID.randomUUID(),
                "--timeout=" + TIMEOUT.toSeconds() + "s",
                "--kafkaMaxOutOfOrderness=" + BOUND.toSeconds() + "s",
                "--kafkaIdleAfter=" + IDLE_AFTER.toSeconds() + "s",
                "--commitInterval=1s",
                "--progressInterval=10s"));
    if (declared != null) {
      args.add(lagging.lagOption + declared.toSeconds() + "s");
    }
    args.addAll(runnerOptions);
    // A control experiment: -Dstreamrecon.lagExtraArgs=--targetLag=0s gives the lagging target
    // the wall-clock rule, and the target cases must then fail.
    String extra = System.getProperty("streamrecon.lagExtraArgs", "");
    if (!extra.isBlank()) {
      args.addAll(List.of(extra.trim().split("\\s+")));
    }
    Process job = null;
    try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
      kafka.createTopics(Side.SOURCE.topic, Side.TARGET.topic);
      args.set(0, "--source=" + kafka.uri(Side.SOURCE.topic));
      args.set(1, "--target=" + kafka.uri(Side.TARGET.topic));
      produceOnTime(kafka, onTime.topic, onTimeLines);
      long produced = onTimeLines.size();
      int next = 0;
      if (declared == null) {
        kafka.produceLines(lagging.topic, parts.get(0));
        produced += parts.get(0).size();
        next = 1;
      }
      job = launcher.start(args, log, null, List.of());
      Process p = job;
      for (; next <= parts.size(); next++) {
        long stored = produced;
        ChildProcesses.await(
            "the job stored the " + stored + " records produced so far",
            240,
            p,
            log,
            () -> CrashHarness.stored(wh) >= stored,
            () -> "stored " + CrashHarness.stored(wh));
        if (next == parts.size()) {
          break;
        }
        // The quiet spell is the case's input: the lagging partition, read to its end, turns idle
        // after --kafkaIdleAfter and its watermark follows the wall clock minus its kept lag.
        Instant quietUntil = Instant.now().plus(QUIET);
        ChildProcesses.await(
            "a quiet spell of " + QUIET.toSeconds() + " s",
            QUIET.toSeconds() + 5,
            p,
            log,
            () -> !Instant.now().isBefore(quietUntil));
        kafka.produceLines(lagging.topic, parts.get(next));
        produced += parts.get(next).size();
      }

      Scenario expected = Scenario.of(g);
      ChildProcesses.await(
          "the verdicts of the same data fed on time",
          240,
          p,
          log,
          () -> verdictsAsExpected(expected, wh),
          () -> verdictsAgainst(expected, wh) + lateSample(wh));
      assertEquals(
          "late events of records on time for their own partition" + lateSample(wh),
          Set.of(),
          lateIds(wh));

      List<String> dayOld = new ArrayList<>();
      for (int i = 0; i < DAY_OLD; i++) {
        dayOld.add(
            withIdAndTime(template, "day-old-" + i, Instant.now().minus(Duration.ofDays(1))));
      }
      kafka.produceLines(Side.SOURCE.topic, dayOld);
      ChildProcesses.await(
          "the day-old records in late_events",
          120,
          p,
          log,
          () -> lateIds(wh).size() >= DAY_OLD,
          () -> "late_events holds " + lateIds(wh));
      assertEquals(Set.of("day-old-0", "day-old-1", "day-old-2"), lateIds(wh));
      expected.assertExpected(wh);
    } finally {
      ChildProcesses.kill(job);
    }
  }

  private static List<String> lines(SampleGenerator g, Side side) {
    return side == Side.SOURCE ? g.sourceLines() : g.targetLines();
  }

  /** The earliest event time of the generated scenario. */
  private static Instant scenarioStart(SampleGenerator g) {
    Instant first = null;
    for (List<String> side : List.of(g.sourceLines(), g.targetLines())) {
      for (String l : side) {
        Instant t = eventTime(l);
        if (t != null && (first == null || t.isBefore(first))) {
          first = t;
        }
      }
    }
    return first;
  }

  /** From the scenario's first event time to its last. */
  private static Duration span(SampleGenerator g) {
    Instant last = scenarioStart(g);
    for (List<String> side : List.of(g.sourceLines(), g.targetLines())) {
      for (String l : side) {
        Instant t = eventTime(l);
        if (t != null && t.isAfter(last)) {
          last = t;
        }
      }
    }
    return Duration.between(scenarioStart(g), last);
  }

  private static List<String> shifted(List<String> lines, Duration shift) {
    List<String> out = new ArrayList<>();
    for (String l : lines) {
      Instant t = eventTime(l);
      out.add(
          t == null
              ? l
              : EVENT_TIME
                  .matcher(l)
                  .replaceFirst(
                      Matcher.quoteReplacement("\"eventTime\":\"" + t.plus(shift) + "\"")));
    }
    return out;
  }

  private static String withIdAndTime(String template, String id, Instant t) {
    String line =
        ID.matcher(template).replaceFirst(Matcher.quoteReplacement("\"id\":\"" + id + "\""));
    return EVENT_TIME
        .matcher(line)
        .replaceFirst(
            Matcher.quoteReplacement("\"eventTime\":\"" + t.truncatedTo(ChronoUnit.MILLIS) + "\""));
  }

  private static Instant eventTime(String line) {
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

  /** {@code lines} in {@code n} consecutive parts of about equal size. */
  private static List<List<String>> split(List<String> lines, int n) {
    List<List<String>> parts = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      parts.add(lines.subList(i * lines.size() / n, (i + 1) * lines.size() / n));
    }
    return parts;
  }

  /**
   * Appends the lines with their event times as Kafka record times, as if each had been appended
   * when it happened (a line without a readable time: with the time of the line before it).
   */
  private static void produceOnTime(EmbeddedKafka kafka, String topic, List<String> lines) {
    Map<String, Object> config =
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            kafka.bootstrapServers(),
            ProducerConfig.ACKS_CONFIG,
            "all",
            ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
            true,
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
            ByteArraySerializer.class,
            ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
            ByteArraySerializer.class);
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config)) {
      Instant last = null;
      for (String l : lines) {
        Instant t = eventTime(l);
        last = t != null ? t : last;
        producer.send(
            new ProducerRecord<>(
                topic,
                null,
                last == null ? null : last.toEpochMilli(),
                null,
                l.getBytes(StandardCharsets.UTF_8)));
      }
      producer.flush();
    }
  }

  private static boolean verdictsAsExpected(Scenario expected, Path wh) {
    try {
      expected.assertExpected(wh);
      return true;
    } catch (AssertionError | RuntimeException e) {
      return false;
    }
  }

  private static String verdictsAgainst(Scenario expected, Path wh) {
    try {
      expected.assertExpected(wh);
      return "final verdicts as expected";
    } catch (AssertionError | RuntimeException e) {
      return "final verdicts differ from the generator's: " + e.getMessage();
    }
  }

  private static Set<String> lateIds(Path wh) {
    Set<String> ids = new TreeSet<>();
    if (!Files.isDirectory(wh.resolve(WarehouseTables.LATE_EVENTS).resolve("_delta_log"))) {
      return ids;
    }
    try {
      for (LateEvent l : DeltaLakeTables.readLateEvents(wh.toString())) {
        ids.add(l.event().naturalId());
      }
    } catch (RuntimeException e) {
      // A log being written right now: read again at the next poll.
    }
    return ids;
  }

  /** A few late events with the watermark each missed: says which clock moved past them. */
  private static String lateSample(Path wh) {
    if (!Files.isDirectory(wh.resolve(WarehouseTables.LATE_EVENTS).resolve("_delta_log"))) {
      return "";
    }
    try {
      List<String> sample =
          DeltaLakeTables.readLateEvents(wh.toString()).stream()
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
      return sample.isEmpty() ? "" : "\nlate events (first 5): " + sample;
    } catch (RuntimeException e) {
      return "";
    }
  }
}
