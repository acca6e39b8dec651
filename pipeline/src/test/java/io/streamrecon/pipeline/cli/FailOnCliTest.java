package io.streamrecon.pipeline.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.not;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamrecon.deltalake.DeltaLakeTables;
import io.streamrecon.model.DeltaRecord;
import io.streamrecon.model.MetricNames;
import io.streamrecon.model.Status;
import io.streamrecon.pipeline.FailOnRules;
import io.streamrecon.pipeline.run.Summary;
import io.streamrecon.pipeline.testing.Scenario;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.beam.sdk.PipelineResult;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * {@code run --failOn --summaryJson} on the shared scenario with the DirectRunner: the exit code
 * gates a CI step, the breached rules are printed, and the JSON file holds the printed counts.
 */
public class FailOnCliTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  private CliRun run(Path warehouse, Path summary, String... extra) throws IOException {
    Path input = Files.createDirectories(tmp.getRoot().toPath().resolve("input"));
    Scenario scenario = Scenario.writeTo(input);
    List<String> args = new ArrayList<>(List.of("run", "--runner=DirectRunner"));
    args.addAll(scenario.arguments(warehouse.toString()));
    args.add("--summaryJson=" + summary);
    args.addAll(List.of(extra));
    return CliRun.execute(args.toArray(new String[0]));
  }

  @Test
  public void aRunUnderItsThresholdsExitsZeroAndItsSummaryFileHoldsThePrintedCounts()
      throws IOException {
    Path warehouse = tmp.getRoot().toPath().resolve("wh");
    Path summary = tmp.getRoot().toPath().resolve("out/summary.json");
    CliRun r = run(warehouse, summary, "--failOn=deadLetters>1000,mismatch>99%");
    assertEquals(r.err(), 0, r.code());
    assertThat(r.err(), not(containsString("--failOn rule")));

    JsonNode json = new ObjectMapper().readTree(summary.toFile());
    assertEquals("scenario", json.get("runId").asText());
    assertEquals("DONE", json.get("state").asText());
    assertEquals(0, json.get("exitCode").asInt());
    assertTrue(json.get("countsAddUp").asBoolean());
    assertEquals(0, json.get("failOnBreached").size());
    assertFalse(json.get("release").asText().isEmpty());
    // Every count the terminal shows, with the value it shows.
    Map<String, Long> printed = printedCounts(r.out());
    assertEquals(printed.get("match"), (Long) json.get("counts").get("match").asLong());
    assertEquals(printed.get("mismatch"), (Long) json.get("counts").get("mismatch").asLong());
    assertEquals(
        printed.get("missing in target"),
        (Long) json.get("counts").get("missingInTarget").asLong());
    assertEquals(
        printed.get("missing in source"),
        (Long) json.get("counts").get("missingInSource").asLong());
    assertEquals(printed.get("raw events"), (Long) json.get("counts").get("rawEvents").asLong());
    assertEquals(
        printed.get("dead letters, source"),
        (Long) json.get("counts").get("deadLettersSource").asLong());
    assertEquals(printed.get("late"), (Long) json.get("counts").get("late").asLong());
    assertEquals(
        printed.get("events in verdicts"),
        (Long) json.get("counts").get("eventsInVerdicts").asLong());
    // Verdicts other than MATCH are rows of the deltas table (MATCH only with --emitMatches).
    Map<Status, Long> rows = new EnumMap<>(Status.class);
    for (DeltaRecord d : DeltaLakeTables.readDeltas(warehouse.toString())) {
      rows.merge(d.status(), 1L, Long::sum);
    }
    for (Status s : List.of(Status.MISMATCH, Status.MISSING_IN_TARGET, Status.MISSING_IN_SOURCE)) {
      assertEquals(s.name(), rows.get(s), (Long) json.get("verdicts").get(s.name()).asLong());
    }
    assertEquals(
        printed.get("match"), (Long) json.get("verdicts").get(Status.MATCH.name()).asLong());
    assertTrue(rows.get(Status.MISMATCH) > 0);
    // Counts and ids only: no payload, path or option value.
    String text = Files.readString(summary);
    assertThat(text, not(containsString(warehouse.toString())));
    assertThat(text, not(containsString("Lyon")));
  }

  @Test
  public void aBreachedRuleEndsTheRunWithItsOwnCodeAndOneLinePerRule() throws IOException {
    Path warehouse = tmp.getRoot().toPath().resolve("wh");
    Path summary = tmp.getRoot().toPath().resolve("summary.json");
    Files.writeString(summary, "{\"left\":\"by an earlier run\"}");
    CliRun r = run(warehouse, summary, "--failOn=mismatch>0,missing>100%,deadLetters>=1");
    assertEquals(r.err(), StreamRecon.EXIT_FAIL_ON, r.code());

    long mismatch = printedCounts(r.out()).get("mismatch");
    long deadLetters =
        printedCounts(r.out()).get("dead letters, source")
            + printedCounts(r.out()).get("dead letters, target");
    assertTrue(mismatch > 0 && deadLetters > 0);
    List<String> lines =
        r.err().lines().filter(l -> l.startsWith("streamrecon: --failOn")).toList();
    assertEquals(
        List.of(
            "streamrecon: --failOn rule mismatch>0 breached: mismatch " + mismatch,
            "streamrecon: --failOn rule deadLetters>=1 breached: deadLetters " + deadLetters),
        lines);

    JsonNode json = new ObjectMapper().readTree(summary.toFile());
    assertEquals(StreamRecon.EXIT_FAIL_ON, json.get("exitCode").asInt());
    assertTrue(json.get("countsAddUp").asBoolean());
    JsonNode breach = json.get("failOnBreached");
    assertEquals(2, breach.size());
    assertEquals("mismatch>0", breach.get(0).get("rule").asText());
    assertEquals("mismatch", breach.get(0).get("metric").asText());
    assertEquals(mismatch, breach.get(0).get("observed").asLong());
    assertFalse(breach.get(0).has("whole"));
    assertEquals(mismatch, json.get("counts").get("mismatch").asLong());
    assertEquals("deadLetters>=1", breach.get(1).get("rule").asText());
  }

  @Test
  public void aPercentageBreachNamesTheWholeInTheFile() throws IOException {
    Path summary = tmp.getRoot().toPath().resolve("summary.json");
    CliRun r = run(tmp.getRoot().toPath().resolve("wh"), summary, "--failOn=missing>=0%");
    assertEquals(r.err(), StreamRecon.EXIT_FAIL_ON, r.code());
    JsonNode json = new ObjectMapper().readTree(summary.toFile());
    JsonNode breach = json.get("failOnBreached").get(0);
    long verdicts = 0;
    for (JsonNode v : json.get("verdicts")) {
      verdicts += v.asLong();
    }
    assertEquals(verdicts, breach.get("whole").asLong());
    long missing =
        json.get("counts").get("missingInTarget").asLong()
            + json.get("counts").get("missingInSource").asLong();
    assertEquals(missing, breach.get("observed").asLong());
    assertEquals(100.0 * missing / verdicts, breach.get("observedPercent").asDouble(), 0.0001);
  }

  @Test
  public void aBadRuleIsOneLineAndExitTwoBeforeAnythingRuns() throws IOException {
    Path warehouse = tmp.getRoot().toPath().resolve("wh");
    Path summary = tmp.getRoot().toPath().resolve("summary.json");
    Files.writeString(summary, "{}");
    CliRun r = run(warehouse, summary, "--failOn=mismatch>0,missing>101%");
    assertOneLine(r, StreamRecon.EXIT_USAGE, "--failOn: 'missing>101%' has a percentage over 100%");
    assertThat(r.err(), containsString("METRIC one of mismatch, missingInTarget"));
    assertFalse(Files.exists(warehouse));
    assertEquals("a refused run leaves the file as it was", "{}", Files.readString(summary));
  }

  @Test
  public void anUnboundedKafkaRunRefusesFailOnAndSummaryJson() {
    CliRun r =
        CliRun.execute(
            "run",
            "--source=kafka://localhost:1/src",
            "--target=kafka://localhost:1/tgt",
            "--warehouse=" + tmp.getRoot().toPath().resolve("wh"),
            "--failOn=mismatch>0");
    assertOneLine(r, StreamRecon.EXIT_USAGE, "--failOn applies to bounded runs only");
    assertThat(r.err(), containsString("--kafkaMaxRecords or --kafkaMaxReadTime"));
    assertOneLine(
        CliRun.execute(
            "run",
            "--source=kafka://localhost:1/src",
            "--target=" + tmp.getRoot().toPath().resolve("target.jsonl"),
            "--warehouse=" + tmp.getRoot().toPath().resolve("wh"),
            "--summaryJson=" + tmp.getRoot().toPath().resolve("summary.json")),
        StreamRecon.EXIT_USAGE,
        "--summaryJson applies to bounded runs only");
    assertFalse(Files.exists(tmp.getRoot().toPath().resolve("wh")));
  }

  @Test
  public void aSummaryFileThatIsAFolderIsRefusedBeforeAnythingRuns() throws IOException {
    Path warehouse = tmp.getRoot().toPath().resolve("wh");
    CliRun r = run(warehouse, tmp.newFolder("out").toPath());
    assertOneLine(r, StreamRecon.EXIT_USAGE, "is a folder: give a file in it");
    assertFalse(Files.exists(warehouse));
  }

  @Test
  public void aReplayRefusesTheGateOptionsInsteadOfIgnoringThem() {
    for (String option : List.of("--failOn=mismatch>0", "--summaryJson=summary.json")) {
      IllegalArgumentException e =
          org.junit.Assert.assertThrows(
              IllegalArgumentException.class,
              () -> ReplayCommand.parse(List.of("--since=1970-01-01", option)));
      assertThat(
          e.getMessage(),
          containsString(option.substring(0, option.indexOf('=')) + " does not apply"));
    }
  }

  @Test
  public void countsThatDoNotAddUpOutrankABreachedRule() {
    Summary gap = new Summary(Map.of(MetricNames.RAW_EVENTS, 5L));
    Summary fine = new Summary(Map.of());
    List<FailOnRules.Breach> breached = FailOnRules.parse("deadLetters>=0").breaches(fine);
    assertEquals(1, breached.size());
    assertEquals(
        StreamRecon.EXIT_COUNTS, StreamRecon.exitCode(PipelineResult.State.DONE, gap, breached));
    assertEquals(
        StreamRecon.EXIT_FAIL_ON, StreamRecon.exitCode(PipelineResult.State.DONE, fine, breached));
    assertEquals(
        StreamRecon.EXIT_FAILED,
        StreamRecon.exitCode(PipelineResult.State.CANCELLED, gap, breached));
    assertEquals(0, StreamRecon.exitCode(PipelineResult.State.DONE, fine, List.of()));
  }

  /** The rows of the printed summary, by label. */
  private static Map<String, Long> printedCounts(String out) {
    Map<String, Long> counts = new java.util.HashMap<>();
    Matcher m = Pattern.compile("(?m)^  (\\S.*?)\\s+([0-9,]+)$").matcher(out);
    while (m.find()) {
      counts.put(m.group(1), Long.parseLong(m.group(2).replace(",", "")));
    }
    return counts;
  }

  private static void assertOneLine(CliRun r, int code, String expected) {
    assertEquals(r.err(), code, r.code());
    assertThat(r.err(), containsString(expected));
    assertThat(r.err(), not(containsString("\tat ")));
    assertEquals("one line: " + r.err(), 1, r.err().strip().lines().count());
  }
}
