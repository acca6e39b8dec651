package io.streamrecon.bench.deltalake;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.delta.kernel.Operation;
import io.delta.kernel.Snapshot;
import io.delta.kernel.Table;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.TableNotFoundException;
import io.delta.kernel.internal.actions.AddFile;
import io.delta.kernel.internal.actions.SingleAction;
import io.delta.kernel.internal.data.GenericRow;
import io.delta.kernel.internal.util.Utils;
import io.delta.kernel.internal.util.VectorUtils;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterable;
import io.streamrecon.deltalake.DeltaLakeAppender;
import io.streamrecon.deltalake.DeltaLakeEngine;
import io.streamrecon.deltalake.DeltaLakeMaintenance;
import io.streamrecon.deltalake.DeltaLakeSnapshot;
import io.streamrecon.deltalake.DeltaLakeSnapshot.TableFile;
import io.streamrecon.deltalake.DeltaLakeTables;
import io.streamrecon.deltalake.WarehouseTables;
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
import java.util.HashMap;
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
 * streaming run does (one {@code SetTransaction} + small real Parquet files per commit, through the
 * run's committer, by {@link DeltaLakeAppender}), to {@code raw_events} and {@code deltas}, and at
 * each step measures commit latency, cold snapshot load, incremental update, {@code show deltas}
 * and {@code explain}. Phase 2 grows {@code raw_events} to many files with synthetic AddFiles
 * (paths that are never read: their natural_id stats exclude the explained key) and measures the
 * same against file count.
 */
@Command(
    name = "deltalog",
    description =
        "Delta Lake log growth: commit, snapshot, show and explain against commit and file"
            + " count.")
public final class DeltaLakeLogBench implements Callable<Integer> {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Option(names = "--dir", required = true, description = "empty scratch directory")
  Path dir;

  @Option(
      names = "--steps",
      split = ",",
      defaultValue = "1000,5000,10000",
      description = "commit counts to measure at")
  long[] steps;

  @Option(
      names = "--fileSteps",
      split = ",",
      defaultValue = "1000,10000,50000,100000",
      description = "file counts to measure at")
  long[] fileSteps;

  @Option(
      names = "--filesPerCommit",
      defaultValue = "1000",
      description = "synthetic AddFiles per commit in phase 2")
  int filesPerCommit;

  @Option(
      names = "--repeat",
      defaultValue = "5",
      description = "repetitions of each read measurement (median reported)")
  int repeat;

  @Option(
      names = "--phases",
      defaultValue = "commits,files",
      description = "commits, files or both")
  String phases;

  @Option(
      names = "--compactDeltas",
      defaultValue = "false",
      arity = "1",
      description = "after phase 1, compact deltas and measure show again")
  boolean compactDeltas;

  @Option(
      names = "--noFork",
      defaultValue = "true",
      arity = "1",
      description = "set file permissions without forking chmod (see NoForkLocalFileSystem)")
  boolean noFork;

  private Configuration conf;

  /** The engine the committer builds for this configuration, for the commits made by hand. */
  private Engine engine;

  @Override
  public Integer call() throws Exception {
    if (noFork) {
      NoForkLocalFileSystem.install();
    }
    conf = new Configuration();
    engine = DeltaLakeEngine.create(conf);
    System.out.println(
        "file system for file: "
            + org.apache.hadoop.fs.FileSystem.getLocal(conf).getClass().getSimpleName());
    Files.createDirectories(dir);
    String commitsWarehouse = dir.resolve("commits").toString();
    String filesWarehouse = dir.resolve("files").toString();
    if (phases.equals("measure")) {
      measureExisting(commitsWarehouse);
      return 0;
    }
    if (phases.contains("commits")) {
      System.out.println(
          "# Phase 1: commits (1 raw_events + 1 deltas commit per step, one small file each)");
      System.out.println(
          "| commits | commit ms (mean / p99 of the last 100) | cold snapshot load ms"
              + " | update after 1 commit ms | show deltas ms | explain ms | _delta_log files"
              + " | checkpoints |");
      System.out.println("|---|---|---|---|---|---|---|---|");
      phaseCommits(commitsWarehouse);
      System.out.println();
    }
    if (!phases.contains("files")) {
      return 0;
    }
    System.out.println("# Phase 2: files (" + filesPerCommit + " synthetic AddFiles per commit)");
    System.out.println(
        "| files | commits | commit ms (1 small file) | cold snapshot load + getAllFiles ms"
            + " | update after 1 commit ms | explain ms | checkpoint bytes |");
    System.out.println("|---|---|---|---|---|---|---|");
    phaseFiles(filesWarehouse);
    return 0;
  }

  // ------------------------------------------------------------------ phase 1

  private void phaseCommits(String warehouse) throws Exception {
    try (DeltaLakeAppender<Event> raw = DeltaLakeAppender.rawEvents(conf, warehouse, "bench");
        DeltaLakeAppender<DeltaRecord> deltas =
            DeltaLakeAppender.deltas(conf, warehouse, "bench")) {
      phaseCommits(warehouse, raw, deltas);
    }
  }

  private void phaseCommits(
      String warehouse, DeltaLakeAppender<Event> raw, DeltaLakeAppender<DeltaRecord> deltas)
      throws Exception {
    // Written, never committed: the deltas commits after the first ones commit byte copies of it.
    TableFile deltaTemplate;
    try (DeltaLakeAppender<DeltaRecord> templates =
        DeltaLakeAppender.deltas(conf, warehouse, "bench")) {
      templates.write(deltaRecord(-1), eventTime(-1));
      deltaTemplate = templates.finishFiles().get(0);
    }
    long[] latencies = new long[measured];
    long done = 0;
    for (; done < 2; done++) {
      // Real first commits create the tables and serve as templates for the filled history.
      rawFile(raw, done);
      raw.commit("bench-raw", done);
      deltas.write(deltaRecord(done), eventTime(done));
      deltas.commit("bench-deltas", done);
    }
    for (long step : steps) {
      // History up to the window is written as commit files with the content of a real commit
      // (a real commit on this loaded machine takes ~150 ms); the last `measured` commits of each
      // step are real, through the project's committer, and timed. The first real commits after a
      // fill read the synthetic tail and write a checkpoint: they are warm-up, not timed.
      long fillTo = step - measured - WARM_UP;
      if (done < fillTo) {
        long t = System.nanoTime();
        fill(warehouse, WarehouseTables.RAW_EVENTS, "bench-raw", done, fillTo, null);
        fill(warehouse, WarehouseTables.DELTAS, "bench-deltas", done, fillTo, deltaTemplate);
        System.err.printf("filled %d..%d in %.0f s%n", done, fillTo, (System.nanoTime() - t) / 1e9);
        done = fillTo;
      }
      while (done < step) {
        rawFile(raw, done);
        TableFile d = copy(warehouse, deltaTemplate, done);
        long t0 = System.nanoTime();
        raw.commit("bench-raw", done);
        long ns = System.nanoTime() - t0;
        if (done >= step - measured) {
          latencies[(int) (done - (step - measured))] = ns;
        }
        commitAdds(
            Path.of(warehouse, WarehouseTables.DELTAS), "bench-deltas", done, List.of(addFile(d)));
        done++;
      }
      Path log = Path.of(warehouse, WarehouseTables.RAW_EVENTS, "_delta_log");
      long[] sorted = latencies.clone();
      Arrays.sort(sorted);
      double mean = Arrays.stream(sorted).average().orElse(0) / 1e6;
      String key = String.format("k-%08d", step - 1);
      double cold = median(() -> timed(() -> load(log.getParent())));
      double update =
          median(
              () -> {
                emptyCommit(log.getParent());
                return timed(() -> load(log.getParent()));
              });
      // show reads every deltas file: linear in files, and minutes past a few thousand here.
      double show =
          done <= showUpTo ? timed(() -> DeltaLakeTables.readDeltas(warehouse)) / 1e6 : Double.NaN;
      double explain = median(() -> timed(() -> explain(warehouse, key)));
      System.out.printf(
          "| %,d | %.1f / %.1f | %.0f | %.1f | %,.0f | %.0f | %,d | %d |%n",
          done,
          mean,
          sorted[(int) (sorted.length * 0.99)] / 1e6,
          cold,
          update,
          show,
          explain,
          count(log, ""),
          count(log, ".checkpoint.parquet"));
      System.out.flush();
    }
    if (!compactDeltas) {
      return;
    }
    long c0 = System.nanoTime();
    DeltaLakeMaintenance.CompactResult compacted =
        DeltaLakeMaintenance.compact(
            conf, warehouse, WarehouseTables.DELTAS, DeltaLakeMaintenance.DEFAULT_TARGET_FILE_SIZE);
    double compactMs = (System.nanoTime() - c0) / 1e6;
    double show = timed(() -> DeltaLakeTables.readDeltas(warehouse)) / 1e6;
    String lastKey = String.format("k-%08d", steps[steps.length - 1] - 1);
    double explain = median(() -> timed(() -> explain(warehouse, lastKey)));
    System.out.printf(
        "%nAfter `compact --table=deltas` (%s, %.0f ms): show deltas %,.0f ms, explain %.0f ms%n",
        compacted.describe(), compactMs, show, explain);
  }

  private static final int WARM_UP = 12;

  @Option(
      names = "--showUpTo",
      defaultValue = "1000",
      description = "measure show deltas up to this many commits (then after compaction)")
  long showUpTo;

  @Option(
      names = "--measured",
      defaultValue = "100",
      description = "real, timed commits at the end of each step")
  int measured;

  /**
   * Writes commit files {@code from}..{@code to-1} of {@code table} as a real commit of that table
   * writes them (commitInfo, txn, one add), the add's stats naming key k-n; for deltas each add
   * gets a byte copy of {@code template} so {@code show deltas} reads real files.
   */
  private void fill(
      String warehouse, String table, String appId, long from, long to, TableFile template)
      throws IOException {
    Path log = Path.of(warehouse, table, "_delta_log");
    long latest;
    try (Stream<Path> s = Files.list(log)) {
      latest =
          s.map(p -> p.getFileName().toString())
              .filter(n -> n.matches("\\d{20}\\.json"))
              .mapToLong(n -> Long.parseLong(n.substring(0, 20)))
              .max()
              .orElseThrow();
    }
    ObjectMapper json = JSON;
    ObjectNode info = null;
    ObjectNode add = null;
    // The newest commit that added a file (the update measurement commits empty ones).
    for (long v = latest; add == null; v--) {
      info = null;
      for (String line : Files.readAllLines(log.resolve(String.format("%020d.json", v)))) {
        ObjectNode node = (ObjectNode) json.readTree(line);
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
      ObjectNode ci = (ObjectNode) info.get("commitInfo").deepCopy();
      ci.put("timestamp", now);
      ci.put("readVersion", version - 1);
      ci.put("userMetadata", appId + " txn " + n);
      ObjectNode a = (ObjectNode) add.get("add").deepCopy();
      a.put("path", path);
      a.put("modificationTime", now);
      a.put("stats", templateStats.replace(templateKey, id));
      StringBuilder out = new StringBuilder();
      out.append(json.writeValueAsString(json.createObjectNode().set("commitInfo", ci)))
          .append('\n');
      ObjectNode txn = json.createObjectNode();
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
    Path log = Path.of(warehouse, WarehouseTables.RAW_EVENTS, "_delta_log");
    Snapshot latest = kernelSnapshot(log.getParent());
    long version = latest.getVersion();
    long txn = latest.getLatestTransactionVersion(engine, "bench-raw").orElse(-1L) + 1;
    long[] ns = new long[measured];
    try (DeltaLakeAppender<Event> raw = DeltaLakeAppender.rawEvents(conf, warehouse, "bench")) {
      for (int i = 0; i < measured; i++) {
        rawFile(raw, txn + i);
        long t0 = System.nanoTime();
        raw.commit("bench-raw", txn + i);
        ns[i] = System.nanoTime() - t0;
      }
    }
    Arrays.sort(ns);
    double mean = Arrays.stream(ns).average().orElse(0) / 1e6;
    String key = String.format("k-%08d", txn);
    double cold = median(() -> timed(() -> load(log.getParent())));
    double update =
        median(
            () -> {
              emptyCommit(log.getParent());
              return timed(() -> load(log.getParent()));
            });
    double explain = median(() -> timed(() -> explain(warehouse, key)));
    System.out.printf(
        "| %,d | %.1f / %.1f | %.0f | %.1f | n/a | %.0f | %,d | %d |%n",
        version + measured,
        mean,
        ns[ns.length - 1] / 1e6,
        cold,
        update,
        explain,
        count(log, ""),
        count(log, ".checkpoint.parquet"));
  }

  /**
   * A byte copy of the deltas file {@code template} under a new name, its stats claiming key {@code
   * n} only: explain of that key opens the file and finds no row in it.
   */
  private TableFile copy(String warehouse, TableFile template, long n) throws IOException {
    String id = String.format("k-%08d", n);
    String name =
        template.path().substring(0, template.path().lastIndexOf('/') + 1) + DataFileName.newName();
    Path root = Path.of(warehouse, WarehouseTables.DELTAS);
    Files.copy(root.resolve(template.path()), root.resolve(name));
    String stats = template.stats().replace("k--0000001", id);
    return new TableFile(name, template.partitionValues(), template.size(), stats);
  }

  /** Writes a raw_events file of one event, key {@code n}, to be committed next. */
  private static void rawFile(DeltaLakeAppender<Event> raw, long n) throws IOException {
    String id = String.format("k-%08d", n);
    byte[] payload = ("{\"id\":\"" + id + "\",\"n\":" + n + "}").getBytes(StandardCharsets.UTF_8);
    Instant t = eventTime(n);
    Event e =
        new Event(
            Side.SOURCE,
            id,
            t,
            String.format("%064x", Math.max(0, n)),
            payload,
            Origin.kafka("bench", 0, n));
    raw.write(e, t);
    raw.finishFiles();
  }

  private static Instant eventTime(long n) {
    return Instant.parse("2024-03-01T00:00:00Z").plus(Math.max(0, n) * 1000);
  }

  /** A MISSING_IN_TARGET verdict for key {@code n}. */
  private static DeltaRecord deltaRecord(long n) {
    String id = String.format("k-%08d", n);
    Instant t = eventTime(n);
    String hash = String.format("%064x", Math.max(0, n));
    Pointer p =
        new Pointer(n, "side=SOURCE/event_date=2024-03-01/x.parquet", 0, Side.SOURCE, id, hash);
    return new DeltaRecord(
        hash,
        null,
        id,
        Status.MISSING_IN_TARGET,
        List.of(),
        p.sha256(),
        null,
        t,
        null,
        p,
        null,
        t,
        "bench");
  }

  // ------------------------------------------------------------------ phase 2

  private void phaseFiles(String warehouse) throws Exception {
    try (DeltaLakeAppender<Event> raw = DeltaLakeAppender.rawEvents(conf, warehouse, "bench")) {
      phaseFiles(warehouse, raw);
    }
  }

  private void phaseFiles(String warehouse, DeltaLakeAppender<Event> raw) throws Exception {
    // A few real files hold the keys explain looks for.
    rawFile(raw, 1);
    rawFile(raw, 2);
    raw.commit("bench-files", 0);
    long txn = 1;
    long files = 2;
    Path tableDir = Path.of(warehouse, WarehouseTables.RAW_EVENTS);
    for (long step : fileSteps) {
      while (files < step) {
        int n = (int) Math.min(filesPerCommit, step - files);
        List<Row> actions = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          actions.add(syntheticAdd(files + i));
        }
        commitAdds(tableDir, "bench-files", txn, actions);
        files += n;
        txn++;
      }
      long committed = txn;
      double commit =
          median(
              () ->
                  timed(
                      () -> {
                        rawFile(raw, 3);
                        return raw.commit("bench-small", System.nanoTime());
                      }));
      files += repeat;
      double cold = median(() -> timed(() -> load(tableDir).files().size()));
      double update =
          median(
              () -> {
                emptyCommit(tableDir);
                return timed(() -> load(tableDir));
              });
      double explain = median(() -> timed(() -> explain(warehouse, "k-00000001")));
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
        "{\"numRecords\":100,\"minValues\":{\"natural_id\":\""
            + id
            + "\"},\"maxValues\":{\"natural_id\":\""
            + id
            + "~\"},\"nullCount\":{\"natural_id\":0}}";
    return addFile(
        new TableFile(
            "side=SOURCE/event_date=2024-03-01/" + DataFileName.newName(),
            Map.of("side", "SOURCE", "event_date", "2024-03-01"),
            20_000,
            stats));
  }

  /**
   * The {@code add} action of {@code file} as the project's committer writes it (a data change,
   * modified now), wrapped for a commit.
   */
  private static Row addFile(TableFile file) {
    StructType schema = AddFile.FULL_SCHEMA;
    Map<Integer, Object> values = new HashMap<>();
    values.put(schema.indexOf("path"), file.path());
    values.put(
        schema.indexOf("partitionValues"),
        VectorUtils.stringStringMapValue(file.partitionValues()));
    values.put(schema.indexOf("size"), file.size());
    values.put(schema.indexOf("modificationTime"), System.currentTimeMillis());
    values.put(schema.indexOf("dataChange"), true);
    values.put(schema.indexOf("stats"), file.stats());
    return SingleAction.createAddFileSingleAction(new GenericRow(schema, values));
  }

  /**
   * One commit of {@code actions} to the table at {@code tableDir} through Kernel, carrying the
   * transaction identifier {@code (appId, txn)}: for the commits whose content the project's writer
   * cannot make (synthetic files, byte copies with made-up stats).
   */
  private void commitAdds(Path tableDir, String appId, long txn, List<Row> actions) {
    kernelSnapshot(tableDir)
        .buildUpdateTableTransaction("bench", Operation.WRITE)
        .withTransactionId(appId, txn)
        .build(engine)
        .commit(
            engine,
            CloseableIterable.inMemoryIterable(Utils.toCloseableIterator(actions.iterator())));
  }

  /** Kernel's latest snapshot of the table at {@code tableDir}; the table must exist. */
  private Snapshot kernelSnapshot(Path tableDir) {
    try {
      return Table.forPath(engine, tableDir.toString()).getLatestSnapshot(engine);
    } catch (TableNotFoundException e) {
      throw new IllegalStateException("no table at " + tableDir, e);
    }
  }

  /**
   * The latest snapshot and its live files, as every reader loads them. Kernel keeps no snapshot
   * between loads, so "update after one commit" is a fresh load too.
   */
  private DeltaLakeSnapshot load(Path tableDir) {
    return DeltaLakeSnapshot.latest(conf, new org.apache.hadoop.fs.Path(tableDir.toString()));
  }

  /** A commit with no action, through Kernel. */
  private void emptyCommit(Path tableDir) {
    kernelSnapshot(tableDir)
        .buildUpdateTableTransaction("bench", Operation.MANUAL_UPDATE)
        .build(engine)
        .commit(engine, CloseableIterable.emptyIterable());
  }

  // ------------------------------------------------------------------ helpers

  /** {@code explain} as the command line runs it, output discarded. */
  private static Object explain(String warehouse, String key) {
    PrintStream out = System.out;
    System.setOut(new PrintStream(OutputStream.nullOutputStream()));
    try {
      int code =
          io.streamrecon.pipeline.cli.StreamRecon.execute(
              "explain", "--naturalId=" + key, "--warehouse=" + warehouse);
      if (code != 0) {
        throw new IllegalStateException("explain " + key + " exited " + code);
      }
      return null;
    } finally {
      System.setOut(out);
    }
  }

  private static long count(Path log, String suffix) throws IOException {
    try (Stream<Path> s = Files.list(log)) {
      return s.filter(
              p -> !p.getFileName().toString().startsWith(".") && p.toString().endsWith(suffix))
          .count();
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
