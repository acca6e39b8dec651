package io.streamrecon.pipeline.report;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamrecon.deltalake.DeltaLakeTables;
import io.streamrecon.model.DeltaRecord;
import io.streamrecon.model.Difference;
import io.streamrecon.model.Status;
import io.streamrecon.pipeline.cli.StreamRecon;
import io.streamrecon.pipeline.output.TerminalText;
import io.streamrecon.pipeline.run.ReconcileRun;
import io.streamrecon.pipeline.run.Summary;
import io.streamrecon.pipeline.testing.Scenario;
import java.awt.image.BufferedImage;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.junit.AfterClass;
import org.junit.Assume;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * The report of a warehouse written by a real pipeline run (the shared {@link Scenario} on the
 * DirectRunner, plus hostile input: markup in a bad line, a natural id and a value), checked
 * against the run's own summary and the deltas table, and opened in Debian's headless Chromium: the
 * charts must have rendered (SVG present, non-empty bounding boxes, chart colours painted in the
 * screenshot) with no console message at all.
 */
public class ReportTest {
  private static final String HOSTILE_LINE =
      "<img src=x onerror=console.error('xss-img')><script>console.error('xss-script')</script>";
  private static final String HOSTILE_ID = "<b>id</b>&'\"";

  /** An id a terminal acts on: an escape sequence, a C1 control, a bidi override, a newline. */
  private static final String CONTROL_ID = "ctl-\u001b[31m'\u0085\u202e\\x $(id)\ny";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long BROWSER_DEADLINE_SECONDS = 90;

  private static Path dir;
  private static Path warehouse;
  private static Summary summary;
  private static ReportData data;
  private static Path page;
  private static String html;

  @BeforeClass
  public static void runScenarioAndWriteReport() throws Exception {
    dir = Files.createTempDirectory("report-test");
    Path in = Files.createDirectories(dir.resolve("in"));
    Scenario scenario = Scenario.writeTo(in);
    String id = JSON.writeValueAsString(HOSTILE_ID);
    Files.writeString(
        in.resolve("source.jsonl"),
        HOSTILE_LINE
            + "\n{\"id\":"
            + id
            + ",\"eventTime\":\"2024-03-02T00:00:00Z\",\"<u>f</u>\":\"<i>source</i>\"}\n",
        java.nio.file.StandardOpenOption.APPEND);
    Files.writeString(
        in.resolve("target.jsonl"),
        "{\"id\":" + id + ",\"eventTime\":\"2024-03-02T00:00:00Z\",\"<u>f</u>\":\"</td><td>\"}\n",
        java.nio.file.StandardOpenOption.APPEND);
    String controlId = JSON.writeValueAsString(CONTROL_ID);
    for (String side : List.of("source", "target")) {
      Files.writeString(
          in.resolve(side + ".jsonl"),
          "{\"id\":"
              + controlId
              + ",\"eventTime\":\"2024-03-02T00:00:00Z\",\"v\":\""
              + side
              + "\"}\n",
          java.nio.file.StandardOpenOption.APPEND);
    }
    warehouse = dir.resolve("warehouse");
    ReconcileRun.FinishedRun outcome = Scenario.runToCompletion(scenario.options(warehouse));
    summary = outcome.summary();
    data = ReportReader.read(new ReportReader.Selection(warehouse.toString(), null, null, null));
    page = dir.resolve("report.html");
    assertEquals(
        0,
        StreamRecon.execute(
            "report", "--warehouse=" + warehouse, "--out=" + page, "--runId=scenario"));
    html = Files.readString(page, StandardCharsets.UTF_8);
  }

  @AfterClass
  public static void cleanUp() throws IOException {
    if (dir != null) {
      try (var paths = Files.walk(dir)) {
        paths.sorted(java.util.Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
      }
    }
  }

  @Test
  public void countsAgreeWithTheRunsOwnSummary() {
    ReportData.RunCounts t = data.totals();
    assertEquals(summary.input(), t.input());
    assertEquals(summary.raw(), t.raw());
    assertEquals(summary.deadLetters(), t.dead());
    assertEquals(summary.get("late"), t.late());
    // What the tables cannot tell apart is exactly what the run counted without storing it: the
    // events of MATCH verdicts not written (a MATCH that supersedes a mismatch is written, and
    // whether one occurs depends on arrival order), duplicates and superseded versions.
    long storedMatches =
        DeltaLakeTables.readDeltas(warehouse.toString()).stream()
            .filter(r -> r.status() == Status.MATCH)
            .count();
    assertEquals(
        2 * (summary.get("match") - storedMatches)
            + summary.get("duplicate")
            + summary.get("superseded"),
        t.eventsWithoutStoredVerdict());
    assertEquals(
        List.of("scenario"), data.runs().stream().map(ReportData.RunCounts::runId).toList());
  }

  @Test
  public void finalVerdictsAndFieldsAgreeWithTheDeltasTable() {
    List<DeltaRecord> records = DeltaLakeTables.readDeltas(warehouse.toString());
    Set<String> superseded = new HashSet<>();
    records.stream()
        .filter(r -> r.supersedes() != null)
        .forEach(r -> superseded.add(r.supersedes()));
    Map<Status, Long> byStatus = new HashMap<>();
    Map<String, Long> paths = new HashMap<>();
    for (DeltaRecord r : records) {
      if (superseded.contains(r.verdictId())) {
        continue;
      }
      byStatus.merge(r.status(), 1L, Long::sum);
      if (r.status() == Status.MISMATCH) {
        Set<String> seen = new HashSet<>();
        for (Difference d : r.differences()) {
          if (seen.add(d.path().replaceAll("/(0|[1-9][0-9]*)(?=/|$)", "/*"))) {
            paths.merge(d.path().replaceAll("/(0|[1-9][0-9]*)(?=/|$)", "/*"), 1L, Long::sum);
          }
        }
      }
    }
    for (Status s : Status.values()) {
      assertEquals(s.name(), byStatus.getOrDefault(s, 0L), data.finalVerdicts().get(s));
    }
    assertThat(byStatus.get(Status.MISMATCH), greaterThan(10L));
    for (ReportData.FieldStat f : data.fields()) {
      assertEquals(f.path(), paths.get(f.path()), (Long) f.records());
    }
    assertThat(
        data.fields().stream().map(ReportData.FieldStat::path).toList(), hasItem("/items/*/qty"));
    assertEquals(
        Math.min(ReportReader.RECENT, byStatus.get(Status.MISMATCH)),
        (long) data.recentMismatches().size());
    long timelineTotal = 0;
    for (long[] bucket : data.timeline().counts()) {
      for (long v : bucket) {
        timelineTotal += v;
      }
    }
    assertEquals(byStatus.values().stream().mapToLong(Long::longValue).sum(), timelineTotal);
  }

  @Test
  public void everythingFromTheDataIsEscaped() throws Exception {
    for (String h : List.of(html, hostileOnly())) {
      assertThat(h, not(containsString("<script>console")));
      assertThat(h, not(containsString("<img")));
      assertThat(h, not(containsString("<b>id</b>")));
      assertThat(h, not(containsString("<u>f</u>")));
      assertThat(h, not(containsString("<i>source")));
      assertThat(h, not(containsString("\"</td><td>\"")));
    }
    assertThat(html, containsString("&lt;img src=x onerror=console.error(&#39;xss-img&#39;)&gt;"));
    // The member name "<u>f</u>" is the pointer /<u>f<~1u> (RFC 6901 escapes the slash).
    assertThat(html, containsString("<code>/&lt;u&gt;f&lt;~1u&gt;</code>"));
    assertThat(html, containsString("&lt;b&gt;id&lt;/b&gt;&amp;&#39;&quot;"));
    assertThat(html, containsString("&quot;&lt;/td&gt;&lt;td&gt;&quot;"));
    // The explain command quotes the id for the shell, then for HTML.
    assertThat(
        hostileOnly(),
        containsString(
            "--naturalId=&#39;&lt;b&gt;id&lt;/b&gt;&amp;&#39;&quot;&#39;&quot;&#39;&quot;&#39;"));
  }

  /**
   * The explain command as the page shows it (the text a user copies), pasted into bash, passes
   * exactly the natural id and the warehouse: bash runs it with {@code printf} in place of the
   * launcher, which prints each argument it was given.
   */
  @Test
  public void theExplainCommandOnThePagePastesBackIntoBashAsTheSameArguments() throws Exception {
    Matcher m = Pattern.compile("<code class=\"cmd\">([^<]*)</code>").matcher(hostileOnly());
    Set<String> ids = new HashSet<>();
    while (m.find()) {
      String shown = htmlText(m.group(1));
      for (char c : shown.toCharArray()) {
        assertTrue(
            "printable only: " + TerminalText.escape(shown),
            c >= 0x20 && c < 0x7f || c > 0xa0 && c < 0x2000);
      }
      String launcher = "bin/streamrecon ";
      assertTrue(shown, shown.startsWith(launcher));
      List<String> args = bashArguments(shown.substring(launcher.length()));
      assertEquals(shown, 3, args.size());
      assertEquals("explain", args.get(0));
      assertTrue(args.get(1), args.get(1).startsWith("--naturalId="));
      assertEquals("--warehouse=" + warehouse, args.get(2));
      ids.add(args.get(1).substring("--naturalId=".length()));
    }
    assertEquals(Set.of(HOSTILE_ID, CONTROL_ID), ids);
  }

  /** Text content as a browser shows it: the page's character references resolved. */
  private static String htmlText(String html) {
    return html.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&");
  }

  /** The arguments bash passes to a command given {@code words} (its own quoting applied). */
  private static List<String> bashArguments(String words) throws Exception {
    Process p =
        new ProcessBuilder("bash", "-c", "printf '%s\\0' " + words)
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    byte[] out = p.getInputStream().readAllBytes();
    assertTrue("bash finished", p.waitFor(BROWSER_DEADLINE_SECONDS, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue());
    String all = new String(out, StandardCharsets.UTF_8);
    assertTrue(all, all.endsWith("\0"));
    return List.of(all.substring(0, all.length() - 1).split("\0", -1));
  }

  @Test
  public void theReportFollowsNoLinkPlantedAtATemporaryName() throws Exception {
    Path out = Files.createDirectories(dir.resolve("planted"));
    Path victim = dir.resolve("victim.txt");
    Files.writeString(victim, "not yours");
    for (String name : List.of(".r.html.tmp", ".r.html.tmp.html", "r.html.tmp")) {
      Files.createSymbolicLink(out.resolve(name), victim);
    }
    assertEquals(
        0,
        StreamRecon.execute(
            "report",
            "--warehouse=" + warehouse,
            "--out=" + out.resolve("r.html"),
            "--since=2024-03-02"));
    assertEquals("not yours", Files.readString(victim));
    assertTrue(Files.isRegularFile(out.resolve("r.html"), java.nio.file.LinkOption.NOFOLLOW_LINKS));
    assertThat(Files.readString(out.resolve("r.html")), containsString("<!DOCTYPE html>"));
  }

  @Test
  public void anOutThatIsNoFileIsAUsageErrorInOneLine() throws Exception {
    Path folder = Files.createDirectories(dir.resolve("a-folder"));
    assertUsageError("streamrecon: --out is empty: give the HTML file to write", "--out=");
    assertUsageError(
        "streamrecon: --out="
            + folder
            + " is a folder: give the HTML file to write, e.g. --out="
            + folder
            + "/report.html",
        "--out=" + folder);
    assertUsageError("--out=" + folder + "/ is a folder", "--out=" + folder + "/");
    Path missing = dir.resolve("no-such");
    assertUsageError(
        "streamrecon: --out="
            + missing
            + "/ ends with a slash, which names a folder: give the"
            + " HTML file to write, e.g. --out="
            + missing
            + "/report.html",
        "--out=" + missing + "/");
    assertTrue("nothing written", Files.notExists(missing));
    Path file = Files.writeString(dir.resolve("a-file"), "x");
    assertUsageError(
        "streamrecon: --out=" + file + "/sub/r.html: " + file + " is a file, not a folder",
        "--out=" + file + "/sub/r.html");
  }

  private static void assertUsageError(String expected, String out) {
    java.io.PrintStream old = System.err;
    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
    System.setErr(new java.io.PrintStream(err, true, StandardCharsets.UTF_8));
    int code;
    try {
      code = StreamRecon.execute("report", "--warehouse=" + warehouse, out);
    } finally {
      System.setErr(old);
    }
    String text = err.toString(StandardCharsets.UTF_8);
    assertEquals(text, StreamRecon.EXIT_USAGE, code);
    assertThat(text, containsString(expected));
    assertEquals("one line: " + text, 1, text.strip().lines().count());
  }

  /** The report of the hostile pair alone (its event time is a day after the scenario's). */
  private static String hostileOnly() throws IOException {
    Path out = dir.resolve("hostile.html");
    if (!Files.exists(out)) {
      assertEquals(
          0,
          StreamRecon.execute(
              "report", "--warehouse=" + warehouse, "--out=" + out, "--since=2024-03-02"));
    }
    String h = Files.readString(out, StandardCharsets.UTF_8);
    assertThat(h, containsString("<h2>The 20 most recent mismatches</h2>"));
    return h;
  }

  @Test
  public void pageIsSelfContained() {
    // The only URL is the SVG namespace name, which is never fetched.
    String text = html.replace("http://www.w3.org/2000/svg", "");
    Matcher m = Pattern.compile("(?i)(https?:|//[a-z])").matcher(text);
    boolean found = m.find();
    assertTrue(
        "external reference: " + (found ? text.substring(m.start(), m.start() + 200) : ""), !found);
    // No element loads anything: no src, no href other than the page's own anchors.
    Matcher ref = Pattern.compile("(?i)<[a-z][^>]*\\s(src|href)\\s*=\\s*(?!\"?#)").matcher(html);
    boolean loads = ref.find();
    assertTrue(
        "loads something: " + (loads ? html.substring(ref.start(), ref.start() + 200) : ""),
        !loads);
  }

  @Test
  public void badWindowIsAUsageError() {
    assertEquals(
        StreamRecon.EXIT_USAGE,
        StreamRecon.execute("report", "--warehouse=" + warehouse, "--since=yesterday"));
    assertEquals(
        StreamRecon.EXIT_USAGE,
        StreamRecon.execute("report", "--warehouse=" + warehouse, "--runId=no-such-run"));
  }

  @Test
  public void windowRestrictsVerdictsButNotTheIdentities() throws Exception {
    ReportData window =
        ReportReader.read(
            new ReportReader.Selection(
                warehouse.toString(),
                null,
                Instant.parse("2024-03-01T08:00:00Z"),
                Instant.parse("2024-03-01T08:05:00Z")));
    long inWindow = window.finalVerdicts().values().stream().mapToLong(Long::longValue).sum();
    long all = data.finalVerdicts().values().stream().mapToLong(Long::longValue).sum();
    assertThat(inWindow, greaterThan(0L));
    assertTrue(inWindow + " < " + all, inWindow < all);
    assertEquals(data.totals(), window.totals());
  }

  // ------------------------------------------------------------------ the real browser

  @Test
  public void chartsRenderInHeadlessChromiumWithoutConsoleMessages() throws Exception {
    String chromium = chromium();
    Browser dom = runChromium(chromium, page, "--window-size=1280,1000", "--dump-dom");
    assertEquals("no console message expected:\n" + dom.log, List.of(), consoleLines(dom.log));
    Matcher m = Pattern.compile("<pre id=\"render-check\"[^>]*>([^<]*)</pre>").matcher(dom.out);
    assertTrue("render check element filled by the page's script", m.find());
    JsonNode check = JSON.readTree(m.group(1).replace("&amp;", "&"));
    Map<String, JsonNode> charts = new HashMap<>();
    check.path("charts").forEach(c -> charts.put(c.path("chart").asText(), c));
    assertEquals(Set.of("status", "timeline", "fields", "latency"), charts.keySet());
    for (JsonNode c : charts.values()) {
      assertThat(c.toString(), c.path("width").asDouble(), greaterThan(400.0));
      assertThat(c.toString(), c.path("height").asDouble(), greaterThan(50.0));
      assertThat(c.toString(), c.path("marks").asInt(), greaterThan(5));
    }
    int height = check.path("height").asInt();
    assertThat(height, greaterThan(1000));

    Path png = dir.resolve("report.png");
    Browser shot =
        runChromium(
            chromium,
            page,
            "--window-size=1280," + Math.min(height, 16000),
            "--hide-scrollbars",
            "--screenshot=" + png);
    assertEquals("no console message expected:\n" + shot.log, List.of(), consoleLines(shot.log));
    BufferedImage image = ImageIO.read(png.toFile());
    assertEquals(1280, image.getWidth());
    // The charts were painted: the Okabe–Ito mismatch and missing colours are on the screen.
    Set<Integer> colours = new HashSet<>();
    for (int y = 0; y < image.getHeight(); y += 2) {
      for (int x = 0; x < image.getWidth(); x += 2) {
        colours.add(image.getRGB(x, y) & 0xffffff);
      }
    }
    assertThat(colours, hasItem(0xD55E00));
    assertThat(colours, hasItem(0x0072B2));
    assertThat(colours, hasItem(0xE69F00));
  }

  /**
   * The scenario's batch run has no late events; the late-events chart is checked on the same data
   * with late events added (three hours, one of them empty, which must still show as a gap).
   */
  @Test
  public void lateEventsChartRendersWithGaps() throws Exception {
    Map<Long, Long> late = new java.util.TreeMap<>();
    long hour = Instant.parse("2024-03-01T08:00:00Z").toEpochMilli();
    late.put(hour, 5L);
    late.put(hour + 2 * 3_600_000L, 2L);
    ReportData withLate =
        new ReportData(
            data.warehouse(),
            data.selection(),
            data.generatedAt(),
            data.runs(),
            data.totals(),
            data.finalVerdicts(),
            data.supersededVerdicts(),
            data.timeline(),
            data.fields(),
            data.mismatchRecords(),
            data.latency(),
            data.deadLetters(),
            late,
            data.recentMismatches());
    Path latePage = dir.resolve("late.html");
    Files.writeString(latePage, ReportHtml.render(withLate), StandardCharsets.UTF_8);
    String h = Files.readString(latePage);
    assertThat(h, containsString("<title>03-01 08:00: 5</title>"));
    assertThat(h, containsString("<title>03-01 09:00: 0</title>"));
    assertThat(h, containsString("<title>03-01 10:00: 2</title>"));
    Browser dom = runChromium(chromium(), latePage, "--window-size=1280,1000", "--dump-dom");
    assertEquals(List.of(), consoleLines(dom.log));
    Matcher m = Pattern.compile("<pre id=\"render-check\"[^>]*>([^<]*)</pre>").matcher(dom.out);
    assertTrue(m.find());
    JsonNode lateChart = null;
    for (JsonNode c : JSON.readTree(m.group(1).replace("&amp;", "&")).path("charts")) {
      if (c.path("chart").asText().equals("late")) {
        lateChart = c;
      }
    }
    assertTrue("late chart measured", lateChart != null);
    assertThat(lateChart.path("width").asDouble(), greaterThan(400.0));
    assertThat(lateChart.path("height").asDouble(), greaterThan(50.0));
  }

  /** The console check would notice a script error: a page with one makes a console line. */
  @Test
  public void consoleCaptureSeesScriptErrors() throws Exception {
    Path bad = dir.resolve("bad.html");
    Files.writeString(
        bad, "<!DOCTYPE html><html><body><script>notDefined();</script></body></html>");
    Browser b = runChromium(chromium(), bad, "--dump-dom");
    assertThat(consoleLines(b.log).toString(), containsString("Uncaught ReferenceError"));
  }

  private record Browser(String out, String log) {}

  private static List<String> consoleLines(String log) {
    List<String> lines = new ArrayList<>();
    for (String line : log.split("\n")) {
      if (line.contains(":CONSOLE")) {
        lines.add(line);
      }
    }
    return lines;
  }

  /** Debian's chromium; the test is skipped without it unless the build requires a browser. */
  private static String chromium() {
    for (String dirName : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      File f = new File(dirName, "chromium");
      if (f.canExecute()) {
        return f.getPath();
      }
    }
    String required = System.getenv("STREAMRECON_REQUIRE_BROWSER");
    if (required != null && !required.isEmpty() && !required.equals("0")) {
      throw new AssertionError("chromium not found on PATH (apt-get install -y chromium)");
    }
    Assume.assumeTrue("chromium not installed; set STREAMRECON_REQUIRE_BROWSER=1 to fail", false);
    return null;
  }

  /**
   * Runs headless Chromium once on a file (its --dump-dom and --screenshot are synchronous: the
   * process ends when the page is done) with a deadline; the process tree is killed in any case.
   */
  private static Browser runChromium(String chromium, Path file, String... args) throws Exception {
    Path profile = Files.createTempDirectory(dir, "chromium-profile");
    Path out = dir.resolve("chromium-" + System.nanoTime() + ".out");
    Path err = dir.resolve("chromium-" + System.nanoTime() + ".err");
    List<String> cmd = new ArrayList<>();
    cmd.add(chromium);
    cmd.addAll(
        List.of(
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            // Containers often have a tiny /dev/shm; Chromium then crashes without this.
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--user-data-dir=" + profile,
            "--enable-logging=stderr",
            "--v=0"));
    cmd.addAll(List.of(args));
    cmd.add(file.toUri().toString());
    Process p =
        new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    try {
      assertTrue(
          "chromium did not finish within " + BROWSER_DEADLINE_SECONDS + " s",
          p.waitFor(BROWSER_DEADLINE_SECONDS, TimeUnit.SECONDS));
      assertEquals("chromium exit code; log:\n" + Files.readString(err), 0, p.exitValue());
      return new Browser(
          Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } finally {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    }
  }
}
