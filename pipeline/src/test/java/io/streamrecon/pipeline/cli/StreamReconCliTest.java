package io.streamrecon.pipeline.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.not;
import static org.junit.Assert.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** Bad command lines end with one clear stderr line and a non-zero exit, never a stack trace. */
public class StreamReconCliTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  private record Result(int code, String err) {}

  private static Result execute(String... args) {
    PrintStream old = System.err;
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      int code = StreamRecon.execute(args);
      return new Result(code, err.toString(StandardCharsets.UTF_8));
    } finally {
      System.setErr(old);
    }
  }

  private static void assertOneLine(Result r, int code, String expected) {
    assertEquals(r.err(), code, r.code());
    assertThat(r.err(), containsString(expected));
    assertThat(r.err(), not(containsString("\tat ")));
    assertEquals("one line: " + r.err(), 1, r.err().strip().lines().count());
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
    assertEquals(
        "nothing was written", 0, warehouse.list().length);
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
            "run",
            "--source=" + source,
            "--target=" + source,
            "--warehouse=" + notADir + "/wh"),
        StreamRecon.EXIT_USAGE,
        "is not writable");
  }

  @Test
  public void badOptionValue() {
    assertOneLine(
        execute("run", "--source=a", "--target=b", "--timeout=forever"),
        StreamRecon.EXIT_USAGE,
        "--timeout=forever is not a duration");
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
}
