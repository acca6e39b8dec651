package io.streamrecon.pipeline.run;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamrecon.deltalake.VerdictScan;
import io.streamrecon.deltalake.WarehouseIds;
import io.streamrecon.deltalake.WarehouseTables;
import io.streamrecon.model.EventRef;
import io.streamrecon.model.MetricNames;
import io.streamrecon.model.Side;
import io.streamrecon.model.StoredEvent;
import io.streamrecon.pipeline.DurationParser;
import io.streamrecon.pipeline.ReconcilePipeline;
import io.streamrecon.pipeline.ReconcileSettings;
import io.streamrecon.pipeline.records.JsonRecords;
import io.streamrecon.transforms.Diff;
import io.streamrecon.transforms.ModelCoders;
import io.streamrecon.transforms.RehashEvents;
import io.streamrecon.transforms.deltalake.DeltaLakeIO;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.coders.VoidCoder;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.MetricNameFilter;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.metrics.MetricsFilter;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.apache.hadoop.fs.Path;

/**
 * A replay's run, beside {@link ReconcileRun}: judges stored events again, without reading the
 * sources. Reads the selected rows of {@code raw_events} ({@link DeltaLakeIO#readRawEvents()}),
 * hashes their payloads again under the replay's rules ({@link RehashEvents}) and runs them through
 * the judging half of a run ({@link ReconcilePipeline#judge}); the DeltaRecords carry the replay's
 * own run id. Then it compares, per natural id, the replay's final verdict with the final verdict
 * of the runs it re-judged ({@link VerdictTransitions}), and records what it replayed under {@code
 * <warehouse>/_replays/<replayId>.json} (see docs/replay.md).
 */
public final class ReplayRun {
  /** The directory of the replays' records, outside every table. */
  public static final String RECORDS_DIR = "_replays";

  /** Counter name prefix of the events read per run that stored them. */
  static final String EVENTS_OF_RUN = "replay_events_of_run:";

  /** Counter of the distinct natural ids the replay judged. */
  static final String NATURAL_IDS = "replay_natural_ids";

  private ReplayRun() {}

  /**
   * Checks the warehouse, runs a replay to its end, compares its verdicts and writes its record.
   */
  public static FinishedReplay run(ReplaySettings r) {
    ReconcileSettings s = r.run();
    Warehouse.of(s.warehouse()).requireTable(WarehouseTables.RAW_EVENTS);
    // A replay appends to deltas: only to a table streamrecon wrote.
    Warehouse.of(s.warehouse()).requireOwnTables(WarehouseTables.TABLES);
    ReconcileRun.tune(r.options());
    RulesArchive.save(s.warehouse(), s.rules());
    String started = java.time.Instant.now().toString();
    Pipeline pipeline = Pipeline.create(r.options());
    build(pipeline, r, ReconcilePipeline.WriterIdentity.perProcess(s.runId()));
    PipelineResult result = pipeline.run();
    result.waitUntilFinish();
    Summary summary = Summary.of(result);
    Map<String, Long> perRun = eventsPerRun(result);
    long naturalIds = counter(result, NATURAL_IDS);
    Map<String, Long> transitions = Map.of();
    Set<String> rulesBefore = new java.util.TreeSet<>();
    if (result.getState() == PipelineResult.State.DONE) {
      ReconcileRun.removeRowKeySidecars(s);
      List<String> rejudged = r.runIds().isEmpty() ? List.copyOf(perRun.keySet()) : r.runIds();
      transitions = transitions(r, rejudged, naturalIds, rulesBefore);
    }
    FinishedReplay finished =
        new FinishedReplay(
            r, result.getState(), summary, perRun, naturalIds, transitions, rulesBefore);
    writeRecord(r, finished, started);
    return finished;
  }

  /**
   * The replay's graph: read and hash the stored events again, then the judging half of a run.
   * Stored payloads that cannot be hashed go to {@code dead_letters}, as in a run.
   */
  static Pipeline build(
      Pipeline pipeline, ReplaySettings r, ReconcilePipeline.WriterIdentity writer) {
    ReconcileSettings s = r.run();
    PCollection<StoredEvent> read =
        pipeline
            .apply(
                "ReadRawEvents",
                DeltaLakeIO.readRawEvents()
                    .withWarehouse(s.warehouse())
                    .withRunIds(r.runIds())
                    .withNaturalIds(r.naturalIds())
                    .withEventTimeRange(r.since(), r.until()))
            .apply("CountStoredEvents", ParDo.of(new CountStoredEventsFn()))
            .setCoder(ModelCoders.StoredEventCoder.of());
    PCollectionTuple hashed =
        read.apply(
            "RehashEvents",
            RehashEvents.create().withIgnoreFields(s.ignoreFields()).withRules(s.rules()));
    ReconcilePipeline.writeDeadLetters(hashed.get(RehashEvents.DEAD_LETTERS), s, writer);
    PCollection<EventRef> events = hashed.get(RehashEvents.EVENTS);
    ReconcilePipeline.countRawEvents(events);
    // Counted per bucket of ids, as PairEvents keys them: one key per natural id costs the
    // DirectRunner a timer per key, and it scans every pending timer on each watermark refresh.
    int buckets = s.pairingBuckets();
    events
        .apply(
            "NaturalIds",
            MapElements.into(
                    TypeDescriptors.kvs(TypeDescriptors.integers(), TypeDescriptors.strings()))
                .via(e -> KV.of(Math.floorMod(e.naturalId().hashCode(), buckets), e.naturalId())))
        .setCoder(KvCoder.of(VarIntCoder.of(), StringUtf8Coder.of()))
        .apply("GroupNaturalIds", GroupByKey.create())
        .apply("CountNaturalIds", ParDo.of(new CountDistinctFn(NATURAL_IDS)))
        .setCoder(VoidCoder.of());
    ReconcilePipeline.judge(events, s, writer);
    return pipeline;
  }

  /**
   * Counts the stored events read, per side (as a run counts its input) and per run that stored
   * them (which tells the replay the runs it re-judged).
   */
  static final class CountStoredEventsFn extends DoFn<StoredEvent, StoredEvent> {
    private final Map<Side, Counter> perSide = new EnumMap<>(Side.class);
    private transient Map<String, Counter> perRun;

    CountStoredEventsFn() {
      for (Side side : Side.values()) {
        perSide.put(side, Metrics.counter(MetricNames.NAMESPACE, MetricNames.input(side)));
      }
    }

    @ProcessElement
    public void process(@Element StoredEvent e, OutputReceiver<StoredEvent> out) {
      perSide.get(e.ref().side()).inc();
      if (perRun == null) {
        perRun = new java.util.HashMap<>();
      }
      perRun
          .computeIfAbsent(
              e.runId(), r -> Metrics.counter(MetricNames.NAMESPACE, EVENTS_OF_RUN + r))
          .inc();
      out.output(e);
    }
  }

  /** Counts the distinct values of each group under one name. */
  static final class CountDistinctFn extends DoFn<KV<Integer, Iterable<String>>, Void> {
    private final Counter counter;

    CountDistinctFn(String name) {
      counter = Metrics.counter(MetricNames.NAMESPACE, name);
    }

    @ProcessElement
    public void process(@Element KV<Integer, Iterable<String>> group) {
      Set<String> distinct = new HashSet<>();
      for (String v : group.getValue()) {
        distinct.add(v);
      }
      counter.inc(distinct.size());
    }
  }

  private static Map<String, Long> eventsPerRun(PipelineResult result) {
    Map<String, Long> perRun = new TreeMap<>();
    for (MetricResult<Long> c : counters(result)) {
      String name = c.getName().getName();
      if (name.startsWith(EVENTS_OF_RUN)) {
        perRun.merge(name.substring(EVENTS_OF_RUN.length()), Summary.counterValue(c), Long::sum);
      }
    }
    return perRun;
  }

  private static long counter(PipelineResult result, String name) {
    long sum = 0;
    for (MetricResult<Long> c : counters(result)) {
      if (c.getName().getName().equals(name)) {
        sum += Summary.counterValue(c);
      }
    }
    return sum;
  }

  private static Iterable<MetricResult<Long>> counters(PipelineResult result) {
    return result
        .metrics()
        .queryMetrics(
            MetricsFilter.builder()
                .addNameFilter(MetricNameFilter.inNamespace(MetricNames.NAMESPACE))
                .build())
        .getCounters();
  }

  /**
   * Compares the final verdicts per natural id: the re-judged runs' records (restricted to the
   * replay's natural ids and window) against the replay's.
   */
  static Map<String, Long> transitions(
      ReplaySettings r, List<String> rejudged, long naturalIds, Set<String> rulesBefore) {
    VerdictTransitions t = new VerdictTransitions();
    Set<String> ids = new HashSet<>(r.naturalIds());
    Set<String> runs = new HashSet<>(rejudged);
    runs.add(r.replayId());
    VerdictScan.scan(
        r.run().warehouse(),
        runs,
        row -> {
          if (row.runId().equals(r.replayId())) {
            t.addAfter(row);
          } else if ((ids.isEmpty() || ids.contains(row.naturalId())) && inWindow(r, row)) {
            t.addBefore(row);
            if (row.rulesId() != null) {
              rulesBefore.add(row.rulesId());
            }
          }
        });
    t.afterEmitsMatches(r.run().emitMatches());
    return t.count(naturalIds);
  }

  private static boolean inWindow(ReplaySettings r, VerdictScan.Row row) {
    return inWindow(r, row.sourceEventTime()) || inWindow(r, row.targetEventTime());
  }

  private static boolean inWindow(ReplaySettings r, org.joda.time.Instant t) {
    return t != null
        && (r.since() == null || !t.isBefore(r.since()))
        && (r.until() == null || t.isBefore(r.until()));
  }

  /**
   * A finished replay: its settings, Beam's final state, the counts, the stored events read per
   * re-judged run, the natural ids judged, the verdict transitions and the rules ids of the
   * re-judged verdicts.
   */
  public record FinishedReplay(
      ReplaySettings settings,
      PipelineResult.State state,
      Summary summary,
      Map<String, Long> eventsPerRun,
      long naturalIds,
      Map<String, Long> transitions,
      Set<String> rulesBefore) {

    /** The stored events read, over both sides. */
    public long eventsRead() {
      return summary.input();
    }

    /** stored events read = dead letters + events judged; events judged = their ends. */
    public boolean addsUp() {
      return summary.addsUp();
    }

    /** The report the {@code replay} command prints. */
    public String format() {
      ReplaySettings r = settings;
      StringBuilder b = new StringBuilder();
      b.append("streamrecon replay ").append(r.replayId()).append('\n');
      b.append("  selected: ").append(selection(r)).append('\n');
      b.append("  rules: ")
          .append(r.run().rules().id() == null ? "none" : r.run().rules().id())
          .append(
              r.run().ignoreFields().isEmpty() ? "" : ", ignoreFields " + r.run().ignoreFields())
          .append(", timeout ")
          .append(DurationParser.format(r.run().timeout()))
          .append(", allowedLateness ")
          .append(DurationParser.format(r.run().allowedLateness()))
          .append('\n');
      b.append("  re-judged runs (stored events read):\n");
      eventsPerRun.forEach(
          (run, n) -> b.append(String.format(Locale.ROOT, "    %-40s %,12d%n", run, n)));
      row(b, "stored events read, source", summary.get(MetricNames.input(Side.SOURCE)));
      row(b, "stored events read, target", summary.get(MetricNames.input(Side.TARGET)));
      row(b, "dead letters (not hashable)", summary.deadLetters());
      row(b, "events judged", summary.raw());
      row(b, "match", summary.match());
      if (summary.get(Diff.MATCH_WITHIN_TOLERANCE) > 0) {
        row(b, "  of which within tolerance", summary.get(Diff.MATCH_WITHIN_TOLERANCE));
      }
      row(b, "mismatch", summary.mismatch());
      row(b, "missing in target", summary.get("missing_in_target"));
      row(b, "missing in source", summary.get("missing_in_source"));
      row(b, "duplicate", summary.get("duplicate"));
      row(b, "superseded", summary.get("superseded"));
      row(b, "late", summary.get("late"));
      row(b, "events in verdicts", summary.get("events_in_verdicts"));
      if (addsUp()) {
        b.append(
            String.format(
                Locale.ROOT,
                "counts add up: stored events read %d = dead letters %d + events judged %d;"
                    + " events judged = late + duplicate + superseded + events in verdicts%n",
                summary.input(),
                summary.deadLetters(),
                summary.raw()));
      } else {
        b.append("!!!!!!!! WARNING: COUNTS DO NOT ADD UP !!!!!!!!\n");
        b.append(
            String.format(
                Locale.ROOT,
                "!!! stored events read %d, dead letters %d, events judged %d, late %d,"
                    + " duplicate %d, superseded %d, events in verdicts %d%n",
                summary.input(),
                summary.deadLetters(),
                summary.raw(),
                summary.get("late"),
                summary.get("duplicate"),
                summary.get("superseded"),
                summary.get("events_in_verdicts")));
      }
      b.append(
          String.format(
              Locale.ROOT,
              "verdicts per natural id, re-judged runs → replay (%,d ids judged):%n",
              naturalIds));
      if (transitions.isEmpty()) {
        b.append("  (none)\n");
      }
      transitions.forEach(
          (label, n) -> b.append(String.format(Locale.ROOT, "  %-40s %,12d%n", label, n)));
      b.append("replay recorded in ")
          .append(recordPath(r.run().warehouse(), r.replayId()))
          .append('\n');
      return b.toString();
    }
  }

  private static void row(StringBuilder b, String label, long value) {
    b.append(String.format(Locale.ROOT, "  %-30s %,12d%n", label, value));
  }

  static String selection(ReplaySettings r) {
    List<String> parts = new ArrayList<>();
    parts.add(r.runIds().isEmpty() ? "every run" : "runs " + String.join(",", r.runIds()));
    if (r.since() != null || r.until() != null) {
      parts.add(
          "event time "
              + (r.since() == null ? "from the start" : "from " + r.since())
              + (r.until() == null ? " on" : " until " + r.until()));
    }
    if (!r.naturalIds().isEmpty()) {
      parts.add(r.naturalIds().size() + " natural id(s)");
    }
    return String.join(", ", parts);
  }

  static Path recordPath(String warehouse, String replayId) {
    return new Path(
        new Path(warehouse, RECORDS_DIR), WarehouseIds.check("replayId", replayId) + ".json");
  }

  /** Writes {@code <warehouse>/_replays/<replayId>.json}: what was replayed, how, the result. */
  static void writeRecord(ReplaySettings r, FinishedReplay o, String started) {
    ObjectMapper json = new ObjectMapper();
    ObjectNode root = json.createObjectNode();
    root.put("replayId", r.replayId());
    root.put("startedAt", started);
    root.put("finishedAt", java.time.Instant.now().toString());
    root.put("state", String.valueOf(o.state()));
    ObjectNode sel = root.putObject("selection");
    ArrayNode runs = sel.putArray("runIds");
    r.runIds().forEach(runs::add);
    sel.put("since", r.since() == null ? null : r.since().toString());
    sel.put("until", r.until() == null ? null : r.until().toString());
    ArrayNode ids = sel.putArray("naturalIds");
    r.naturalIds().forEach(ids::add);
    ObjectNode rejudged = root.putObject("rejudgedRuns");
    o.eventsPerRun().forEach(rejudged::put);
    ObjectNode judging = root.putObject("judging");
    judging.put("rulesId", r.run().rules().id());
    ArrayNode ignore = judging.putArray("ignoreFields");
    r.run().ignoreFields().forEach(ignore::add);
    judging.put("timeout", DurationParser.format(r.run().timeout()));
    judging.put("allowedLateness", DurationParser.format(r.run().allowedLateness()));
    judging.put("expiry", r.run().expiry().name());
    judging.put("emitMatches", r.run().emitMatches());
    judging.put("runner", r.run().runner().runnerName());
    ObjectNode given = judging.putObject("optionsGiven");
    r.given().forEach(given::put);
    ArrayNode before = root.putArray("rulesIdsOfRejudgedVerdicts");
    o.rulesBefore().forEach(before::add);
    ObjectNode counts = root.putObject("counts");
    o.summary().counts().entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(e -> counts.put(e.getKey(), e.getValue()));
    counts.put(NATURAL_IDS, o.naturalIds());
    ObjectNode transitions = root.putObject("transitions");
    o.transitions().forEach(transitions::put);
    Path file = recordPath(r.run().warehouse(), r.replayId());
    JsonRecords.write(file, root, "the replay's record");
  }
}
