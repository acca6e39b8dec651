package io.streamrecon.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Writes bench/REPORT.md. A hand-written block between {@code <!-- findings:start -->} and {@code
 * <!-- findings:end -->} in an existing report is kept, so the reading of the figures survives a
 * re-run.
 */
final class ReportWriter {
  private static final String START = "<!-- findings:start -->";
  private static final String END = "<!-- findings:end -->";

  /**
   * The Delta Lake log and maintenance section ({@code bin/bench deltalog}, {@code explainlookup}).
   */
  private static final String DELTALAKE_START = "<!-- deltalake:start -->";

  private static final String DELTALAKE_END = "<!-- deltalake:end -->";

  private final List<RunCommand.Row> rows;
  private final Map<String, JfrTop> profiles;
  private final StateSize state;
  private final LookupCost lookup;
  private final List<String> notes;
  private final String started;
  private final String command;
  private final String xmx;
  String lookupSet = "";

  ReportWriter(
      List<RunCommand.Row> rows,
      Map<String, JfrTop> profiles,
      StateSize state,
      LookupCost lookup,
      List<String> notes,
      String started,
      String command,
      String xmx) {
    this.rows = rows;
    this.profiles = profiles;
    this.state = state;
    this.lookup = lookup;
    this.notes = notes;
    this.started = started;
    this.command = command;
    this.xmx = xmx;
  }

  void write(Path report) throws IOException {
    String findings = "_(Written by hand after the run: see the commit that added this report.)_\n";
    String deltaLake = null;
    if (Files.exists(report)) {
      String old = Files.readString(report, StandardCharsets.UTF_8);
      int a = old.indexOf(START);
      int b = old.indexOf(END);
      if (a >= 0 && b > a) {
        findings = old.substring(a + START.length(), b).strip() + "\n";
      }
      int c = old.indexOf(DELTALAKE_START);
      int d = old.indexOf(DELTALAKE_END);
      if (c >= 0 && d > c) {
        deltaLake = old.substring(c, d + DELTALAKE_END.length()) + "\n";
      }
    }
    StringBuilder md = new StringBuilder();
    md.append("# streamrecon benchmark\n\n");
    md.append("- Date (UTC): ").append(started).append("\n");
    md.append("- Machine: ")
        .append(RunCommand.machine())
        .append("; load average at the end: ")
        .append(loadAverage())
        .append("\n");
    md.append("- Each contender ran in its own JVM (`-Xmx")
        .append(xmx)
        .append(
            "`, G1), one after the other. Peak heap is heap in use sampled every 20 ms (garbage included, so it follows the heap G1 chose to grow); live heap is the largest heap in use right after a collection.\n");
    if (ran("flink")) {
      md.append(
          "- The flink contender's pipeline runs in a JVM it starts (same `-Xmx`): its peak and live heap come from that JVM's GC log (the largest heap in use before a collection or at exit, and after a collection); Flink's managed memory is off the heap and not in them. Its wall time includes that JVM's start.\n");
    }
    md.append("- Reproduce: `")
        .append(command)
        .append(
            "` (from the repository root; data sets and tables go to `bench/target/bench-work`).\n\n");
    md.append("Contenders, all on the same generated files:\n\n");
    md.append(
        "1. **bare**: one thread, in memory: streamrecon's EventParser (parse + canonical SHA-256), the pairing rules of docs/design.md#pairing with the payload kept inline, JsonDiff on every MISMATCH. No Beam, no Delta Lake. Reads file i of both sides as micro-batch i with a watermark, like the peer.\n");
    md.append(
        "2. **direct**: `ReconcilePipeline` on the DirectRunner (batch), `--emitMatches=true`.\n");
    md.append(
        "3. **spark**: `ReconcilePipeline` on the SparkRunner `local[2]` (batch), `--emitMatches=true`.\n");
    md.append(
        "4. **peer**: the same design natively in Spark Structured Streaming 3.5 + delta-spark 3.3 on `local[2]`: two file streams (one file per side per micro-batch), the same EventParser in a typed map, watermark, `flatMapGroupsWithState` with `EventTimeTimeout` keeping metadata only, and per micro-batch in `foreachBatch`: raw events appended to a Delta table, the MISMATCH payloads fetched back with one pruned broadcast join, diffed, verdicts (MATCH included) appended to a deltas table.\n");
    if (ran("flink")) {
      md.append(
          "5. **flink**: `ReconcilePipeline` on Beam's FlinkRunner `[local]` (an embedded mini cluster, parallelism 2, batch), `--emitMatches=true`, started as `flink run` starts it (`FlinkMain` from the `-flink-run` jar on a Flink 1.19 distribution's class path) in a JVM of its own: Flink's jars do not share a class path with the bench's Spark jars. Start-up runs from starting that JVM to the mini cluster's start; payload fetches are not in the summary it prints (n/a).\n");
    }
    md.append("\n");
    md.append(
            "Events/s = input events of both sides / wall time of the contender's work, engine start-up included (start-up is also shown apart). ")
        .append(
            "Verdict counts are final verdicts (after supersession); batch runs must equal the generator's batch expectation, streaming runs its streaming one (where the generator's late records are late).\n\n");

    md.append("## Findings\n\n")
        .append(START)
        .append("\n")
        .append(findings)
        .append(END)
        .append("\n\n");

    md.append("## Throughput, heap, Delta Lake writes, fetches\n\n");
    md.append("![throughput](throughput.png)\n\n");
    md.append(
        "Wall s is the median of the runs listed (a run shorter than the repeat threshold was repeated); load is the 1-minute load average at the end of each run.\n\n");
    md.append(
        "| data set | contender | events | wall s | runs: wall s | load | start-up s | events/s | × bare | peak heap MB | live heap MB | Delta Lake files | commits | payload fetches | per mismatch | per match | verdicts |\n");
    md.append(
        "|---|---|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    for (RunCommand.Row r : rows) {
      if (r.result() == null) {
        md.append("| ")
            .append(r.dataSet())
            .append(" | ")
            .append(r.contender())
            .append(" | | | | | | | | | | | | | | | ")
            .append(r.failure())
            .append(" |\n");
        continue;
      }
      RunResult x = r.result();
      Double bare = bareEps(r.dataSet());
      long mm = x.mismatchesEmitted();
      long fetches = x.payloadFetches();
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %,d | %.1f | %s | %s | %.1f | %,.0f | %s | %,d | %,d | %s | %s | %s | %s | %s | %s |\n",
              r.dataSet(),
              r.contender(),
              x.events(),
              x.wallSeconds(),
              list(r.walls()),
              list(r.loads()),
              x.startupSeconds(),
              x.eventsPerSecond(),
              bare == null ? "" : String.format(Locale.ROOT, "%.3f", x.eventsPerSecond() / bare),
              x.peakHeapBytes() >> 20,
              x.peakLiveHeapBytes() >> 20,
              dash(x.deltaLakeFiles(), x.contender()),
              dash(x.deltaLakeCommits(), x.contender()),
              fetches < 0
                  ? "n/a"
                  : x.contender().equals("bare")
                      ? "0 (inline)"
                      : String.format(Locale.ROOT, "%,d", fetches),
              fetches < 0 || mm == 0
                  ? ""
                  : String.format(Locale.ROOT, "%.2f", (double) fetches / mm),
              fetches < 0 ? "" : perMatch(fetches, mm, x.matchesEmitted()),
              r.agrees() ? "agree" : "**DISAGREE**"));
    }
    md.append("\n");

    md.append("## Verdict counts\n\n");
    md.append(
        "| data set | who | mode | match | mismatch | missing in target | missing in source | duplicates | late |\n");
    md.append("|---|---|---|---:|---:|---:|---:|---:|---:|\n");
    Set<String> sets = new LinkedHashSet<>();
    for (RunCommand.Row r : rows) {
      sets.add(r.dataSet());
    }
    for (String set : sets) {
      Expected e =
          rows.stream().filter(r -> r.dataSet().equals(set)).findFirst().orElseThrow().expected();
      counts(md, set, "expected", "batch", e.batch());
      counts(md, set, "expected", "streaming", e.streaming());
      for (RunCommand.Row r : rows) {
        if (r.dataSet().equals(set) && r.result() != null) {
          counts(
              md,
              set,
              r.contender() + (r.agrees() ? "" : " **DISAGREES**"),
              r.result().mode(),
              r.result().counts());
        }
      }
    }
    md.append(
        "\nThe generator's late records (0.2 %) arrive far behind the event-time front: a streaming run (bare, peer) counts their events late; a batch run has no late data, so they match there. That is the only allowed difference between the two expectations.\n\n");

    md.append("## Scaling with N (uniform keys)\n\n");
    md.append("µs of wall time per input event; linear cost means a flat row.\n\n");
    List<String> uniform = sets.stream().filter(s -> s.startsWith("u")).toList();
    md.append("| contender |");
    for (String s : uniform) {
      md.append(" ").append(s).append(" |");
    }
    md.append("\n|---|").append("---:|".repeat(uniform.size())).append("\n");
    for (String c : contenders()) {
      md.append("| ").append(c).append(" |");
      for (String s : uniform) {
        RunResult x = result(s, c);
        md.append(
            x == null
                ? " – |"
                : String.format(Locale.ROOT, " %.1f |", 1e6 * x.wallSeconds() / x.events()));
      }
      md.append("\n");
    }
    md.append("\n");

    List<String> zipf = sets.stream().filter(s -> s.startsWith("z")).toList();
    if (!zipf.isEmpty()) {
      md.append("## Key skew: Zipf against uniform\n\n");
      md.append(
          "Zipf(1.1) over N/4 ids: the hottest ids carry thousands of records each, as successive episodes spaced beyond the pairing timeout.\n\n");
      md.append(
          "| contender | data set | events/s | data set | events/s | Zipf / uniform |\n|---|---|---:|---|---:|---:|\n");
      for (String z : zipf) {
        String u = "u" + z.substring(1);
        for (String c : contenders()) {
          RunResult xu = result(u, c);
          RunResult xz = result(z, c);
          md.append(
              String.format(
                  Locale.ROOT,
                  "| %s | %s | %s | %s | %s | %s |\n",
                  c,
                  u,
                  xu == null ? "–" : String.format(Locale.ROOT, "%,.0f", xu.eventsPerSecond()),
                  z,
                  xz == null ? "–" : String.format(Locale.ROOT, "%,.0f", xz.eventsPerSecond()),
                  xu == null || xz == null
                      ? ""
                      : String.format(
                          Locale.ROOT, "%.2f", xz.eventsPerSecond() / xu.eventsPerSecond())));
        }
      }
      md.append("\n");
    }

    md.append("## State per pending key\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "Over %,d events of a generated data set, one kept event per pending key (natural id as the key):\n\n"
                + "| kept per key | bytes |\n|---|---:|\n"
                + "| key (natural id, length-prefixed) | %.1f |\n"
                + "| streamrecon: key + `EventRefCoder.encodeWithoutKey` (side, time, packed hash, pointer) | %.1f |\n"
                + "| payload kept inline: key + `EventCoder` (payload included) | %.1f |\n"
                + "| of which the payload | %.1f |\n\n"
                + "Pointer state is %.1f %% of inline state (%.0f× smaller).\n\n",
            state.events(),
            state.keyBytes(),
            state.pointerStateBytes(),
            state.inlineStateBytes(),
            state.payloadBytes(),
            100 * state.pointerStateBytes() / state.inlineStateBytes(),
            state.inlineStateBytes() / state.pointerStateBytes()));
    for (RunCommand.Row r : rows) {
      if (r.result() != null && r.contender().equals("peer")) {
        Object rowsPeak = r.result().extra().get("stateRowsPeak");
        Object mem = r.result().extra().get("stateMemoryPeakBytes");
        if (rowsPeak instanceof Number n && mem instanceof Number m && n.longValue() > 0) {
          md.append(
              String.format(
                  Locale.ROOT,
                  "- peer %s: Spark state store held up to %,d keys in %,d bytes of memory (%.0f bytes per key, UnsafeRow + map overhead, all versions kept in memory).\n",
                  r.dataSet(),
                  n.longValue(),
                  m.longValue(),
                  (double) m.longValue() / n.longValue()));
        }
      }
    }
    md.append("\n");

    md.append("## Payload lookup: batched against one open per pointer\n\n");
    if (lookup == null) {
      md.append("Not measured (see notes).\n\n");
    } else {
      md.append(
          String.format(
              Locale.ROOT,
              "A fixed sample of %,d pointers of MISMATCH records in the deltas table of the SparkRunner run (u%s), into %,d raw_events data files. The plain reader decodes every row up to the wanted one (no page skipping); DeltaLakeIO skips to the wanted pages by the offset index:\n\n"
                  + "| read | files opened | ms | ms per pointer |\n|---|---:|---:|---:|\n"
                  + "| one open per data file (parquet-hadoop, payload column) | %,d | %.0f | %.3f |\n"
                  + "| one open per pointer (same reader; %,d timed, scaled) | %,d | %.0f | %.3f |\n"
                  + "| `DeltaLakeIO.lookup()` in a DirectRunner pipeline (start-up included) | %s | %.0f | %.3f |\n\n",
              lookup.pointers(),
              lookupSet,
              lookup.files(),
              lookup.files(),
              lookup.batchedMillis(),
              lookup.batchedMillis() / lookup.pointers(),
              lookup.perPointerMeasured(),
              lookup.pointers(),
              lookup.perPointerMillis(),
              lookup.perPointerMillis() / lookup.pointers(),
              lookup.lookupFileOpens() < 0
                  ? "n/a"
                  : String.format(Locale.ROOT, "%,d", lookup.lookupFileOpens()),
              lookup.lookupMillis(),
              lookup.lookupMillis() / lookup.pointers()));
    }

    if (!profiles.isEmpty()) {
      md.append("## Where the time goes (JFR, jdk.ExecutionSample)\n\n");
      for (Map.Entry<String, JfrTop> p : profiles.entrySet()) {
        JfrTop t = p.getValue();
        md.append("### ")
            .append(p.getKey())
            .append(String.format(Locale.ROOT, " (%,d samples)\n\n", t.samples()));
        md.append(
            "By area (the first non-JDK frame from the top of each sample):\n\n| area | share |\n|---|---:|\n");
        for (Map.Entry<String, Long> e : JfrTop.top(t.areas(), 14)) {
          md.append(
              String.format(
                  Locale.ROOT,
                  "| %s | %.1f %% |\n",
                  e.getKey(),
                  100.0 * e.getValue() / t.samples()));
        }
        md.append("\nTop frames, self:\n\n| method | share |\n|---|---:|\n");
        for (Map.Entry<String, Long> e : JfrTop.top(t.self(), 15)) {
          md.append(
              String.format(
                  Locale.ROOT,
                  "| `%s` | %.1f %% |\n",
                  e.getKey(),
                  100.0 * e.getValue() / t.samples()));
        }
        md.append("\nInclusive, streamrecon and Beam frames:\n\n| method | share |\n|---|---:|\n");
        Map<String, Long> ours = new LinkedHashMap<>();
        for (Map.Entry<String, Long> e : t.inclusive().entrySet()) {
          if (e.getKey().startsWith("io.streamrecon.")
              || e.getKey().startsWith("org.apache.beam.runners.")) {
            ours.put(e.getKey(), e.getValue());
          }
        }
        for (Map.Entry<String, Long> e : JfrTop.top(ours, 20)) {
          md.append(
              String.format(
                  Locale.ROOT,
                  "| `%s` | %.1f %% |\n",
                  e.getKey(),
                  100.0 * e.getValue() / t.samples()));
        }
        md.append("\n");
      }
    }

    md.append("## Notes\n\n");
    List<String> all = new ArrayList<>(notes);
    for (RunCommand.Row r : rows) {
      if (r.result() == null) {
        all.add(r.dataSet() + " " + r.contender() + ": " + r.failure() + ".");
      }
    }
    all.add(
        "A load above 2 in the table means something besides the contender used the 2 cores at the end of that run; the contender's own threads count too.");
    for (String n : all) {
      md.append("- ").append(n).append("\n");
    }
    if (deltaLake != null) {
      md.append("\n").append(deltaLake);
    }
    Files.writeString(report, md.toString(), StandardCharsets.UTF_8);
  }

  /** The four contenders of every report, then any other that ran (flink). */
  private List<String> contenders() {
    Set<String> all = new LinkedHashSet<>(List.of("bare", "direct", "spark", "peer"));
    for (RunCommand.Row r : rows) {
      all.add(r.contender());
    }
    return List.copyOf(all);
  }

  private boolean ran(String contender) {
    return rows.stream().anyMatch(r -> r.contender().equals(contender));
  }

  private static String perMatch(long fetches, long mismatches, long matches) {
    if (matches == 0) {
      return "";
    }
    return String.format(
        Locale.ROOT, "%.2f", Math.max(0, fetches - 2 * mismatches) / (double) matches);
  }

  private static String list(List<Double> values) {
    return String.join(
        ", ", values.stream().map(v -> String.format(Locale.ROOT, "%.1f", v)).toList());
  }

  private static String dash(long v, String contender) {
    return contender.equals("bare") ? "–" : String.format(Locale.ROOT, "%,d", v);
  }

  private static void counts(
      StringBuilder md, String set, String who, String mode, VerdictCounts c) {
    md.append(
        String.format(
            Locale.ROOT,
            "| %s | %s | %s | %,d | %,d | %,d | %,d | %,d | %,d |\n",
            set,
            who,
            mode,
            c.match(),
            c.mismatch(),
            c.missingInTarget(),
            c.missingInSource(),
            c.duplicates(),
            c.late()));
  }

  private Double bareEps(String set) {
    RunResult b = result(set, "bare");
    return b == null ? null : b.eventsPerSecond();
  }

  private RunResult result(String set, String contender) {
    for (RunCommand.Row r : rows) {
      if (r.dataSet().equals(set) && r.contender().equals(contender) && r.result() != null) {
        return r.result();
      }
    }
    return null;
  }

  private static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).split(" ", 4)[0]
          + " / "
          + Files.readString(Path.of("/proc/loadavg")).split(" ", 4)[1]
          + " / "
          + Files.readString(Path.of("/proc/loadavg")).split(" ", 4)[2];
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }
}
