package io.streamrecon.pipeline.metrics;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.Assume;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The alert rules shipped in ops/prometheus are valid ({@code promtool check rules}), each fires on
 * the series it is meant for and a healthy job fires none ({@code promtool test rules} on
 * streamrecon-alerts-test.yml), and they use only series of the metric table in docs/operations.md.
 * Without promtool the promtool checks are skipped, unless STREAMRECON_REQUIRE_PROMTOOL is set (as
 * CI does), which makes them fail instead.
 */
public class AlertRulesTest {
  private static final Path RULES_DIR = Path.of("..", "ops", "prometheus");
  private static final Path RULES = RULES_DIR.resolve("streamrecon-alerts.yml");
  private static final Path RULE_TESTS = RULES_DIR.resolve("streamrecon-alerts-test.yml");
  private static final Path OPERATIONS = Path.of("..", "docs", "operations.md");
  private static final Pattern SERIES = Pattern.compile("\\bstreamrecon_[a-z_]+");

  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  @Test
  public void promtoolAcceptsTheRules() throws Exception {
    Result r = promtool("check", "rules", RULES.getFileName().toString());
    assertEquals(r.output, 0, r.code);
    assertTrue(r.output, r.output.contains("SUCCESS"));
  }

  @Test
  public void eachRuleFiresOnItsSeriesAndAHealthyJobFiresNone() throws Exception {
    Result r = promtool("test", "rules", RULE_TESTS.getFileName().toString());
    assertEquals(r.output, 0, r.code);
  }

  @Test
  public void theRulesUseOnlySeriesOfTheMetricTable() throws IOException {
    Set<String> documented = documentedSeries();
    Set<String> used = new TreeSet<>();
    Matcher m = SERIES.matcher(Files.readString(RULES, StandardCharsets.UTF_8));
    while (m.find()) {
      used.add(m.group());
    }
    assertTrue("rules use no series", !used.isEmpty());
    used.removeAll(documented);
    assertEquals("series the rules use that docs/operations.md does not list", Set.of(), used);
  }

  /** The first column of the metric table: rows starting with {@code | `streamrecon_}. */
  static Set<String> documentedSeries() throws IOException {
    Set<String> names = new TreeSet<>();
    Pattern row = Pattern.compile("^\\| `(streamrecon_[a-z_]+)`");
    for (String line : Files.readAllLines(OPERATIONS, StandardCharsets.UTF_8)) {
      Matcher m = row.matcher(line);
      if (m.find()) {
        names.add(m.group(1));
      }
    }
    return names;
  }

  private record Result(int code, String output) {}

  /** Runs promtool in the rules' directory, with a deadline; its process is killed in any case. */
  private Result promtool(String... args) throws Exception {
    String promtool = onPath("promtool");
    if (promtool == null) {
      String required = System.getenv("STREAMRECON_REQUIRE_PROMTOOL");
      if (required != null && !required.isEmpty() && !required.equals("0")) {
        throw new AssertionError("promtool not found on PATH (apt-get install -y prometheus)");
      }
      Assume.assumeTrue(
          "promtool not installed; set STREAMRECON_REQUIRE_PROMTOOL=1 to fail", false);
    }
    File out = tmp.newFile();
    List<String> cmd = new java.util.ArrayList<>(List.of(promtool));
    cmd.addAll(List.of(args));
    Process p =
        new ProcessBuilder(cmd)
            .directory(RULES_DIR.toFile())
            .redirectErrorStream(true)
            .redirectOutput(out)
            .start();
    try {
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        throw new AssertionError("promtool " + String.join(" ", args) + " did not end in 60 s");
      }
      return new Result(p.exitValue(), Files.readString(out.toPath(), StandardCharsets.UTF_8));
    } finally {
      p.destroyForcibly();
    }
  }

  private static String onPath(String program) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      Path candidate = Path.of(dir, program);
      if (Files.isExecutable(candidate)) {
        return candidate.toString();
      }
    }
    return null;
  }
}
