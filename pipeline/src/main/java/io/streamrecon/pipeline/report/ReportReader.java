package io.streamrecon.pipeline.report;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamrecon.deltalake.DeltaLakeSnapshot.TableFile;
import io.streamrecon.deltalake.WarehouseTables;
import io.streamrecon.model.Status;
import io.streamrecon.pipeline.report.ReportData.DeadLetterGroup;
import io.streamrecon.pipeline.report.ReportData.Diff;
import io.streamrecon.pipeline.report.ReportData.FieldStat;
import io.streamrecon.pipeline.report.ReportData.Latency;
import io.streamrecon.pipeline.report.ReportData.Mismatch;
import io.streamrecon.pipeline.report.ReportData.RunCounts;
import io.streamrecon.pipeline.report.ReportData.Timeline;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.parquet.example.data.Group;

/**
 * Aggregates the four tables of a warehouse into {@link ReportData} in one streaming pass per table
 * (two over {@code deltas}: the first reads only {@code supersedes}), decoding only the columns the
 * report needs; {@code raw_events} is counted from the Delta Lake log's file stats and its Parquet
 * files are opened only when a file's stats do not name a single run.
 */
final class ReportReader {
  /** Rows in the table of recent mismatches. */
  static final int RECENT = 20;

  /** Differences shown per recent mismatch. */
  static final int DIFFS_PER_RECORD = 5;

  /** Rows of the differing-fields table. */
  static final int TOP_FIELDS = 25;

  /** Dead-letter groups shown. */
  static final int DEAD_LETTER_GROUPS = 25;

  static final List<String> DELTA_COLUMNS =
      List.of(
          "verdict_id",
          "supersedes",
          "natural_id",
          "status",
          "differences",
          "source_event_time",
          "target_event_time",
          "detected_at",
          "run_id");

  /** What to read: a run (null: every run) and a half-open event-time window (null: open). */
  record Selection(String warehouse, String runId, Instant since, Instant until) {
    boolean inWindow(long eventTime) {
      return (since == null || eventTime >= since.toEpochMilli())
          && (until == null || eventTime < until.toEpochMilli());
    }

    boolean hasRun(String run) {
      return runId == null || runId.equals(run);
    }
  }

  private final Selection selection;
  private final Map<String, long[]> runs = new TreeMap<>();
  // Indexes into the per-run counters, in RunCounts' field order.
  private static final int RAW_S = 0;
  private static final int RAW_T = 1;
  private static final int DEAD_S = 2;
  private static final int DEAD_T = 3;
  private static final int ROWS = 4;
  private static final int EVENTS = 5;
  private static final int LATE = 6;

  ReportReader(Selection selection) {
    this.selection = selection;
  }

  /** Reads the warehouse; throws IllegalArgumentException when there is nothing to report. */
  static ReportData read(Selection selection) {
    return new ReportReader(selection).readAll();
  }

  private long[] run(String runId) {
    return runs.computeIfAbsent(runId == null ? "(none)" : runId, r -> new long[7]);
  }

  private ReportData readAll() {
    TableScan raw = new TableScan(selection.warehouse(), WarehouseTables.RAW_EVENTS);
    TableScan deltas = new TableScan(selection.warehouse(), WarehouseTables.DELTAS);
    TableScan dead = new TableScan(selection.warehouse(), WarehouseTables.DEAD_LETTERS);
    TableScan late = new TableScan(selection.warehouse(), WarehouseTables.LATE_EVENTS);
    if (!raw.exists() && !deltas.exists() && !dead.exists()) {
      throw new IllegalArgumentException(
          "report: no streamrecon tables under --warehouse="
              + selection.warehouse()
              + " (has a run written there?)");
    }
    countRawEvents(raw);
    // A replay's events are rows of the runs it re-judged; its record counts them.
    ReplayRuns.storedEventsRead(
        selection.warehouse(),
        (r, side, n) -> {
          if (selection.hasRun(r) && selection.since() == null && selection.until() == null) {
            run(r)[sideIndex(side, RAW_S, RAW_T)] += n;
          }
        });
    List<DeadLetterGroup> deadLetters = readDeadLetters(dead);
    Map<Long, Long> latePerHour = readLateEvents(late);
    DeltaPass pass = scanDeltas(deltas, readSupersededIds(deltas));
    pass.rowsByRun.forEach(
        (r, c) -> {
          long[] counts = run(r);
          counts[ROWS] += c[0];
          counts[EVENTS] += c[1];
        });
    if (selection.runId() != null && !runs.containsKey(selection.runId())) {
      throw new IllegalArgumentException(
          "report: --runId="
              + selection.runId()
              + " has no rows in "
              + selection.warehouse()
              + allRunIds(raw));
    }
    List<RunCounts> runCounts = new ArrayList<>();
    RunCounts totals = new RunCounts("all", 0, 0, 0, 0, 0, 0, 0);
    for (Map.Entry<String, long[]> e : runs.entrySet()) {
      long[] c = e.getValue();
      RunCounts rc =
          new RunCounts(
              e.getKey(), c[RAW_S], c[RAW_T], c[DEAD_S], c[DEAD_T], c[ROWS], c[EVENTS], c[LATE]);
      runCounts.add(rc);
      totals = totals.plus(rc);
    }
    return new ReportData(
        selection.warehouse(),
        describe(),
        Instant.now().toString(),
        runCounts,
        totals,
        pass.finalVerdicts,
        pass.superseded,
        pass.timeline(),
        pass.fields(),
        pass.mismatchRecords,
        pass.latency(),
        deadLetters,
        latePerHour,
        pass.recent());
  }

  private String allRunIds(TableScan raw) {
    Set<String> ids = new TreeSet<>();
    for (TableFile f : raw.files()) {
      String id = TableScan.singleRunId(TableScan.stats(f));
      if (id != null) {
        ids.add(id);
      }
    }
    return ids.isEmpty() ? "" : "; runs there: " + String.join(", ", ids);
  }

  private String describe() {
    StringBuilder b = new StringBuilder();
    b.append(selection.runId() == null ? "every run" : "run " + selection.runId());
    if (selection.since() != null || selection.until() != null) {
      b.append(", event time ")
          .append(selection.since() == null ? "from the start" : "from " + selection.since())
          .append(selection.until() == null ? " on" : " until " + selection.until());
    }
    return b.toString();
  }

  // ------------------------------------------------------------------ raw_events, dead letters,
  // late

  private void countRawEvents(TableScan raw) {
    for (TableFile f : raw.files()) {
      JsonNode stats = TableScan.stats(f);
      String side = f.partitionValues().get("side");
      String single = TableScan.singleRunId(stats);
      long n = TableScan.numRecords(stats);
      // A file with a deletion vector is counted row by row: its numRecords counts deleted rows.
      if (single != null && n >= 0 && side != null && f.deletionVector() == null) {
        if (selection.hasRun(single)) {
          run(single)[sideIndex(side, RAW_S, RAW_T)] += n;
        }
      } else if (TableScan.mayHaveRun(stats, selection.runId())) {
        raw.scan(
            f,
            List.of("run_id", "side"),
            g -> {
              String r = TableScan.string(g, "run_id");
              if (selection.hasRun(r)) {
                String s = side != null ? side : TableScan.string(g, "side");
                run(r)[sideIndex(s, RAW_S, RAW_T)]++;
              }
            });
      }
    }
  }

  private static int sideIndex(String side, int source, int target) {
    return "TARGET".equals(side) ? target : source;
  }

  private List<DeadLetterGroup> readDeadLetters(TableScan dead) {
    Map<String, DeadAcc> groups = new HashMap<>();
    for (TableFile f : dead.files()) {
      if (!TableScan.mayHaveRun(TableScan.stats(f), selection.runId())) {
        continue;
      }
      dead.scan(
          f,
          List.of("side", "raw", "raw_encoding", "error", "stage", "run_id"),
          g -> {
            String r = TableScan.string(g, "run_id");
            if (!selection.hasRun(r)) {
              return;
            }
            String side = TableScan.string(g, "side");
            run(r)[sideIndex(side, DEAD_S, DEAD_T)]++;
            String stage = String.valueOf(TableScan.string(g, "stage"));
            String error = String.valueOf(TableScan.string(g, "error"));
            DeadAcc acc =
                groups.computeIfAbsent(
                    stage + '\u0000' + error, k -> new DeadAcc(stage, error, example(g)));
            acc.count++;
            acc.sides.add(String.valueOf(side));
          });
    }
    List<DeadLetterGroup> out = new ArrayList<>();
    for (DeadAcc a : groups.values()) {
      out.add(
          new DeadLetterGroup(a.stage, a.error, a.count, String.join(", ", a.sides), a.example));
    }
    out.sort(
        Comparator.comparingLong(DeadLetterGroup::count)
            .reversed()
            .thenComparing(DeadLetterGroup::stage)
            .thenComparing(DeadLetterGroup::error));
    return out;
  }

  /** A dead letter's raw input as the report shows it: cut, and marked when it is base64. */
  private static String example(Group g) {
    String raw = TableScan.string(g, "raw");
    String text =
        "base64".equals(TableScan.string(g, "raw_encoding"))
            ? "(not UTF-8; base64) " + raw
            : raw == null ? "" : raw;
    return Text.truncate(text, Text.VALUE_CODE_POINTS);
  }

  /** Dead letters of one stage and error, while reading. */
  private static final class DeadAcc {
    final String stage;
    final String error;
    final String example;
    final Set<String> sides = new TreeSet<>();
    long count;

    DeadAcc(String stage, String error, String example) {
      this.stage = stage;
      this.error = error;
      this.example = example;
    }
  }

  private Map<Long, Long> readLateEvents(TableScan late) {
    Map<Long, Long> perHour = new TreeMap<>();
    for (TableFile f : late.files()) {
      if (!TableScan.mayHaveRun(TableScan.stats(f), selection.runId())) {
        continue;
      }
      late.scan(
          f,
          List.of("event_time", "run_id"),
          g -> {
            String r = TableScan.string(g, "run_id");
            if (!selection.hasRun(r)) {
              return;
            }
            run(r)[LATE]++;
            long t = TableScan.millis(g, "event_time");
            if (t != Long.MIN_VALUE && selection.inWindow(t)) {
              perHour.merge(TimeBuckets.Unit.HOUR.floor(t), 1L, Long::sum);
            }
          });
    }
    return perHour;
  }

  private Set<String> readSupersededIds(TableScan deltas) {
    Set<String> ids = new HashSet<>();
    for (TableFile f : deltas.files()) {
      JsonNode stats = TableScan.stats(f);
      // A file whose supersedes column is all null needs no read.
      long nulls = stats == null ? -1 : stats.path("nullCount").path("supersedes").asLong(-1);
      if (nulls >= 0 && nulls == TableScan.numRecords(stats)) {
        continue;
      }
      deltas.scan(
          f,
          List.of("supersedes"),
          g -> {
            String s = TableScan.string(g, "supersedes");
            if (s != null) {
              ids.add(s);
            }
          });
    }
    return ids;
  }

  // ------------------------------------------------------------------ deltas

  /**
   * Scans the deltas files in parallel (one pass per file, on up to {@link #threads()} threads) and
   * merges the passes in file order, so the result is the same as a sequential scan's.
   */
  private DeltaPass scanDeltas(TableScan deltas, Set<String> supersededIds) {
    List<TableFile> files = new ArrayList<>();
    for (TableFile f : deltas.files()) {
      if (TableScan.mayHaveRun(TableScan.stats(f), selection.runId())) {
        files.add(f);
      }
    }
    List<java.util.concurrent.Future<DeltaPass>> parts = new ArrayList<>();
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(
            Math.max(1, Math.min(threads(), files.size())));
    try {
      for (TableFile f : files) {
        parts.add(
            pool.submit(
                () -> {
                  DeltaPass part = new DeltaPass(supersededIds);
                  deltas.scan(f, DELTA_COLUMNS, part::row);
                  return part;
                }));
      }
      DeltaPass all = new DeltaPass(supersededIds);
      for (java.util.concurrent.Future<DeltaPass> part : parts) {
        all.merge(part.get());
      }
      return all;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading deltas", e);
    } catch (java.util.concurrent.ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException(e.getCause());
    } finally {
      pool.shutdownNow();
    }
  }

  /** Reader threads: the cores, at most 4 (decoding is CPU-bound; more only adds memory). */
  static int threads() {
    return Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors()));
  }

  /** The per-row aggregation over deltas; keeps counters and the 20 newest mismatches only. */
  private final class DeltaPass {
    final Set<String> supersededIds;
    final Map<Status, Long> finalVerdicts = new EnumMap<>(Status.class);
    long superseded;
    long mismatchRecords;
    final LongList timelineTimes = new LongList();
    final ByteList timelineStatus = new ByteList();
    final Map<String, LongList> latencyByRun = new HashMap<>();
    final Map<String, long[]> spansByRun = new HashMap<>(); // minEvent, maxEvent, minDet, maxDet
    final Map<String, FieldAcc> fields = new HashMap<>();
    final PriorityQueue<Mismatch> recent = new PriorityQueue<>(NEWEST.reversed());
    final Map<String, long[]> rowsByRun = new HashMap<>(); // {rows, events}

    DeltaPass(Set<String> supersededIds) {
      this.supersededIds = supersededIds;
      for (Status s : Status.values()) {
        finalVerdicts.put(s, 0L);
      }
    }

    void row(Group g) {
      String runId = TableScan.string(g, "run_id");
      if (!selection.hasRun(runId)) {
        return;
      }
      Status status = Status.valueOf(TableScan.string(g, "status"));
      String supersedes = TableScan.string(g, "supersedes");
      long[] counts = rowsByRun.computeIfAbsent(runId, r -> new long[2]);
      counts[0]++;
      counts[1] +=
          supersedes != null
                  || status == Status.MISSING_IN_SOURCE
                  || status == Status.MISSING_IN_TARGET
              ? 1
              : 2;
      long eventTime =
          Math.max(
              TableScan.millis(g, "source_event_time"), TableScan.millis(g, "target_event_time"));
      if (eventTime == Long.MIN_VALUE || !selection.inWindow(eventTime)) {
        return;
      }
      long detectedAt = TableScan.millis(g, "detected_at");
      if (detectedAt != Long.MIN_VALUE) {
        latencyByRun.computeIfAbsent(runId, r -> new LongList()).add(detectedAt - eventTime);
        long[] span =
            spansByRun.computeIfAbsent(
                runId,
                r -> new long[] {Long.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE, Long.MIN_VALUE});
        span[0] = Math.min(span[0], eventTime);
        span[1] = Math.max(span[1], eventTime);
        span[2] = Math.min(span[2], detectedAt);
        span[3] = Math.max(span[3], detectedAt);
      }
      if (!supersededIds.isEmpty() && supersededIds.contains(TableScan.string(g, "verdict_id"))) {
        superseded++;
        return;
      }
      finalVerdicts.merge(status, 1L, Long::sum);
      timelineTimes.add(eventTime);
      timelineStatus.add((byte) status.ordinal());
      if (status == Status.MISMATCH) {
        mismatch(g, runId, eventTime, detectedAt);
      }
    }

    private void mismatch(Group g, String runId, long eventTime, long detectedAt) {
      mismatchRecords++;
      String naturalId = TableScan.string(g, "natural_id");
      List<Group> diffs = TableScan.structs(g, "differences");
      Set<String> seen = new HashSet<>();
      for (Group d : diffs) {
        String path = Text.collapseIndexes(TableScan.string(d, "path"));
        FieldAcc acc = fields.get(path);
        if (acc == null) {
          acc =
              new FieldAcc(
                  TableScan.string(d, "kind"),
                  Text.truncate(TableScan.string(d, "source"), Text.VALUE_CODE_POINTS),
                  Text.truncate(TableScan.string(d, "target"), Text.VALUE_CODE_POINTS),
                  naturalId);
          fields.put(path, acc);
        }
        acc.differences++;
        if (seen.add(path)) {
          acc.records++;
        }
      }
      if (recent.size() < RECENT || isNewer(detectedAt, eventTime, naturalId, recent.peek())) {
        List<Diff> shown = new ArrayList<>();
        for (Group d : diffs.subList(0, Math.min(DIFFS_PER_RECORD, diffs.size()))) {
          shown.add(
              new Diff(
                  TableScan.string(d, "path"),
                  TableScan.string(d, "kind"),
                  Text.truncate(TableScan.string(d, "source"), Text.VALUE_CODE_POINTS),
                  Text.truncate(TableScan.string(d, "target"), Text.VALUE_CODE_POINTS)));
        }
        recent.add(new Mismatch(naturalId, detectedAt, eventTime, runId, shown, diffs.size()));
        if (recent.size() > RECENT) {
          recent.poll();
        }
      }
    }

    /** Adds a later file's pass: counts add up, the earlier file's examples win. */
    void merge(DeltaPass o) {
      o.rowsByRun.forEach(
          (r, c) -> {
            long[] mine = rowsByRun.computeIfAbsent(r, k -> new long[2]);
            mine[0] += c[0];
            mine[1] += c[1];
          });
      o.finalVerdicts.forEach((k, v) -> finalVerdicts.merge(k, v, Long::sum));
      superseded += o.superseded;
      mismatchRecords += o.mismatchRecords;
      timelineTimes.addAll(o.timelineTimes);
      for (int i = 0; i < o.timelineStatus.size; i++) {
        timelineStatus.add(o.timelineStatus.values[i]);
      }
      o.latencyByRun.forEach(
          (r, l) -> latencyByRun.computeIfAbsent(r, k -> new LongList()).addAll(l));
      o.spansByRun.forEach(
          (r, sp) -> {
            long[] mine =
                spansByRun.computeIfAbsent(
                    r,
                    k ->
                        new long[] {
                          Long.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE, Long.MIN_VALUE
                        });
            mine[0] = Math.min(mine[0], sp[0]);
            mine[1] = Math.max(mine[1], sp[1]);
            mine[2] = Math.min(mine[2], sp[2]);
            mine[3] = Math.max(mine[3], sp[3]);
          });
      o.fields.forEach(
          (path, a) -> {
            FieldAcc mine = fields.putIfAbsent(path, a);
            if (mine != null) {
              mine.records += a.records;
              mine.differences += a.differences;
            }
          });
      for (Mismatch m : o.recent) {
        recent.add(m);
        if (recent.size() > RECENT) {
          recent.poll();
        }
      }
    }

    Timeline timeline() {
      int n = timelineTimes.size;
      if (n == 0) {
        return new Timeline(TimeBuckets.Unit.HOUR, 0, new long[0][]);
      }
      long min = Long.MAX_VALUE;
      long max = Long.MIN_VALUE;
      for (int i = 0; i < n; i++) {
        min = Math.min(min, timelineTimes.values[i]);
        max = Math.max(max, timelineTimes.values[i]);
      }
      TimeBuckets.Unit unit = TimeBuckets.choose(min, max);
      long first = unit.floor(min);
      long[][] counts = new long[(int) TimeBuckets.buckets(unit, min, max)][Status.values().length];
      for (int i = 0; i < n; i++) {
        counts[(int) ((unit.floor(timelineTimes.values[i]) - first) / unit.millis)][
            timelineStatus.values[i]]++;
      }
      return new Timeline(unit, first, counts);
    }

    List<FieldStat> fields() {
      List<FieldStat> out = new ArrayList<>();
      fields.forEach(
          (path, a) ->
              out.add(
                  new FieldStat(
                      path, a.records, a.differences, a.kind, a.source, a.target, a.naturalId)));
      out.sort(
          Comparator.comparingLong(FieldStat::records)
              .reversed()
              .thenComparing(Comparator.comparingLong(FieldStat::differences).reversed())
              .thenComparing(FieldStat::path));
      return out.size() > TOP_FIELDS ? List.copyOf(out.subList(0, TOP_FIELDS)) : out;
    }

    List<Mismatch> recent() {
      List<Mismatch> out = new ArrayList<>(recent);
      out.sort(NEWEST);
      return out;
    }

    /**
     * A run is taken for a streaming run when its verdicts were detected over at least a tenth of
     * the event-time span they cover (a batch run detects everything within seconds at its end,
     * whatever the data's span); a run whose verdicts share one event time counts as streaming when
     * they were detected within a day of it.
     */
    Latency latency() {
      List<String> streaming = new ArrayList<>();
      for (Map.Entry<String, long[]> e : spansByRun.entrySet()) {
        long[] s = e.getValue();
        long eventSpan = s[1] - s[0];
        long detectSpan = s[3] - s[2];
        boolean live = eventSpan == 0 ? s[3] - s[1] < 86_400_000L : detectSpan * 10 >= eventSpan;
        if (live) {
          streaming.add(e.getKey());
        }
      }
      streaming.sort(Comparator.naturalOrder());
      boolean anyStreaming = !streaming.isEmpty();
      LongList all = new LongList();
      for (Map.Entry<String, LongList> e : latencyByRun.entrySet()) {
        if (!anyStreaming || streaming.contains(e.getKey())) {
          all.addAll(e.getValue());
        }
      }
      String basis;
      if (anyStreaming) {
        basis =
            streaming.size() == spansByRun.size()
                ? "every selected run looks like a streaming run"
                : "runs that look like streaming runs: " + String.join(", ", streaming);
      } else if (spansByRun.isEmpty()) {
        basis = "no verdicts in the selection";
      } else {
        long[] s = spansByRun.values().iterator().next();
        basis =
            "no selected run looks like a streaming run (e.g. verdicts detected within "
                + Text.duration(s[3] - s[2])
                + " while their event times span "
                + Text.duration(s[1] - s[0])
                + "), so these figures are the data's age at detection, not a detection delay";
      }
      long[] v = Arrays.copyOf(all.values, all.size);
      Arrays.sort(v);
      return new Latency(
          anyStreaming,
          v.length,
          percentile(v, 50),
          percentile(v, 90),
          percentile(v, 99),
          v.length == 0 ? 0 : v[v.length - 1],
          basis);
    }
  }

  /** Nearest-rank percentile of sorted values; 0 when empty. */
  static long percentile(long[] sorted, int p) {
    if (sorted.length == 0) {
      return 0;
    }
    int rank = (int) Math.ceil(p / 100.0 * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }

  private static final Comparator<Mismatch> NEWEST =
      Comparator.comparingLong(Mismatch::detectedAt)
          .thenComparingLong(Mismatch::eventTime)
          .reversed()
          .thenComparing(Mismatch::naturalId);

  private static boolean isNewer(long detectedAt, long eventTime, String id, Mismatch oldest) {
    return NEWEST.compare(new Mismatch(id, detectedAt, eventTime, null, List.of(), 0), oldest) < 0;
  }

  private static final class FieldAcc {
    final String kind;
    final String source;
    final String target;
    final String naturalId;
    long records;
    long differences;

    FieldAcc(String kind, String source, String target, String naturalId) {
      this.kind = kind;
      this.source = source;
      this.target = target;
      this.naturalId = naturalId;
    }
  }

  /** A growable array of longs (a million boxed Longs would cost ~16 MB and GC time). */
  static final class LongList {
    long[] values = new long[1024];
    int size;

    void add(long v) {
      if (size == values.length) {
        values = Arrays.copyOf(values, size * 2);
      }
      values[size++] = v;
    }

    void addAll(LongList o) {
      for (int i = 0; i < o.size; i++) {
        add(o.values[i]);
      }
    }
  }

  /** A growable array of bytes. */
  static final class ByteList {
    byte[] values = new byte[1024];
    int size;

    void add(byte v) {
      if (size == values.length) {
        values = Arrays.copyOf(values, size * 2);
      }
      values[size++] = v;
    }
  }
}
