package io.streamrecon.runners.flink;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.not;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import org.apache.beam.sdk.metrics.DistributionResult;
import org.apache.flink.metrics.CharacterFilter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.LogicalScopeProvider;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.junit.Test;

/**
 * The reporter as Flink drives it: Beam's metrics, registered per operator and subtask the way
 * Beam's FlinkRunner does, come out of Flink's Prometheus endpoint as the streamrecon series, added
 * up; Flink's own metrics keep Flink's names.
 */
public class BeamPrometheusReporterTest {
  @Test
  public void beamMetricsAreTheStreamreconSeriesAndFlinksOwnStay() throws Exception {
    int port = freePort();
    // Flink hands the factory the reporter's settings as a MetricConfig.
    MetricConfig config = new MetricConfig();
    config.setProperty("port", Integer.toString(port));
    MetricReporter reporter = new BeamPrometheusReporterFactory().createMetricReporter(config);
    reporter.open(config);
    try {
      MetricGroup subtask0 = new OperatorGroup("0");
      MetricGroup subtask1 = new OperatorGroup("1");
      SimpleCounter in0 = new SimpleCounter();
      SimpleCounter in1 = new SimpleCounter();
      in0.inc(3);
      in1.inc(4);
      reporter.notifyOfAddedMetric(in0, "streamrecon.summary_input_source", subtask0);
      reporter.notifyOfAddedMetric(in1, "streamrecon.summary_input_source", subtask1);
      Gauge<Long> behind = () -> 12L;
      reporter.notifyOfAddedMetric(
          behind,
          "streamrecon.kafka_records_behind_latest{side=source,topic=a.b,partition=0}",
          subtask0);
      Gauge<DistributionResult> commits = () -> DistributionResult.create(1500, 2, 500, 1000);
      reporter.notifyOfAddedMetric(commits, "streamrecon.deltalake_commit_millis_deltas", subtask0);
      SimpleCounter kafka = new SimpleCounter();
      kafka.inc(5);
      reporter.notifyOfAddedMetric(
          kafka, "org.apache.beam.sdk.io.kafka.KafkaIO.bytes_read", subtask1);
      SimpleCounter records = new SimpleCounter();
      records.inc(9);
      reporter.notifyOfAddedMetric(records, "numRecordsIn", subtask0);

      String page = scrape(port);
      assertThat(page, containsString("streamrecon_input_records_total{side=\"source\",} 7.0"));
      assertThat(page, containsString("streamrecon_input_records_total{side=\"target\",} 0.0"));
      assertThat(
          page,
          containsString(
              "streamrecon_kafka_records_behind_latest{partition=\"0\",side=\"source\",topic=\"a.b\",} 12.0"));
      assertThat(
          page, containsString("streamrecon_commit_duration_seconds_sum{table=\"deltas\",} 1.5"));
      assertThat(
          page, containsString("streamrecon_commit_duration_seconds_count{table=\"deltas\",} 2.0"));
      assertThat(
          page,
          containsString(
              "streamrecon_beam_bytes_read_total{namespace=\"org.apache.beam.sdk.io.kafka.KafkaIO\",} 5.0"));
      assertThat(page, containsString("flink_taskmanager_job_task_operator_numRecordsIn{"));
      assertThat(page, not(containsString("flink_taskmanager_job_task_operator_streamrecon")));

      reporter.notifyOfRemovedMetric(in1, "streamrecon.summary_input_source", subtask1);
      assertThat(
          scrape(port), containsString("streamrecon_input_records_total{side=\"source\",} 3.0"));
    } finally {
      reporter.close();
    }
  }

  private static String scrape(int port) throws IOException, InterruptedException {
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
    return r.body();
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** An operator's metric group of one subtask, as Flink hands it to a reporter. */
  private static final class OperatorGroup extends UnregisteredMetricsGroup
      implements LogicalScopeProvider {
    private final String subtask;

    OperatorGroup(String subtask) {
      this.subtask = subtask;
    }

    @Override
    public Map<String, String> getAllVariables() {
      return Map.of("<operator_id>", "op1", "<subtask_index>", subtask, "<job_name>", "j");
    }

    @Override
    public String getLogicalScope(CharacterFilter filter) {
      return getLogicalScope(filter, '.');
    }

    @Override
    public String getLogicalScope(CharacterFilter filter, char delimiter) {
      return String.join(String.valueOf(delimiter), "taskmanager", "job", "task", "operator");
    }

    @Override
    public MetricGroup getWrappedMetricGroup() {
      return this;
    }
  }
}
