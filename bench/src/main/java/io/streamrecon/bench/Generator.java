package io.streamrecon.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Deterministic generator of a source and a target stream as JSON Lines files, with the verdicts a
 * correct reconciler must report ({@link Expected}).
 *
 * <p>Layout: {@code <dir>/source/part-NNNNN.jsonl}, {@code <dir>/target/part-NNNNN.jsonl} and
 * {@code <dir>/expected.json}. File i of each side holds the events that arrive between the event
 * times of record {@code i * recordsPerFile} and record {@code (i + 1) * recordsPerFile}: both
 * sides have the same number of files, so a streaming reader that takes file i of both sides in
 * micro-batch i keeps the sides aligned. File modification times rise with i, since Spark's file
 * source orders by them.
 *
 * <p>Each line is one JSON object: {@code id}, {@code eventTime} (ISO-8601, UTC offset), then
 * payload fields. The target writes the same record with its keys in another order and amounts with
 * trailing zeros, so a match is only a match under canonical comparison
 * (docs/design.md#canonical-hash).
 *
 * <p>Records are generated in event-time order and written through a priority queue keyed by
 * arrival time (event time plus a uniform delay up to {@link GeneratorConfig#disorder}), which
 * keeps memory bounded whatever N is.
 */
public final class Generator {
  static final String SOURCE_DIR = "source";
  static final String TARGET_DIR = "target";
  static final String EXPECTED = "expected.json";
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final String[] STATUSES = {"OPEN", "SHIPPED", "PAID", "CLOSED"};
  private static final String[] CITIES = {"Lyon", "Porto", "Graz", "Turku", "Gent", "Brno", "Cork"};
  private static final String[] CURRENCIES = {"EUR", "USD", "CHF", "SEK"};
  private static final char[] LETTERS =
      "abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".toCharArray();

  private final GeneratorConfig config;

  public Generator(GeneratorConfig config) {
    this.config = config;
  }

  private enum Kind {
    MATCH,
    MISMATCH,
    MISSING_IN_TARGET,
    MISSING_IN_SOURCE,
    LATE
  }

  /** One line waiting in the arrival queue. */
  private record Pending(long arrivalMillis, long seq, boolean source, byte[] line) {}

  /** Writes the files and {@code expected.json} into {@code dir} (created; must be empty). */
  public Expected generate(Path dir) throws IOException {
    Files.createDirectories(dir.resolve(SOURCE_DIR));
    Files.createDirectories(dir.resolve(TARGET_DIR));
    try (Stream<Path> existing = Files.list(dir.resolve(SOURCE_DIR))) {
      if (existing.findAny().isPresent()) {
        throw new IllegalArgumentException(dir + " already holds generated files");
      }
    }
    int n = config.records();
    long startMillis = config.start().toEpochMilli();
    long[] times = new long[n];
    String[] ids = new String[n];
    long distinct = assignIdsAndTimes(ids, times, startMillis);
    Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    Arrays.sort(order, Comparator.comparingLong((Integer i) -> times[i]).thenComparingInt(i -> i));

    int per = config.recordsPerFile();
    long[] bounds = new long[(n + per - 1) / per];
    for (int j = 0; j < bounds.length; j++) {
      bounds[j] = times[order[j * per]];
    }
    long versionSpread = config.versionSpread().toMillis();
    long lateSlack = config.disorder().toMillis() + config.watermarkDelay().toMillis() + 1000;
    Counter c = new Counter();
    PriorityQueue<Pending> queue =
        new PriorityQueue<>(
            Comparator.comparingLong(Pending::arrivalMillis).thenComparingLong(Pending::seq));
    Writers writers = new Writers(dir, bounds);
    try {
      long seq = 0;
      for (int idx : order) {
        long t = times[idx];
        // Every event still to come arrives at or after t - versionSpread: flush what is earlier.
        while (!queue.isEmpty() && queue.peek().arrivalMillis() < t - versionSpread) {
          writers.write(queue.poll(), c);
        }
        SplittableRandom r = new SplittableRandom(config.seed() * 0x9E3779B97F4A7C15L + idx);
        Kind kind = kind(r.nextDouble());
        double mod = r.nextDouble();
        long arrivalS = t + delay(r);
        long arrivalT = t + delay(r);
        long eventTime = t;
        if (kind == Kind.LATE) {
          // Late for a reader that processes file i of both sides in micro-batch i. Spark (3.4+)
          // drops late rows against the watermark of the batch before, which is at least the
          // start of file i-2 minus disorder and delay.
          int first = Writers.chunkOf(bounds, Math.min(arrivalS, arrivalT));
          int last = Writers.chunkOf(bounds, Math.max(arrivalS, arrivalT));
          if (first >= 2 && last + 1 < bounds.length) {
            eventTime = t - (bounds[last + 1] - bounds[first - 2] + lateSlack);
          } else {
            kind = Kind.MATCH;
          }
        }
        // A late record stays plain: its events are late in streaming, whatever else they are.
        boolean duplicate = kind != Kind.LATE && mod < config.duplicateShare();
        boolean newVersion =
            kind != Kind.LATE
                && !duplicate
                && mod < config.duplicateShare() + config.newVersionShare();
        String id = kind == Kind.LATE ? "late-" + idx : ids[idx];
        ObjectNode base = payload(id, eventTime, r);
        boolean hasSource = kind != Kind.MISSING_IN_SOURCE;
        boolean hasTarget = kind != Kind.MISSING_IN_TARGET;
        ObjectNode target = base;
        if (kind == Kind.MISMATCH) {
          target = mutate(base, r);
        }
        List<Pending> events = new ArrayList<>(4);
        if (hasSource) {
          events.add(new Pending(arrivalS, seq++, true, sourceLine(base)));
        }
        if (hasTarget) {
          events.add(new Pending(arrivalT, seq++, false, targetLine(target)));
        }
        if (duplicate) {
          Pending original = events.get(r.nextInt(events.size()));
          events.add(new Pending(t + delay(r), seq++, original.source(), original.line()));
          c.duplicates++;
        } else if (newVersion) {
          boolean onSource = hasSource;
          long earlier = eventTime - 1000 - r.nextLong(Math.max(1, versionSpread - 1000));
          ObjectNode draft = (onSource ? base : target).deepCopy();
          draft.put("eventTime", iso(earlier));
          draft.put("status", "DRAFT");
          byte[] line = onSource ? sourceLine(draft) : targetLine(draft);
          events.add(new Pending(earlier + delay(r), seq++, onSource, line));
          c.earlierVersions++;
        }
        queue.addAll(events);
        c.count(kind);
      }
      while (!queue.isEmpty()) {
        writers.write(queue.poll(), c);
      }
    } finally {
      writers.close();
    }
    VerdictCounts batch =
        new VerdictCounts(
            c.match + c.late, c.mismatch, c.missingInTarget, c.missingInSource, c.duplicates, 0);
    VerdictCounts streaming =
        new VerdictCounts(
            c.match, c.mismatch, c.missingInTarget, c.missingInSource, c.duplicates, 2 * c.late);
    Expected expected =
        new Expected(
            n,
            distinct + c.late,
            c.sourceEvents,
            c.targetEvents,
            c.bytes,
            writers.files(),
            c.duplicates,
            c.earlierVersions,
            batch,
            streaming,
            config);
    expected.write(dir.resolve(EXPECTED));
    return expected;
  }

  private long delay(SplittableRandom r) {
    long d = config.disorder().toMillis();
    return d == 0 ? 0 : r.nextLong(d + 1);
  }

  private Kind kind(double u) {
    double x = config.mismatchShare();
    if (u < x) {
      return Kind.MISMATCH;
    }
    x += config.missingInTargetShare();
    if (u < x) {
      return Kind.MISSING_IN_TARGET;
    }
    x += config.missingInSourceShare();
    if (u < x) {
      return Kind.MISSING_IN_SOURCE;
    }
    x += config.lateShare();
    if (u < x) {
      return Kind.LATE;
    }
    return Kind.MATCH;
  }

  /**
   * Uniform: record i has id {@code k<i>} and event time start + i * spacing. Zipf: ids drawn from
   * a Zipf law; the j-th record of an id is its j-th episode, {@link GeneratorConfig#episodeGap()}
   * after the previous one, so that one id never has two episodes inside one pairing timeout.
   */
  private long assignIdsAndTimes(String[] ids, long[] times, long startMillis) {
    int n = ids.length;
    long spacing = config.spacing().toMillis();
    if (config.skew() == GeneratorConfig.Skew.UNIFORM) {
      for (int i = 0; i < n; i++) {
        ids[i] = "k" + i;
        times[i] = startMillis + i * spacing;
      }
      return n;
    }
    int keys = config.zipfKeys() == 0 ? Math.max(1, n / 4) : config.zipfKeys();
    double[] cumulative = new double[keys];
    double sum = 0;
    for (int k = 0; k < keys; k++) {
      sum += 1.0 / Math.pow(k + 1, config.zipfExponent());
      cumulative[k] = sum;
    }
    SplittableRandom r = new SplittableRandom(config.seed());
    long span = Math.max(1, n * spacing);
    long gap = config.episodeGap().toMillis();
    Map<Integer, long[]> next = new HashMap<>();
    for (int i = 0; i < n; i++) {
      int pos = Arrays.binarySearch(cumulative, r.nextDouble() * sum);
      int k = Math.min(keys - 1, pos >= 0 ? pos : -pos - 1);
      ids[i] = "z" + k;
      long[] slot = next.get(k);
      if (slot == null) {
        // the first episode of an id starts anywhere in the uniform run's span
        slot = new long[] {startMillis + new SplittableRandom(config.seed() + k).nextLong(span)};
        next.put(k, slot);
      }
      times[i] = slot[0];
      slot[0] += gap;
    }
    return next.size();
  }

  private ObjectNode payload(String id, long eventTime, SplittableRandom r) {
    JsonNodeFactory f = JsonNodeFactory.instance;
    ObjectNode o = f.objectNode();
    o.put("id", id);
    o.put("eventTime", iso(eventTime));
    ObjectNode customer = o.putObject("customer");
    customer.put("name", "Customer " + r.nextInt(1_000_000));
    customer.put("city", CITIES[r.nextInt(CITIES.length)]);
    customer.put("zip", String.format("%05d", r.nextInt(100_000)));
    o.put("amount", BigDecimal.valueOf(r.nextLong(1, 10_000_000), 2).stripTrailingZeros());
    o.put("currency", CURRENCIES[r.nextInt(CURRENCIES.length)]);
    o.put("status", STATUSES[r.nextInt(STATUSES.length)]);
    ArrayNode items = o.putArray("items");
    int itemCount = 1 + r.nextInt(3);
    for (int j = 0; j < itemCount; j++) {
      ObjectNode item = items.addObject();
      item.put("sku", "SKU-" + r.nextInt(100_000));
      item.put("qty", 1 + r.nextInt(20));
    }
    int size = payloadSize(r);
    int used = o.toString().length() + 12;
    StringBuilder note = new StringBuilder(Math.max(0, size - used));
    for (int j = used; j < size; j++) {
      note.append(LETTERS[r.nextInt(LETTERS.length)]);
    }
    o.put("note", note.toString());
    return o;
  }

  /** Log-uniform between the configured bounds: many small payloads, some large. */
  private int payloadSize(SplittableRandom r) {
    double lo = Math.log(config.payloadMinBytes());
    double hi = Math.log(config.payloadMaxBytes());
    return (int) Math.round(Math.exp(lo + (hi - lo) * r.nextDouble()));
  }

  /** A copy of {@code base} with 1 to 3 fields changed. */
  private static ObjectNode mutate(ObjectNode base, SplittableRandom r) {
    ObjectNode t = base.deepCopy();
    int changes = 1 + r.nextInt(3);
    List<Integer> fields = new ArrayList<>(List.of(0, 1, 2, 3, 4, 5));
    for (int c = 0; c < changes; c++) {
      int field = fields.remove(r.nextInt(fields.size()));
      switch (field) {
        case 0 -> t.put("status", "DISPUTED");
        case 1 -> t.put("amount", t.get("amount").decimalValue().add(BigDecimal.ONE));
        case 2 -> ((ObjectNode) t.get("customer")).put("city", "Elsewhere");
        case 3 -> ((ObjectNode) t.get("items").get(0)).put("qty", 999);
        case 4 -> t.put("currency", "XXX");
        default -> t.put("note", t.get("note").asText() + "!");
      }
    }
    return t;
  }

  private static byte[] sourceLine(ObjectNode o) {
    return o.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** Same content, other key order, amounts with two decimals: equal only canonically. */
  private static byte[] targetLine(ObjectNode o) {
    ObjectNode t = JsonNodeFactory.instance.objectNode();
    t.set("id", o.get("id"));
    t.set("eventTime", o.get("eventTime"));
    List<String> names = new ArrayList<>();
    o.fieldNames().forEachRemaining(names::add);
    for (int i = names.size() - 1; i >= 0; i--) {
      String name = names.get(i);
      if (!name.equals("id") && !name.equals("eventTime")) {
        JsonNode v = o.get(name);
        if (name.equals("amount")) {
          v =
              JsonNodeFactory.instance.numberNode(
                  v.decimalValue().setScale(2, RoundingMode.UNNECESSARY));
        }
        t.set(name, v);
      }
    }
    return t.toString().getBytes(StandardCharsets.UTF_8);
  }

  static String iso(long millis) {
    return DateTimeFormatter.ISO_INSTANT.format(Instant.ofEpochMilli(millis));
  }

  /** Counts kept while generating. */
  private static final class Counter {
    long match;
    long mismatch;
    long missingInTarget;
    long missingInSource;
    long late;
    long duplicates;
    long earlierVersions;
    long sourceEvents;
    long targetEvents;
    long bytes;

    void count(Kind kind) {
      switch (kind) {
        case MATCH -> match++;
        case MISMATCH -> mismatch++;
        case MISSING_IN_TARGET -> missingInTarget++;
        case MISSING_IN_SOURCE -> missingInSource++;
        case LATE -> late++;
      }
    }
  }

  /** One output file per side per chunk of arrival time; both sides get every chunk's file. */
  private static final class Writers {
    // Fixed, so that the same config writes the same files, modification times included.
    private static final long MTIME_BASE = Instant.parse("2026-01-01T00:00:00Z").toEpochMilli();
    private final Path dir;
    private final long[] bounds;
    private int chunk = -1;
    private OutputStream source;
    private OutputStream target;

    Writers(Path dir, long[] bounds) {
      this.dir = dir;
      this.bounds = bounds;
    }

    /** The chunk whose span holds an arrival time. */
    static int chunkOf(long[] bounds, long arrival) {
      int pos = Arrays.binarySearch(bounds, arrival);
      return Math.max(0, pos >= 0 ? pos : -pos - 2);
    }

    void write(Pending p, Counter c) throws IOException {
      int wanted = chunkOf(bounds, p.arrivalMillis());
      while (chunk < wanted) {
        roll();
      }
      OutputStream out = p.source() ? source : target;
      out.write(p.line());
      out.write('\n');
      c.bytes += p.line().length;
      if (p.source()) {
        c.sourceEvents++;
      } else {
        c.targetEvents++;
      }
    }

    private void roll() throws IOException {
      closeFiles();
      chunk++;
      String name = String.format("part-%05d.jsonl", chunk);
      source =
          new BufferedOutputStream(
              Files.newOutputStream(dir.resolve(SOURCE_DIR).resolve(name)), 1 << 16);
      target =
          new BufferedOutputStream(
              Files.newOutputStream(dir.resolve(TARGET_DIR).resolve(name)), 1 << 16);
    }

    int files() {
      return chunk + 1;
    }

    private void closeFiles() throws IOException {
      if (source != null) {
        source.close();
        target.close();
        String name = String.format("part-%05d.jsonl", chunk);
        FileTime mtime = FileTime.fromMillis(MTIME_BASE + chunk * 1000L);
        Files.setLastModifiedTime(dir.resolve(SOURCE_DIR).resolve(name), mtime);
        Files.setLastModifiedTime(dir.resolve(TARGET_DIR).resolve(name), mtime);
      }
    }

    void close() throws IOException {
      while (chunk < bounds.length - 1) {
        roll();
      }
      closeFiles();
    }
  }

  /**
   * Sends the generated files to Kafka: for each chunk, the source file's lines to {@code
   * sourceTopic}, then the target file's to {@code targetTopic}, keyed by natural id. Returns the
   * number of records sent.
   */
  public static long produce(
      Path dir, Producer<String, String> producer, String sourceTopic, String targetTopic)
      throws IOException {
    List<Path> sources = files(dir.resolve(SOURCE_DIR));
    List<Path> targets = files(dir.resolve(TARGET_DIR));
    long sent = 0;
    List<Future<RecordMetadata>> inFlight = new ArrayList<>();
    for (int i = 0; i < sources.size(); i++) {
      sent += send(sources.get(i), sourceTopic, producer, inFlight);
      sent += send(targets.get(i), targetTopic, producer, inFlight);
    }
    producer.flush();
    for (Future<RecordMetadata> f : inFlight) {
      try {
        f.get(60, TimeUnit.SECONDS);
      } catch (Exception e) {
        throw new IOException("a record was not acknowledged by Kafka", e);
      }
    }
    return sent;
  }

  private static long send(
      Path file,
      String topic,
      Producer<String, String> producer,
      List<Future<RecordMetadata>> inFlight)
      throws IOException {
    long sent = 0;
    try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      for (String line = reader.readLine(); line != null; line = reader.readLine()) {
        String key = MAPPER.readTree(line).path("id").asText();
        inFlight.add(producer.send(new ProducerRecord<>(topic, key, line)));
        sent++;
      }
    }
    Iterator<Future<RecordMetadata>> it = inFlight.iterator();
    while (it.hasNext()) {
      if (it.next().isDone()) {
        it.remove();
      }
    }
    return sent;
  }

  /** The JSON Lines files of one side, in chunk order. */
  public static List<Path> files(Path sideDir) throws IOException {
    try (Stream<Path> s = Files.list(sideDir)) {
      return s.filter(p -> p.getFileName().toString().endsWith(".jsonl")).sorted().toList();
    }
  }
}
