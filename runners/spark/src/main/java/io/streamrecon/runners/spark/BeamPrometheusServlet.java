package io.streamrecon.runners.spark;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.Metric;
import com.codahale.metrics.MetricRegistry;
import io.streamrecon.pipeline.metrics.PrometheusSeries;
import io.streamrecon.pipeline.metrics.PrometheusSeries.Sample;
import io.streamrecon.pipeline.metrics.PrometheusSeries.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.function.Supplier;
import javax.servlet.http.HttpServletRequest;
import org.apache.beam.runners.core.metrics.MetricsContainerStepMap;
import org.apache.beam.runners.spark.metrics.MetricsAccumulator;
import org.apache.beam.sdk.metrics.MetricQueryResults;
import org.apache.spark.metrics.sink.PrometheusServlet;

/**
 * Spark's {@code PrometheusServlet} (on the Spark UI, driver only) with every Beam metric as a
 * series of its own, named by {@link PrometheusSeries}, and the micro-batch gauges of Spark
 * Streaming under streamrecon names.
 *
 * <p>Beam's SparkRunner gives Spark's metrics system one gauge whose value is a map of all Beam
 * metrics. Spark's servlet would print that map as one line that is not the exposition format, and
 * Prometheus would then reject the whole scrape; this servlet leaves Beam's gauges out of Spark's
 * part and renders Beam's metrics from the runner's metrics accumulator, the value Beam's gauge is
 * made from, with their namespaces and names intact.
 *
 * <p>Spark makes it from {@code spark.metrics.conf.driver.sink.prometheusServlet.class} (the
 * instance name must be {@code prometheusServlet}: Spark attaches only that sink's handler to the
 * UI); {@link SparkPrometheus} sets it unless a run configured its own.
 */
public class BeamPrometheusServlet extends PrometheusServlet {
  /** Spark Streaming's metrics source, {@code <app>.StreamingMetrics}, and its gauge prefix. */
  private static final String STREAMING = ".StreamingMetrics.streaming.";

  private final Supplier<MetricQueryResults> beamMetrics;

  /** The constructor Spark's metrics system calls. */
  public BeamPrometheusServlet(Properties property, MetricRegistry registry) {
    this(property, registry, BeamPrometheusServlet::accumulated);
  }

  BeamPrometheusServlet(
      Properties property, MetricRegistry registry, Supplier<MetricQueryResults> beamMetrics) {
    super(property, registry);
    this.beamMetrics = beamMetrics;
  }

  @Override
  public String getMetricsSnapshot(HttpServletRequest request) {
    MetricRegistry spark = new MetricRegistry();
    List<Sample> samples = new ArrayList<>();
    for (Map.Entry<String, Metric> m : registry().getMetrics().entrySet()) {
      if (isBeams(m.getValue())) {
        continue;
      }
      spark.register(m.getKey(), m.getValue());
      if (m.getValue() instanceof Gauge<?> g && m.getKey().contains(STREAMING)) {
        streamingSample(m.getKey().substring(m.getKey().indexOf(STREAMING) + STREAMING.length()), g)
            .ifPresent(samples::add);
      }
    }
    MetricQueryResults beam = beamMetrics.get();
    if (beam != null) {
      samples.addAll(PrometheusSeries.samples(beam));
    }
    return new PrometheusServlet(property(), spark).getMetricsSnapshot(request)
        + PrometheusSeries.render(samples);
  }

  /** Beam's gauge of all Beam metrics: the only metric whose value is a map. */
  private static boolean isBeams(Metric metric) {
    return metric instanceof Gauge<?> g && g.getValue() instanceof Map;
  }

  /**
   * Spark Streaming's gauges of the last completed micro-batch, in seconds, and its batch counts.
   * Spark reports -1 before the first batch completed: no sample then.
   */
  static Optional<Sample> streamingSample(String gauge, Gauge<?> value) {
    if (!(value.getValue() instanceof Number n) || n.doubleValue() < 0) {
      return Optional.empty();
    }
    double v = n.doubleValue();
    String family;
    Type type = Type.GAUGE;
    switch (gauge) {
      case "lastCompletedBatch_processingDelay" -> {
        family = "microbatch_processing_seconds";
        v /= 1000;
      }
      case "lastCompletedBatch_schedulingDelay" -> {
        family = "microbatch_scheduling_delay_seconds";
        v /= 1000;
      }
      case "lastCompletedBatch_totalDelay" -> {
        family = "microbatch_total_delay_seconds";
        v /= 1000;
      }
      case "totalCompletedBatches" -> {
        family = "microbatches_completed_total";
        type = Type.COUNTER;
      }
      case "unprocessedBatches" -> family = "microbatches_waiting";
      default -> {
        return Optional.empty();
      }
    }
    String name = PrometheusSeries.PREFIX + family;
    return Optional.of(new Sample(name, type, name, Map.of(), v));
  }

  /** The runner's Beam metrics, or none before the runner made its accumulator. */
  private static MetricQueryResults accumulated() {
    try {
      return MetricsContainerStepMap.asAttemptedOnlyMetricResults(
              MetricsAccumulator.getInstance().value())
          .allMetrics();
    } catch (IllegalStateException notYet) {
      return null;
    }
  }
}
