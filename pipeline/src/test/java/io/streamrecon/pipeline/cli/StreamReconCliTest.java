package io.streamrecon.pipeline.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.not;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.streamrecon.pipeline.output.TerminalText;
import java.io.File;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** Bad command lines end with one clear stderr line and a non-zero exit, never a stack trace. */
public class StreamReconCliTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  private static CliRun execute(String... args) {
    return CliRun.execute(args);
  }

  private static void assertOneLine(CliRun r, int code, String expected) {
    assertEquals(r.err(), code, r.code());
    assertThat(r.err(), containsString(expected));
    assertThat(r.err(), not(containsString("\tat ")));
    assertEquals("one line: " + r.err(), 1, r.err().strip().lines().count());
  }

  @Test
  public void anOptionGivenTwiceIsRefusedWithoutItsValues() {
    CliRun r =
        execute(
            "run",
            "--source=a",
            "--target=b",
            "--kafkaProperties=sasl.jaas.config=${env:A}",
            "--kafkaProperties=ssl.truststore.password=${env:pw-7f3a91}");
    assertOneLine(
        r, StreamRecon.EXIT_USAGE, "streamrecon: --kafkaProperties is given more than once");
    assertThat(r.err(), not(containsString("env:")));
    assertOneLine(
        execute("run", "--source=a", "--target=b", "--timeout=1m", "--timeout=2m"),
        StreamRecon.EXIT_USAGE,
        "streamrecon: --timeout is given more than once");
  }

  @Test
  public void aListOptionOfBeamMayRepeat() {
    StreamRecon.refuseRepeatedOptions(
        java.util.List.of("--experiments=a", "--experiments=b", "--source=x"));
  }

  @Test
  public void aLiteralSecretInlineIsRefusedWithoutItsValue() {
    CliRun r =
        execute(
            "run",
            "--source=a",
            "--target=b",
            "--kafkaProperties=sasl.mechanism=PLAIN,sasl.jaas.config=\"x password=pw-7f3a91;\"");
    assertOneLine(
        r, StreamRecon.EXIT_USAGE, "streamrecon: --kafkaProperties: sasl.jaas.config is a secret");
    assertThat(r.err(), not(containsString("pw-7f3a91")));
  }

  @Test
  public void unknownOption() {
    assertOneLine(
        execute("run", "--source=a", "--target=b", "--bogus=1"),
        StreamRecon.EXIT_USAGE,
        "streamrecon: unknown option --bogus");
  }

  @Test
  public void badRulesFileStopsTheRunWithOneLineNamingTheMember() throws Exception {
    File source = tmp.newFile("s.jsonl");
    File rules = tmp.newFile("rules.json");
    java.nio.file.Files.writeString(
        rules.toPath(), "{\"tolerance\":{\"/amount\":{\"abs\":-0.01}}}");
    File warehouse = tmp.newFolder("wh");
    assertOneLine(
        execute(
            "run",
            "--source=" + source,
            "--target=" + source,
            "--warehouse=" + warehouse,
            "--rules=" + rules),
        StreamRecon.EXIT_USAGE,
        "--rules=" + rules + ": \"tolerance\" /amount: abs must not be negative, got -0.01");
    java.nio.file.Files.writeString(rules.toPath(), "{\"sort\":[\"/tags\"]}");
    assertOneLine(
        execute(
            "run",
            "--source=" + source,
            "--target=" + source,
            "--warehouse=" + warehouse,
            "--rules=" + rules),
        StreamRecon.EXIT_USAGE,
        "unknown member \"sort\"");
    assertEquals("nothing was written", 0, warehouse.list().length);
  }

  @Test
  public void missingInputFile() throws Exception {
    File target = tmp.newFile("t.jsonl");
    String missing = new File(tmp.getRoot(), "nope.jsonl").getPath();
    assertOneLine(
        execute(
            "run",
            "--source=" + missing,
            "--target=" + target,
            "--warehouse=" + tmp.newFolder("wh")),
        StreamRecon.EXIT_USAGE,
        "--source=" + missing + ": no such file");
  }

  @Test
  public void unwritableWarehouse() throws Exception {
    File source = tmp.newFile("s.jsonl");
    File notADir = tmp.newFile("plain-file");
    assertOneLine(
        execute(
            "run", "--source=" + source, "--target=" + source, "--warehouse=" + notADir + "/wh"),
        StreamRecon.EXIT_USAGE,
        "is not writable");
  }

  @Test
  public void badOptionValue() {
    assertOneLine(
        execute("run", "--source=a", "--target=b", "--timeout=forever"),
        StreamRecon.EXIT_USAGE,
        "--timeout=forever is not a duration");
    // Accepted once, it failed the run inside the pipeline (a timer past Beam's last timestamp).
    assertOneLine(
        execute("run", "--source=a", "--target=b", "--timeout=99999999999d"),
        StreamRecon.EXIT_USAGE,
        "--timeout=99999999999d is too long: must be at most 3650000d");
  }

  @Test
  public void anEmptyValueOfAnOptionThatIsNotTextIsNamed() {
    // Beam's own message names the type only ("... but received: int").
    assertOneLine(
        execute("run", "--source=a", "--target=b", "--runId=", "--maxEventBytes="),
        StreamRecon.EXIT_USAGE,
        "streamrecon: --maxEventBytes= has no value: give a whole number");
    assertOneLine(
        execute("run", "--source=a", "--target=b", "--emitMatches="),
        StreamRecon.EXIT_USAGE,
        "streamrecon: --emitMatches= has no value: give true or false");
    assertOneLine(
        execute("replay", "--warehouse=w", "--since=1970-01-01", "--pairingBuckets="),
        StreamRecon.EXIT_USAGE,
        "streamrecon: --pairingBuckets= has no value: give a whole number");
  }

  @Test
  public void showWithoutTable() throws Exception {
    assertOneLine(
        execute("show", "deltas", "--warehouse=" + tmp.newFolder("empty")),
        StreamRecon.EXIT_USAGE,
        "no deltas table under --warehouse=");
    assertOneLine(
        execute("show", "nonsense", "--warehouse=" + tmp.getRoot()),
        StreamRecon.EXIT_USAGE,
        "unknown table 'nonsense'");
  }

  @Test
  public void explainNeedsANaturalId() {
    assertOneLine(execute("explain"), StreamRecon.EXIT_USAGE, "--naturalId");
  }

  @Test
  public void aFailureWithoutAMessageIsNamedByItsTypeAndTheFirstMessageOfItsCauses() {
    assertEquals(
        "RuntimeException: Job aborted",
        StreamRecon.errorLine(new RuntimeException("\nJob aborted\n  at stage 3")));
    assertEquals(
        "IllegalStateException: disk full",
        StreamRecon.errorLine(
            new UncheckedIOException(
                new java.io.IOException(null, new IllegalStateException("\n  disk full")))));
    assertEquals(
        "NullPointerException",
        StreamRecon.errorLine(new RuntimeException(new NullPointerException())));
    // An option error keeps its message, written for the user.
    assertEquals(
        "--timeout=x is not a duration",
        StreamRecon.errorLine(
            new RuntimeException(new IllegalArgumentException("--timeout=x is not a duration"))));
  }

  @Test
  public void runWithoutInputsReconcilesTheBundledSamplesUnderTheOtherOptions() throws Exception {
    File samples = tmp.newFolder("samples");
    String event = "{\"id\":\"o-1\",\"eventTime\":\"2024-03-01T08:00:00Z\",\"amount\":1}%n";
    Files.writeString(samples.toPath().resolve("source.jsonl"), String.format(event));
    Files.writeString(samples.toPath().resolve("target.jsonl"), String.format(event));
    File warehouse = new File(tmp.getRoot(), "wh");
    String saved = System.setProperty(StreamRecon.SAMPLES_PROPERTY, samples.getPath());
    try {
      CliRun r = execute("run", "--runner=DirectRunner", "--warehouse=" + warehouse);
      assertEquals(r.err(), 0, r.code());
      assertThat(r.err(), containsString("reconciling the bundled samples in " + samples));
      assertTrue(Files.isDirectory(warehouse.toPath().resolve("raw_events/_delta_log")));
      // One side given: the other is still required, the samples are not mixed in.
      assertOneLine(
          execute("run", "--source=" + samples + "/source.jsonl", "--warehouse=" + warehouse),
          StreamRecon.EXIT_USAGE,
          "--target is required");
    } finally {
      if (saved == null) {
        System.clearProperty(StreamRecon.SAMPLES_PROPERTY);
      } else {
        System.setProperty(StreamRecon.SAMPLES_PROPERTY, saved);
      }
    }
  }

  @Test
  public void explainOnAnUnreadableTableNamesTheTableAndTheReason() throws Exception {
    File warehouse = tmp.newFolder("corrupt");
    Path log = warehouse.toPath().resolve("raw_events/_delta_log");
    Files.createDirectories(log);
    Files.writeString(log.resolve("00000000000000000000.json"), "this is not a transaction log\n");
    assertOneLine(
        execute("explain", "--naturalId=o-1", "--warehouse=" + warehouse),
        StreamRecon.EXIT_FAILED,
        "streamrecon: explain: cannot read table raw_events under --warehouse=" + warehouse + ": ");
  }

  /** Every file under {@code dir} with its size and modification time. */
  private static java.util.Map<String, String> files(Path dir) throws java.io.IOException {
    java.util.Map<String, String> files = new java.util.TreeMap<>();
    try (java.util.stream.Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.toList()) {
        files.put(
            dir.relativize(p).toString(),
            Files.isDirectory(p) ? "dir" : Files.size(p) + " " + Files.getLastModifiedTime(p));
      }
    }
    return files;
  }

  @Test
  public void runAndReplayIdsThatAreNotOnePathSegmentAreRefusedAndTheWarehouseStaysAsItWas()
      throws Exception {
    Path source = tmp.newFile("s.jsonl").toPath();
    Path target = tmp.newFile("t.jsonl").toPath();
    Files.writeString(source, "{\"id\":\"o-1\",\"eventTime\":\"2024-03-01T08:00:00Z\",\"v\":1}\n");
    Files.writeString(target, "{\"id\":\"o-1\",\"eventTime\":\"2024-03-01T08:00:00Z\",\"v\":2}\n");
    Path warehouse = tmp.newFolder("wh").toPath();
    String[] run = {
      "run",
      "--runner=DirectRunner",
      "--source=" + source,
      "--target=" + target,
      "--warehouse=" + warehouse
    };
    CliRun first = execute(run);
    assertEquals(first.err(), 0, first.code());
    java.util.Map<String, String> before = files(warehouse);
    assertTrue(before.toString(), before.containsKey("deltas/_delta_log"));

    String form = io.streamrecon.deltalake.WarehouseIds.FORM;
    for (String id : new String[] {"..", ".", "a:b", "a/b", "../wh"}) {
      String[] withId = java.util.Arrays.copyOf(run, run.length + 1);
      withId[run.length] = "--runId=" + id;
      assertOneLine(
          execute(withId), StreamRecon.EXIT_USAGE, "--runId=" + id + " is not valid: " + form);
      assertEquals("--runId=" + id, before, files(warehouse));
    }
    for (String id : new String[] {"..", ".", "a:b", "a/b"}) {
      assertOneLine(
          execute(
              "replay",
              "--runner=DirectRunner",
              "--warehouse=" + warehouse,
              "--since=1970-01-01",
              "--replayId=" + id),
          StreamRecon.EXIT_USAGE,
          "--replayId=" + id + " is not valid: " + form);
      assertEquals("--replayId=" + id, before, files(warehouse));
    }
  }

  @Test
  public void filesGivenToOptionsAreReadUpToALimitEvenWithoutASize() throws Exception {
    File warehouse = new File(tmp.getRoot(), "wh");
    assertOneLine(
        execute("run", "--source=a", "--target=b", "--warehouse=" + warehouse, "--rules=/dev/zero"),
        StreamRecon.EXIT_USAGE,
        "streamrecon: --rules=/dev/zero: the file is larger than the limit of 1 MiB");
    assertOneLine(
        execute(
            "run",
            "--source=a",
            "--target=b",
            "--warehouse=" + warehouse,
            "--kafkaPropertiesFile=/dev/zero"),
        StreamRecon.EXIT_USAGE,
        "streamrecon: --kafkaPropertiesFile=/dev/zero: the file is larger than the limit of 1 MiB");
    File folder = tmp.newFolder("rules");
    assertOneLine(
        execute("run", "--source=a", "--target=b", "--warehouse=" + warehouse, "--rules=" + folder),
        StreamRecon.EXIT_USAGE,
        "streamrecon: --rules=" + folder + " is a folder, not a file");
  }

  @Test
  public void showAndExplainEscapeWhatTheDataHoldsBeforeItReachesTheTerminal() throws Exception {
    // An escape sequence (ESC c resets a terminal), a C1 control (CSI), bidirectional overrides.
    String id = "o-\u001bc\u009b31m\u202e\u2066x\ny";
    String json = io.streamrecon.json.JsonSupport.mapper().writeValueAsString(id);
    Path in = tmp.newFolder("in").toPath();
    Path source = in.resolve("src\u001bc\u0085\u202e.jsonl");
    String head = "{\"id\":" + json + ",\"eventTime\":\"2024-03-01T08:00:00Z\",\"note\":";
    Files.writeString(source, head + "\"a\u009bb\u202ec\"}\nnot json \u009b\u202e\u001b[2J\n");
    Path target = in.resolve("target.jsonl");
    Files.writeString(target, head + "\"d\"}\n");
    File warehouse = new File(tmp.getRoot(), "wh");
    assertEquals(
        0,
        execute(
                "run",
                "--runner=DirectRunner",
                "--source=" + source,
                "--target=" + target,
                "--warehouse=" + warehouse)
            .code());
    for (String[] command :
        new String[][] {
          {"explain", "--naturalId=" + id, "--warehouse=" + warehouse},
          {"show", "deltas", "--warehouse=" + warehouse},
          {"show", "dead-letters", "--warehouse=" + warehouse},
          {"explain", "--naturalId=" + id + "-none", "--warehouse=" + warehouse}
        }) {
      CliRun o = execute(command);
      String printed = o.out() + o.err();
      // Jackson writes its own escapes in upper case.
      assertThat(
          TerminalText.escape(String.join(" ", command)),
          printed.toLowerCase(),
          containsString("\\u001b"));
      for (int i = 0; i < printed.length(); i++) {
        char c = printed.charAt(i);
        assertTrue(
            TerminalText.escape(String.join(" ", command))
                + " printed U+"
                + Integer.toHexString(c)
                + " at "
                + i
                + " of: "
                + TerminalText.escape(printed),
            c == '\n' || !TerminalText.isUnsafe(c));
      }
    }
    CliRun explain = execute("explain", "--naturalId=" + id, "--warehouse=" + warehouse);
    assertThat(
        explain.out(), containsString("natural id o-\\u001bc\\u009b31m\\u202e\\u2066x\\ny: "));
    assertThat(explain.out(), containsString("src\\u001bc\\u0085\\u202e.jsonl:1"));
  }
}
