package io.streamrecon.runners.spark;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import io.streamrecon.model.MetricNames;
import io.streamrecon.model.Side;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Pattern;
import org.apache.beam.sdk.metrics.MetricKey;
import org.apache.beam.sdk.metrics.MetricName;
import org.apache.beam.sdk.metrics.MetricQueryResults;
import org.apache.beam.sdk.metrics.MetricResult;
import org.junit.Test;

/**
 * The servlet's page is valid exposition format although Beam's SparkRunner registers a gauge whose
 * value is a map: Spark's own metrics stay, Beam's come as series of their own, and Spark
 * Streaming's batch gauges get streamrecon names.
 */
public class BeamPrometheusServletTest {
  private static final Pattern LINE =
      Pattern.compile(
          "# TYPE [a-zA-Z_:][a-zA-Z0-9_:]* [a-z]+"
              + "|[a-zA-Z_:][a-zA-Z0-9_:]*(\\{[a-zA-Z_][a-zA-Z0-9_]*=\"[^\"]*\""
              + "(,[a-zA-Z_][a-zA-Z0-9_]*=\"[^\"]*\")*})? -?[0-9.eE+-]+");

  private static String page(MetricRegistry registry, MetricQueryResults beam) {
    Properties p = new Properties();
    p.setProperty("path", SparkPrometheus.PATH);
    return new BeamPrometheusServlet(p, registry, () -> beam).getMetricsSnapshot(null);
  }

  @Test
  public void beamsMapGaugeBecomesOneSeriesPerMetric() {
    MetricRegistry registry = new MetricRegistry();
    registry.counter("streamrecon.driver.app.tasks").inc(4);
    Gauge<Map<String, Double>> beamsMap =
        () -> Map.of("step.streamrecon.summary_input_source", 3.0);
    registry.register("streamrecon.driver.app.Beam.Metrics", beamsMap);
    registry.register(
        "streamrecon.driver.app.StreamingMetrics.streaming.lastCompletedBatch_processingDelay",
        (Gauge<Long>) () -> 1500L);
    registry.register(
        "streamrecon.driver.app.StreamingMetrics.streaming.lastCompletedBatch_totalDelay",
        (Gauge<Long>) () -> -1L);
    MetricQueryResults beam =
        MetricQueryResults.create(
            List.of(
                MetricResult.attempted(
                    MetricKey.create(
                        "step",
                        MetricName.named(MetricNames.NAMESPACE, MetricNames.input(Side.SOURCE))),
                    3L)),
            List.of(),
            List.of(),
            List.of(),
            List.of(),
            List.of());

    String page = page(registry, beam);

    for (String line : page.split("\n")) {
      assertTrue(line, LINE.matcher(line).matches());
    }
    assertThat(
        page, containsString("metrics_streamrecon_driver_app_tasks_Count{type=\"counters\"} 4\n"));
    assertThat(page, containsString("streamrecon_input_records_total{side=\"source\"} 3\n"));
    assertThat(page, containsString("streamrecon_microbatch_processing_seconds 1.5\n"));
    assertEquals("no batch completed yet: no sample", -1, page.indexOf("microbatch_total_delay"));
  }

  @Test
  public void beforeTheRunnerMadeItsMetricsThePageHasSparksOnly() {
    MetricRegistry registry = new MetricRegistry();
    registry.counter("streamrecon.driver.app.tasks").inc();

    String page = page(registry, null);

    assertThat(page, containsString("metrics_streamrecon_driver_app_tasks_Count"));
    assertEquals(-1, page.indexOf("streamrecon_input"));
  }
}
