package io.streamrecon.pipeline.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamrecon.deltalake.DeltaLakeLookup;
import io.streamrecon.deltalake.DeltaLakeTables;
import io.streamrecon.deltalake.WarehouseTables;
import io.streamrecon.json.ComparisonRules;
import io.streamrecon.json.JsonDiff;
import io.streamrecon.model.DeltaRecord;
import io.streamrecon.model.Difference;
import io.streamrecon.model.Pointer;
import io.streamrecon.pipeline.output.Explained;
import io.streamrecon.pipeline.output.RowJson;
import io.streamrecon.pipeline.output.TerminalText;
import io.streamrecon.pipeline.records.ErasureRecords;
import io.streamrecon.pipeline.run.RulesArchive;
import java.io.PrintWriter;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code explain}: everything stored about one natural id: its raw events with their pointers and
 * payloads, its delta records, the comparison rules that judged it and the diff of its latest
 * source and target payloads under them. A table it cannot read ends the command with one line
 * naming the table and the reason. What comes from the data is printed {@linkplain TerminalText
 * escaped}.
 */
@Command(
    name = "explain",
    description = "Print the stored payloads of a natural id, their pointers, and the diff.")
final class ExplainCommand implements Callable<Integer> {
  @Option(names = "--naturalId", required = true, description = "The natural id")
  String naturalId;

  @Mixin WarehouseOption warehouseOption;

  @Option(
      names = "--rules",
      description =
          "Comparison rules file; default: the rules the latest delta record names, as stored"
              + " in the warehouse by the run")
  String rulesFile;

  @Option(names = "--ignoreFields", defaultValue = "", description = "As for the run")
  String ignoreFields;

  @Override
  public Integer call() {
    warehouseOption.requireTable(WarehouseTables.RAW_EVENTS);
    String warehouse = warehouseOption.location();
    ComparisonRules given = rulesFile == null ? null : ComparisonRules.fromFile(rulesFile);
    PrintWriter out = StreamRecon.stdout();
    // Lookups skip files and pages by natural_id statistics: fast on large tables.
    List<Map<String, Object>> rows =
        readTable(
            WarehouseTables.RAW_EVENTS, () -> DeltaLakeLookup.findRawEvents(warehouse, naturalId));
    List<DeltaRecord> deltas = new ArrayList<>();
    if (warehouseOption.get().tableExists(WarehouseTables.DELTAS)) {
      deltas.addAll(
          readTable(
              WarehouseTables.DELTAS, () -> DeltaLakeLookup.findDeltas(warehouse, naturalId)));
    }
    List<ErasureRecords.Erasure> erasures = ErasureRecords.of(warehouse, naturalId);
    if (rows.isEmpty() && deltas.isEmpty() && erasures.isEmpty()) {
      throw new IllegalArgumentException(
          "explain: no stored event has natural id '" + naturalId + "' in " + warehouse);
    }
    out.println(
        "natural id "
            + TerminalText.escape(naturalId)
            + ": "
            + rows.size()
            + " stored event(s); raw_events is at table version "
            + readTable(
                WarehouseTables.RAW_EVENTS,
                () -> DeltaLakeTables.tableVersion(warehouse, WarehouseTables.RAW_EVENTS))
            + ", deltas at "
            + readTable(
                WarehouseTables.DELTAS,
                () -> DeltaLakeTables.tableVersion(warehouse, WarehouseTables.DELTAS)));
    for (ErasureRecords.Erasure e : erasures) {
      out.println(TerminalText.escape(ErasureRecords.line(naturalId, e)));
    }
    JsonNode latestSource = null;
    JsonNode latestTarget = null;
    for (Map<String, Object> row : Explained.sorted(rows)) {
      Explained e = Explained.of(row);
      out.println();
      out.println(e.header());
      out.println(e.prettyPayload());
      if ("SOURCE".equals(e.side())) {
        latestSource = e.payload();
      } else if ("TARGET".equals(e.side())) {
        latestTarget = e.payload();
      }
    }
    deltas.sort(Comparator.comparing(DeltaRecord::detectedAt));
    out.println();
    out.println("delta records: " + deltas.size());
    for (DeltaRecord d : deltas) {
      ObjectNode o = RowJson.delta(d);
      out.println(o.toPrettyString());
    }
    // A pointer whose row is gone is reported, not an error (docs/design.md#erasure): erased when
    // forget removed it, expired when retention removed its date, deleted otherwise.
    Map<Pointer, Explained.Gone> gone = Map.of();
    if (!erasures.isEmpty()) {
      ErasureRecords.erasedPointers(deltas, rows, erasures.get(erasures.size() - 1))
          .forEach(line -> out.println(TerminalText.escape(line)));
    } else if (!deltas.isEmpty()) {
      LocalDate earliestStored =
          readTable(
              WarehouseTables.RAW_EVENTS, () -> DeltaLakeLookup.earliestRawEventDate(warehouse));
      gone = Explained.gonePointers(deltas, rows, earliestStored);
      gone.forEach((p, why) -> out.println(TerminalText.escape(Explained.goneLine(p, why))));
    }
    out.println();
    String recordedRulesId = deltas.isEmpty() ? null : deltas.get(deltas.size() - 1).rulesId();
    ComparisonRules rules = given;
    String rulesOrigin = "--rules=" + TerminalText.escape(rulesFile);
    if (rules == null && recordedRulesId != null) {
      rules = RulesArchive.load(warehouse, recordedRulesId);
      rulesOrigin = "stored in the warehouse by the run";
    }
    if (rules == null) {
      out.println(
          recordedRulesId == null
              ? "comparison rules: none named by a delta record of this id (a MATCH is recorded"
                  + " only with --emitMatches); pass --rules=FILE to diff under rules"
              : "comparison rules: "
                  + TerminalText.escape(recordedRulesId)
                  + " (not stored in this warehouse;"
                  + " pass --rules=FILE to see them)");
      rules = ComparisonRules.none();
    } else {
      out.println("comparison rules " + rules.id() + " (" + rulesOrigin + "):");
      for (String line : rules.describe()) {
        out.println("  " + TerminalText.escape(line));
      }
      if (recordedRulesId != null && !recordedRulesId.equals(rules.id())) {
        out.println(
            "  warning: the latest delta record was judged by other rules: "
                + TerminalText.escape(recordedRulesId));
      }
    }
    if (!ignoreFields.isBlank()) {
      rules = rules.withIgnoreFields(List.of(ignoreFields.split(",")));
    }
    if (latestSource == null && latestTarget == null) {
      out.println(
          !erasures.isEmpty()
              ? "diff: none, the payloads of this natural id were erased"
              : gone.containsValue(Explained.Gone.DELETED)
                  ? "diff: the raw events of this natural id were deleted"
                  : "diff: the raw events of this natural id have expired");
    } else if (latestSource != null && latestTarget != null) {
      JsonDiff.Result result = JsonDiff.diff(latestSource, latestTarget, rules);
      List<Difference> diff = result.differences();
      out.println(
          "diff of the latest source and target payloads"
              + (rules.isEmpty() ? "" : " under these rules")
              + ": "
              + (diff.isEmpty() ? "none, they are equal" : diff.size() + " difference(s)")
              + (result.withinTolerance() > 0
                  ? " (" + result.withinTolerance() + " number(s) equal within tolerance)"
                  : ""));
      for (Difference d : diff) {
        out.println("  " + RowJson.difference(d));
      }
    } else {
      out.println(
          "diff: only the " + (latestSource != null ? "source" : "target") + " side was stored");
    }
    out.flush();
    return 0;
  }

  /**
   * Runs a read of {@code table}; a failure becomes one line naming the table, the warehouse and
   * the reason (a corrupt log or data file is a problem of the warehouse, not of this command).
   */
  private <T> T readTable(String table, Supplier<T> read) {
    try {
      return read.get();
    } catch (Exception e) { // checked ones too: some readers rethrow an IOException unchecked
      throw new StreamRecon.Failure(
          "explain: cannot read table "
              + table
              + " under --warehouse="
              + warehouseOption.location()
              + ": "
              + StreamRecon.errorLine(e),
          e);
    }
  }
}
