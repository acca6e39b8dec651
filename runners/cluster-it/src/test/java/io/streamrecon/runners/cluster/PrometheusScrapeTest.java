package io.streamrecon.runners.cluster;

import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamrecon.deltalake.DeltaLakeTables;
import io.streamrecon.model.DeltaRecord;
import io.streamrecon.model.Status;
import io.streamrecon.pipeline.samples.SampleGenerator;
import io.streamrecon.pipeline.testing.ChildProcesses;
import io.streamrecon.pipeline.testing.CrashHarness;
import io.streamrecon.pipeline.testing.EmbeddedKafka;
import io.streamrecon.pipeline.testing.Scenario;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import org.junit.After;
import org.junit.Assume;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * A real Prometheus (Debian's package, in its own process, with a generated configuration, a free
 * port and its storage in a temporary directory) scrapes a streaming job started with {@code
 * bin/streamrecon run} on the SparkRunner and on the FlinkRunner, and evaluates the shipped alert
 * rules: the input series move as records flow, the verdict and row series equal the tables once
 * the job is done, and a dead letter fired {@code StreamreconDeadLetters}. Without the prometheus
 * binary the test is skipped, unless STREAMRECON_REQUIRE_PROMTOOL is set (as CI does), which makes
 * it fail.
 */
public class PrometheusScrapeTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private static final ObjectMapper JSON = new ObjectMapper();

  private int prometheusPort;
  private Process server;

  /** Stops the Prometheus a test started. */
  @After
  public void stopPrometheus() {
    if (server != null) {
      ChildProcesses.kill(server);
    }
  }

  @Test
  public void prometheusScrapesARunningSparkJobAndItsSeriesEqualTheTables() throws Exception {
    int uiPort = Distribution.freePort();
    scrapeAStreamingJob(
        List.of("--runner=SparkRunner", "--sparkMaster=local[2]", "--batchIntervalMillis=1000"),
        List.of("-Dspark.ui.port=" + uiPort),
        "/metrics/prometheus",
        uiPort,
        List.of());
  }

  /**
   * The same on the FlinkRunner's embedded cluster: its Prometheus reporter, on the port the run's
   * Flink configuration names (the reporter class is the one bin/streamrecon adds by default).
   */
  @Test
  public void prometheusScrapesARunningFlinkJobAndItsSeriesEqualTheTables() throws Exception {
    int reporterPort = Distribution.freePort();
    Path conf = tmp.newFolder("flink-conf").toPath();
    Files.writeString(
        conf.resolve("config.yaml"), "metrics.reporter.prom.port: " + reporterPort + "\n");
    scrapeAStreamingJob(
        List.of(
            "--runner=FlinkRunner",
            "--flinkMaster=[local]",
            // One subtask per operator: each topic has one partition, and with two subtasks the
            // second source subtask reads none; in one of two runs the operators' watermark then
            // stayed at its minimum and no entry closed. Adding up subtasks is the reporter's
            // unit test's (BeamPrometheusReporterTest).
            "--parallelism=1",
            "--checkpointingInterval=2000",
            "--flinkConfDir=" + conf),
        List.of(),
        "/metrics",
        reporterPort,
        List.of(
            "flink_jobmanager_job_lastCheckpointDuration",
            "flink_taskmanager_job_task_operator_numRecordsIn"));
  }

  /**
   * A streaming job from Kafka, started with bin/streamrecon with {@code runnerArgs} and {@code
   * jvmOptions}, serving its series at {@code metricsPath} on {@code metricsPort}, scraped by a
   * Prometheus this test starts, which also finds the runner's own {@code engineSeries} on the same
   * page while the job runs.
   */
  private void scrapeAStreamingJob(
      List<String> runnerArgs,
      List<String> jvmOptions,
      String metricsPath,
      int metricsPort,
      List<String> engineSeries)
      throws Exception {
    String prometheus = prometheusBinary();
    Path root = Distribution.runnersDir().normalize().getParent();
    Path dir = tmp.getRoot().toPath();
    Path wh = dir.resolve("wh");
    SampleGenerator g = SampleGenerator.generate(Scenario.SEED, Scenario.IDS);
    List<String> source = g.sourceLines();
    List<String> target = g.targetLines();
    int half = source.size() / 2;

    try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
      kafka.createTopics("src", "tgt");
      kafka.produceLines("src", source.subList(0, half));
      kafka.produceLines("tgt", target);

      Path jobLog = dir.resolve("job.log");
      List<String> args = new ArrayList<>(runnerArgs);
      args.addAll(
          List.of(
              "--source=" + kafka.uri("src"),
              "--target=" + kafka.uri("tgt"),
              "--warehouse=" + wh,
              "--kafkaMaxOutOfOrderness=5s",
              "--kafkaIdleAfter=10s",
              "--timeout=1m",
              "--commitInterval=1s",
              "--kafkaProperties=group.id=prometheus-" + UUID.randomUUID()));
      Process job = CrashHarness.binStreamrecon(root).start(args, jobLog, null, jvmOptions);
      Path serverLog = dir.resolve("prometheus.log");
      try {
        server = startPrometheus(prometheus, dir, metricsPath, metricsPort, serverLog);
        Process running = job;

        // The first half of the source and the whole target are read.
        long firstPart = half + target.size();
        ChildProcesses.await(
            "Prometheus sees the first " + firstPart + " records read",
            240,
            running,
            jobLog,
            () -> query("sum(streamrecon_input_records_total)") == firstPart,
            () ->
                "input "
                    + query("sum(streamrecon_input_records_total)")
                    + "; prometheus log:\n"
                    + ChildProcesses.tail(serverLog, 10));

        // More records, one of them not an event: the series move with them.
        List<String> rest = new ArrayList<>(source.subList(half, source.size()));
        rest.add("not an event");
        kafka.produceLines("src", rest);
        long all = firstPart + rest.size();
        ChildProcesses.await(
            "Prometheus sees all " + all + " records read",
            120,
            running,
            jobLog,
            () -> query("sum(streamrecon_input_records_total)") == all,
            () -> "input " + query("sum(streamrecon_input_records_total)"));
        ChildProcesses.await(
            "the shipped rule StreamreconDeadLetters fires",
            120,
            running,
            jobLog,
            () -> firing("StreamreconDeadLetters"),
            () -> ChildProcesses.tail(serverLog, 10));

        // Once every entry closed and its verdict was committed, the series equal the tables.
        ChildProcesses.await(
            "the verdict series equal the deltas table",
            240,
            running,
            jobLog,
            () -> openEntries() == 0 && seriesEqualTables(wh),
            () -> "open entries " + openEntries() + "; " + comparison(wh));
        assertTrue(query("sum(streamrecon_verdicts_total{status=\"mismatch\"})") > 0);
        for (String series : engineSeries) {
          ChildProcesses.await(
              "Prometheus sees the runner's own " + series,
              60,
              running,
              jobLog,
              () -> query("count(" + series + ")") >= 1,
              () -> "series named like it: " + namesContaining(series.substring(0, 20)));
        }
      } finally {
        ChildProcesses.kill(job);
      }
    }
  }

  private boolean seriesEqualTables(Path wh) {
    return comparison(wh).startsWith("equal");
  }

  /** The verdict and row series against the tables, described. */
  private String comparison(Path wh) {
    if (!Files.isDirectory(wh.resolve("deltas").resolve("_delta_log"))) {
      return "no deltas committed yet";
    }
    List<DeltaRecord> deltas = DeltaLakeTables.readDeltas(wh.toString());
    StringBuilder differences = new StringBuilder();
    for (Status s : List.of(Status.MISMATCH, Status.MISSING_IN_TARGET, Status.MISSING_IN_SOURCE)) {
      long rows = deltas.stream().filter(d -> d.status() == s).count();
      double series =
          query(
              "sum(streamrecon_verdicts_total{status=\""
                  + s.name().toLowerCase(Locale.ROOT)
                  + "\"})");
      if (series != rows) {
        differences.append(s).append(": series ").append(series).append(", rows ").append(rows);
        differences.append("; ");
      }
    }
    long raw = DeltaLakeTables.readRows(wh.toString(), "raw_events").size();
    double rawSeries = query("sum(streamrecon_rows_committed_total{table=\"raw_events\"})");
    if (rawSeries != raw) {
      differences.append("raw_events: series ").append(rawSeries).append(", rows ").append(raw);
    }
    return differences.length() == 0 ? "equal" : differences.toString();
  }

  private double openEntries() {
    return query("sum(streamrecon_entries_opened_total) - sum(streamrecon_entries_closed_total)");
  }

  /** The value of an instant query that yields one sample; NaN when it yields none. */
  private double query(String expr) {
    try {
      JsonNode result = get("/api/v1/query?query=" + encode(expr)).path("data").path("result");
      return result.size() == 1 ? result.get(0).path("value").get(1).asDouble() : Double.NaN;
    } catch (IOException e) {
      return Double.NaN;
    }
  }

  /** The names of the series Prometheus holds that contain {@code part}. */
  private String namesContaining(String part) {
    try {
      List<String> names = new ArrayList<>();
      for (JsonNode n : get("/api/v1/label/__name__/values").path("data")) {
        if (n.asText().contains(part)) {
          names.add(n.asText());
        }
      }
      return names.toString();
    } catch (IOException e) {
      return "(unknown: " + e.getMessage() + ")";
    }
  }

  private boolean firing(String alert) {
    try {
      for (JsonNode a : get("/api/v1/alerts").path("data").path("alerts")) {
        if (alert.equals(a.path("labels").path("alertname").asText())
            && "firing".equals(a.path("state").asText())) {
          return true;
        }
      }
      return false;
    } catch (IOException e) {
      return false;
    }
  }

  private JsonNode get(String path) throws IOException {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + prometheusPort + path))
            .timeout(Duration.ofSeconds(5))
            .build();
    try {
      return JSON.readTree(HTTP.send(request, HttpResponse.BodyHandlers.ofString()).body());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  /**
   * Prometheus scraping the job every second and evaluating the shipped rules every second, on
   * loopback only; storage in the test's directory.
   */
  private Process startPrometheus(
      String binary, Path dir, String metricsPath, int metricsPort, Path log) throws IOException {
    prometheusPort = Distribution.freePort();
    Path rules =
        Distribution.runnersDir()
            .normalize()
            .getParent()
            .resolve("ops/prometheus/streamrecon-alerts.yml");
    Path config = dir.resolve("prometheus.yml");
    Files.writeString(
        config,
        String.join(
            "\n",
            "global:",
            "  scrape_interval: 1s",
            "  evaluation_interval: 1s",
            "rule_files:",
            "  - " + rules,
            "scrape_configs:",
            "  - job_name: streamrecon",
            "    metrics_path: " + metricsPath,
            "    static_configs:",
            "      - targets: ['" + Distribution.LOOPBACK + ":" + metricsPort + "']",
            ""));
    return ChildProcesses.start(
        List.of(
            binary,
            "--config.file=" + config,
            "--storage.tsdb.path=" + Files.createDirectories(dir.resolve("tsdb")),
            "--web.listen-address=" + Distribution.LOOPBACK + ":" + prometheusPort),
        log);
  }

  private static String prometheusBinary() {
    for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      Path candidate = Path.of(d, "prometheus");
      if (Files.isExecutable(candidate)) {
        return candidate.toString();
      }
    }
    String required = System.getenv("STREAMRECON_REQUIRE_PROMTOOL");
    if (required != null && !required.isEmpty() && !required.equals("0")) {
      throw new AssertionError("prometheus not found on PATH (apt-get install -y prometheus)");
    }
    Assume.assumeTrue(
        "prometheus not installed; set STREAMRECON_REQUIRE_PROMTOOL=1 to fail", false);
    return null;
  }
}
