package io.streamrecon.deltalake;

import io.delta.kernel.Operation;
import io.delta.kernel.Snapshot;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.internal.actions.SingleAction;
import io.delta.kernel.internal.util.Utils;
import io.delta.kernel.utils.CloseableIterable;
import io.streamrecon.bench.deltalake.NoForkLocalFileSystem;
import io.streamrecon.model.DataFileName;
import io.streamrecon.model.DeltaRecord;
import io.streamrecon.model.Event;
import io.streamrecon.model.Origin;
import io.streamrecon.model.Pointer;
import io.streamrecon.model.Side;
import io.streamrecon.model.Status;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.joda.time.Instant;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * How the Delta Lake log behaves after months of streaming commits. Phase 1 commits, the way a
 * streaming run does (one {@code SetTransaction} + small real Parquet files per commit, through
 * {@link DeltaLakeCommitter}), to {@code raw_events} and {@code deltas}, and at each step measures
 * commit latency, cold snapshot load, incremental update, {@code show deltas} and {@code explain}.
 * Phase 2 grows {@code raw_events} to many files with synthetic AddFiles (paths that are never
 * read: their natural_id stats exclude the explained key) and measures the same against file count.
 *
 * <p>Lives in the {@code deltalake} package to drive the package-private committer and writer.
 */
@Command(
    name = "deltalog",
    description = "Delta Lake log growth: commit, snapshot, show and explain against commit and file count.")
public final class DeltaLakeLogBench implements Callable<Integer> {
  @Option(names = "--dir", required = true, description = "empty scratch directory")
  Path dir;

  @Option(names = "--steps", split = ",", defaultValue = "1000,5000,10000", description = "commit counts to measure at")
  long[] steps;

  @Option(names = "--fileSteps", split = ",", defaultValue = "1000,10000,50000,100000", description = "file counts to measure at")
  long[] fileSteps;

  @Option(names = "--filesPerCommit", defaultValue = "1000", description = "synthetic AddFiles per commit in phase 2")
  int filesPerCommit;

  @Option(names = "--repeat", defaultValue = "5", description = "repetitions of each read measurement (median reported)")
  int repeat;

  @Option(names = "--phases", defaultValue = "commits,files", description = "commits, files or both")
  String phases;

  @Option(names = "--compactDeltas", defaultValue = "false", arity = "1", description = "after phase 1, compact deltas and measure show again")
  boolean compactDeltas;

  @Option(names = "--noFork", defaultValue = "true", arity = "1", description = "set file permissions without forking chmod (see NoForkLocalFileSystem)")
  boolean noFork;

  private Configuration conf;

  @Override
  public Integer call() throws Exception {
    if (noFork) {
      NoForkLocalFileSystem.install();
    }
    conf = new Configuration();
    System.out.println("file system for file: " + org.apache.hadoop.fs.FileSystem.getLocal(conf).getClass().getSimpleName());
    Files.createDirectories(dir);
    String commitsWarehouse = dir.resolve("commits").toString();
    String filesWarehouse = dir.resolve("files").toString();
    if (phases.equals("measure")) {
      measureExisting(commitsWarehouse);
      return 0;
    }
    if (phases.contains("commits")) {
    System.out.println("# Phase 1: commits (1 raw_events + 1 deltas commit per step, one small file each)");
    System.out.println(
        "| commits | commit ms (mean / p99 of the last 100) | cold snapshot load ms | update after 1 commit ms"
            + " | show deltas ms | explain ms | _delta_log files | checkpoints |");
    System.out.println("|---|---|---|---|---|---|---|---|");
    phaseCommits(commitsWarehouse);
    System.out.println();
    }
    if (!phases.contains("files")) {
      return 0;
    }
    System.out.println("# Phase 2: files (" + filesPerCommit + " synthetic AddFiles per commit)");
    System.out.println(
        "| files | commits | commit ms (1 small file) | cold snapshot load + getAllFiles ms | update after 1 commit ms"
            + " | explain ms | checkpoint bytes |");
    System.out.println("|---|---|---|---|---|---|---|");
    phaseFiles(filesWarehouse);
    return 0;
  }

  // ------------------------------------------------------------------ phase 1

  private void phaseCommits(String warehouse) throws Exception {
    DeltaLakeCommitter raw = new DeltaLakeCommitter(conf, warehouse, TableLayouts.RAW_EVENTS);
    DeltaLakeCommitter deltas = new DeltaLakeCommitter(conf, warehouse, TableLayouts.DELTAS);
    DataFile deltaTemplate = deltaFile(warehouse, -1);
    long[] latencies = new long[measured];
    long done = 0;
    for (; done < 2; done++) {
      // Real first commits create the tables and serve as templates for the filled history.
      raw.commit("bench-raw", done, List.of(rawFile(warehouse, done)));
      deltas.commit("bench-deltas", done, List.of(copy(warehouse, deltaTemplate, done)));
    }
    for (long step : steps) {
      // History up to the window is written as commit files with the content of a real commit
      // (a real commit on this loaded machine takes ~150 ms); the last `measured` commits of each
      // step are real, through DeltaLakeCommitter, and timed. The first real commits after a fill
      // read the synthetic tail and write a checkpoint: they are warm-up, not timed.
      long fillTo = step - measured - WARM_UP;
      if (done < fillTo) {
        long t = System.nanoTime();
        fill(warehouse, DeltaLakeIO.RAW_EVENTS, "bench-raw", done, fillTo, null);
        fill(warehouse, DeltaLakeIO.DELTAS, "bench-deltas", done, fillTo, deltaTemplate);
        System.err.printf("filled %d..%d in %.0f s%n", done, fillTo, (System.nanoTime() - t) / 1e9);
        done = fillTo;
      }
      while (done < step) {
        DataFile r = rawFile(warehouse, done);
        DataFile d = copy(warehouse, deltaTemplate, done);
        long t0 = System.nanoTime();
        raw.commit("bench-raw", done, List.of(r));
        long ns = System.nanoTime() - t0;
        if (done >= step - measured) {
          latencies[(int) (done - (step - measured))] = ns;
        }
        deltas.commit("bench-deltas", done, List.of(d));
        done++;
      }
      Path log = Path.of(warehouse, DeltaLakeIO.RAW_EVENTS, "_delta_log");
      long[] sorted = latencies.clone();
      Arrays.sort(sorted);
      double mean = Arrays.stream(sorted).average().orElse(0) / 1e6;
      String key = String.format("k-%08d", step - 1);
      double cold = median(() -> timed(() -> load(log.getParent())));
      double update =
          median(
              () -> {
                emptyCommit(raw);
                return timed(() -> load(log.getParent()));
              });
      // show reads every deltas file: linear in files, and minutes past a few thousand here.
      double show = done <= showUpTo ? timed(() -> DeltaLakeTables.readDeltas(warehouse)) / 1e6 : Double.NaN;
      double explain = median(() -> timed(() -> { explain(warehouse, key); return null; }));
      System.out.printf(
          "| %,d | %.1f / %.1f | %.0f | %.1f | %,.0f | %.0f | %,d | %d |%n",
          done, mean, sorted[(int) (sorted.length * 0.99)] / 1e6, cold, update, show, explain, count(log, ""), count(log, ".checkpoint.parquet"));
      System.out.flush();
    }
    if (!compactDeltas) {
      return;
    }
    long c0 = System.nanoTime();
    DeltaLakeMaintenance.CompactResult compacted =
        DeltaLakeMaintenance.compact(conf, warehouse, DeltaLakeIO.DELTAS, DeltaLakeMaintenance.DEFAULT_TARGET_FILE_SIZE);
    double compactMs = (System.nanoTime() - c0) / 1e6;
    double show = timed(() -> DeltaLakeTables.readDeltas(warehouse)) / 1e6;
    double explain = median(() -> timed(() -> { explain(warehouse, String.format("k-%08d", steps[steps.length - 1] - 1)); return null; }));
    System.out.printf(
        "%nAfter `compact --table=deltas` (%s, %.0f ms): show deltas %,.0f ms, explain %.0f ms%n",
        compacted.describe(), compactMs, show, explain);
  }

  private static final int WARM_UP = 12;

  @Option(names = "--showUpTo", defaultValue = "1000", description = "measure show deltas up to this many commits (then after compaction)")
  long showUpTo;

  @Option(names = "--measured", defaultValue = "100", description = "real, timed commits at the end of each step")
  int measured;

  /**
   * Writes commit files {@code from}..{@code to-1} of {@code table} as a real commit of that table
   * writes them (commitInfo, txn, one add), the add's stats naming key k-n; for deltas each add
   * gets a byte copy of {@code template} so {@code show deltas} reads real files.
   */
  private void fill(String warehouse, String table, String appId, long from, long to, DataFile template)
      throws IOException {
    Path log = Path.of(warehouse, table, "_delta_log");
    long latest;
    try (Stream<Path> s = Files.list(log)) {
      latest = s.map(p -> p.getFileName().toString()).filter(n -> n.matches("\\d{20}\\.json"))
          .mapToLong(n -> Long.parseLong(n.substring(0, 20))).max().orElseThrow();
    }
    com.fasterxml.jackson.databind.ObjectMapper json = FileStats.JSON;
    com.fasterxml.jackson.databind.node.ObjectNode info = null;
    com.fasterxml.jackson.databind.node.ObjectNode add = null;
    // The newest commit that added a file (the update measurement commits empty ones).
    for (long v = latest; add == null; v--) {
      info = null;
      for (String line : Files.readAllLines(log.resolve(String.format("%020d.json", v)))) {
        com.fasterxml.jackson.databind.node.ObjectNode node = (com.fasterxml.jackson.databind.node.ObjectNode) json.readTree(line);
        if (node.has("commitInfo")) {
          info = node;
        } else if (node.has("add")) {
          add = node;
        }
      }
    }
    String templateStats = add.get("add").get("stats").asText();
    String templateKey = json.readTree(templateStats).get("minValues").get("natural_id").asText();
    long version = latest;
    for (long n = from; n < to; n++) {
      version++;
      long now = System.currentTimeMillis();
      String id = String.format("k-%08d", n);
      String path;
      if (template != null) {
        path = copy(warehouse, template, n).path();
      } else {
        path = "side=SOURCE/event_date=2024-03-01/" + DataFileName.newName();
      }
      com.fasterxml.jackson.databind.node.ObjectNode ci = (com.fasterxml.jackson.databind.node.ObjectNode) info.get("commitInfo").deepCopy();
      ci.put("timestamp", now);
      ci.put("readVersion", version - 1);
      ci.put("userMetadata", appId + " txn " + n);
      com.fasterxml.jackson.databind.node.ObjectNode a = (com.fasterxml.jackson.databind.node.ObjectNode) add.get("add").deepCopy();
      a.put("path", path);
      a.put("modificationTime", now);
      a.put("stats", templateStats.replace(templateKey, id));
      StringBuilder out = new StringBuilder();
      out.append(json.writeValueAsString(json.createObjectNode().set("commitInfo", ci))).append('\n');
      com.fasterxml.jackson.databind.node.ObjectNode txn = json.createObjectNode();
      txn.putObject("txn").put("appId", appId).put("version", n).put("lastUpdated", now);
      out.append(json.writeValueAsString(txn)).append('\n');
      out.append(json.writeValueAsString(json.createObjectNode().set("add", a))).append('\n');
      Files.writeString(log.resolve(String.format("%020d.json", version)), out.toString());
    }
  }

  /**
   * Phase 1's measurements on a table phase 1 (or a killed run of it) left behind: {@code
   * --measured} more real commits, timed, then cold load, update and explain.
   */
  private void measureExisting(String warehouse) throws Exception {
    DeltaLakeCommitter raw = new DeltaLakeCommitter(conf, warehouse, TableLayouts.RAW_EVENTS);
    Path log = Path.of(warehouse, DeltaLakeIO.RAW_EVENTS, "_delta_log");
    Snapshot latest = DeltaLakeSnapshot.kernelSnapshot(raw.engine(), raw.tableRoot());
    long version = latest.getVersion();
    long txn = latest.getLatestTransactionVersion(raw.engine(), "bench-raw").orElse(-1L) + 1;
    long[] ns = new long[measured];
    for (int i = 0; i < measured; i++) {
      DataFile r = rawFile(warehouse, txn + i);
      long t0 = System.nanoTime();
      raw.commit("bench-raw", txn + i, List.of(r));
      ns[i] = System.nanoTime() - t0;
    }
    Arrays.sort(ns);
    double mean = Arrays.stream(ns).average().orElse(0) / 1e6;
    String key = String.format("k-%08d", txn);
    double cold = median(() -> timed(() -> load(log.getParent())));
    double update =
        median(
            () -> {
              emptyCommit(raw);
              return timed(() -> load(log.getParent()));
            });
    double explain = median(() -> timed(() -> { explain(warehouse, key); return null; }));
    System.out.printf(
        "| %,d | %.1f / %.1f | %.0f | %.1f | n/a | %.0f | %,d | %d |%n",
        version + measured, mean, ns[ns.length - 1] / 1e6, cold, update, explain, count(log, ""), count(log, ".checkpoint.parquet"));
  }

  /** A byte copy of {@code template} under a new name, its stats claiming key {@code n} only. */
  private DataFile copy(String warehouse, DataFile template, long n) throws IOException {
    String id = String.format("k-%08d", n);
    String name =
        template.path().substring(0, template.path().lastIndexOf('/') + 1)
            + DataFileName.newName();
    Path root = Path.of(warehouse, template.table());
    Files.copy(root.resolve(template.path()), root.resolve(name));
    String stats = template.stats().replace("k--0000001", id);
    return new DataFile(
        template.table(), name, template.partitionValues(), template.sizeBytes(), System.currentTimeMillis(),
        template.numRecords(), stats, template.rowKeys(), template.rowKeysFile(), template.earliest());
  }

  private DataFile rawFile(String warehouse, long n) throws IOException {
    String id = String.format("k-%08d", n);
    byte[] payload = ("{\"id\":\"" + id + "\",\"n\":" + n + "}").getBytes(StandardCharsets.UTF_8);
    Instant t = Instant.parse("2024-03-01T00:00:00Z").plus(Math.max(0, n) * 1000);
    Event e = new Event(Side.SOURCE, id, t, String.format("%064x", Math.max(0, n)), payload, Origin.kafka("bench", 0, n));
    try (DataFileWriter<Event> w =
        new DataFileWriter<>(conf, DeltaLakeCommitter.tablePath(warehouse, DeltaLakeIO.RAW_EVENTS), TableLayouts.RAW_EVENTS, "bench")) {
      w.write(e, t);
      return w.finish().get(0);
    }
  }

  private DataFile deltaFile(String warehouse, long n) throws IOException {
    String id = String.format("k-%08d", n);
    Instant t = Instant.parse("2024-03-01T00:00:00Z").plus(Math.max(0, n) * 1000);
    Pointer p = new Pointer(n, "side=SOURCE/event_date=2024-03-01/x.parquet", 0, Side.SOURCE, id, String.format("%064x", Math.max(0, n)));
    DeltaRecord d =
        new DeltaRecord(String.format("%064x", Math.max(0, n)), null, id, Status.MISSING_IN_TARGET, List.of(), p.sha256(), null, t, null, p, null, t, "bench");
    try (DataFileWriter<DeltaRecord> w =
        new DataFileWriter<>(conf, DeltaLakeCommitter.tablePath(warehouse, DeltaLakeIO.DELTAS), TableLayouts.DELTAS, "bench")) {
      w.write(d, t);
      return w.finish().get(0);
    }
  }

  // ------------------------------------------------------------------ phase 2

  private void phaseFiles(String warehouse) throws Exception {
    DeltaLakeCommitter raw = new DeltaLakeCommitter(conf, warehouse, TableLayouts.RAW_EVENTS);
    // A few real files hold the keys explain looks for.
    raw.commit("bench-files", 0, List.of(rawFile(warehouse, 1), rawFile(warehouse, 2)));
    long txn = 1;
    long files = 2;
    Engine engine = raw.engine();
    for (long step : fileSteps) {
      while (files < step) {
        int n = (int) Math.min(filesPerCommit, step - files);
        List<Row> actions = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          actions.add(SingleAction.createAddFileSingleAction(syntheticAdd(files + i)));
        }
        DeltaLakeSnapshot.kernelSnapshot(engine, raw.tableRoot())
            .buildUpdateTableTransaction("bench", Operation.WRITE)
            .withTransactionId("bench-files", txn)
            .build(engine)
            .commit(
                engine,
                CloseableIterable.inMemoryIterable(Utils.toCloseableIterator(actions.iterator())));
        files += n;
        txn++;
      }
      long committed = txn;
      double commit =
          median(
              () -> {
                return timed(() -> raw.commit("bench-small", System.nanoTime(), List.of(rawFile(warehouse, 3))));
              });
      files += repeat;
      Path tableDir = Path.of(warehouse, DeltaLakeIO.RAW_EVENTS);
      double cold = median(() -> timed(() -> load(tableDir).files().size()));
      double update =
          median(
              () -> {
                emptyCommit(raw);
                return timed(() -> load(tableDir));
              });
      double explain = median(() -> timed(() -> { explain(warehouse, "k-00000001"); return null; }));
      long checkpointBytes;
      try (Stream<Path> s = Files.list(tableDir.resolve("_delta_log"))) {
        checkpointBytes =
            s.filter(p -> p.toString().endsWith(".checkpoint.parquet"))
                .max(java.util.Comparator.comparing(Path::toString))
                .map(p -> p.toFile().length())
                .orElse(0L);
      }
      System.out.printf(
          "| %,d | %,d | %.1f | %.0f | %.1f | %.0f | %,d |%n",
          files, committed, commit, cold, update, explain, checkpointBytes);
    }
  }

  /** An AddFile never read: its natural_id range ("z-…") excludes every key explain looks for. */
  private static Row syntheticAdd(long n) {
    String id = String.format("z-%09d", n);
    String stats =
        "{\"numRecords\":100,\"minValues\":{\"natural_id\":\"" + id + "\"},\"maxValues\":{\"natural_id\":\""
            + id + "~\"},\"nullCount\":{\"natural_id\":0}}";
    return DeltaLakeCommitter.addFile(
        "side=SOURCE/event_date=2024-03-01/" + DataFileName.newName(),
        Map.of("side", "SOURCE", "event_date", "2024-03-01"),
        20_000,
        System.currentTimeMillis(),
        true,
        stats);
  }

  /**
   * The latest snapshot and its live files, as every reader loads them. Kernel keeps no snapshot
   * between loads, so "update after one commit" is a fresh load too.
   */
  private DeltaLakeSnapshot load(Path tableDir) {
    return DeltaLakeSnapshot.latest(conf, new org.apache.hadoop.fs.Path(tableDir.toString()));
  }

  /** A commit with no action, through Kernel. */
  private static void emptyCommit(DeltaLakeCommitter raw) {
    DeltaLakeSnapshot.kernelSnapshot(raw.engine(), raw.tableRoot())
        .buildUpdateTableTransaction("bench", Operation.MANUAL_UPDATE)
        .build(raw.engine())
        .commit(raw.engine(), CloseableIterable.emptyIterable());
  }

  // ------------------------------------------------------------------ helpers

  /** {@code explain} as the command line runs it, output discarded. */
  private static void explain(String warehouse, String key) {
    PrintStream out = System.out;
    System.setOut(new PrintStream(OutputStream.nullOutputStream()));
    try {
      int code = io.streamrecon.pipeline.cli.StreamRecon.execute("explain", "--naturalId=" + key, "--warehouse=" + warehouse);
      if (code != 0) {
        throw new IllegalStateException("explain " + key + " exited " + code);
      }
    } finally {
      System.setOut(out);
    }
  }

  private static long count(Path log, String suffix) throws IOException {
    try (Stream<Path> s = Files.list(log)) {
      return s.filter(p -> !p.getFileName().toString().startsWith(".") && p.toString().endsWith(suffix)).count();
    }
  }

  @FunctionalInterface
  private interface Measured {
    long run() throws Exception;
  }

  private double median(Measured m) throws Exception {
    long[] ns = new long[repeat];
    for (int i = 0; i < repeat; i++) {
      ns[i] = m.run();
    }
    Arrays.sort(ns);
    return ns[repeat / 2] / 1e6;
  }

  @FunctionalInterface
  private interface Action0 {
    Object run() throws Exception;
  }

  private static long timed(Action0 a) throws Exception {
    long t0 = System.nanoTime();
    a.run();
    return System.nanoTime() - t0;
  }
}
