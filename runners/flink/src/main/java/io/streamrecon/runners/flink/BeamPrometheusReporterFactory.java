package io.streamrecon.runners.flink;

import java.util.Properties;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.configuration.MetricOptions;
import org.apache.flink.metrics.prometheus.PrometheusReporterFactory;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

/**
 * Creates the Prometheus reporter that exports Beam's metrics as the {@code streamrecon_*} series
 * next to Flink's own ({@link BeamPrometheusReporter}). Its settings are those of Flink's {@code
 * PrometheusReporterFactory} ({@code port}, a port or a range, 9249 by default; {@code
 * filterLabelValueCharacters}), e.g. {@code metrics.reporter.prom.factory.class:
 * io.streamrecon.runners.flink.BeamPrometheusReporterFactory}.
 */
public final class BeamPrometheusReporterFactory implements MetricReporterFactory {
  /** The factory class, as a Flink configuration names it. */
  public static final String CLASS_NAME = BeamPrometheusReporterFactory.class.getName();

  /** Public for Flink's service loader. */
  public BeamPrometheusReporterFactory() {}

  @Override
  public MetricReporter createMetricReporter(Properties properties) {
    String delimiter = GlobalConfiguration.loadConfiguration().get(MetricOptions.SCOPE_DELIMITER);
    return new BeamPrometheusReporter(
        new PrometheusReporterFactory().createMetricReporter(properties),
        delimiter == null || delimiter.isEmpty() ? '.' : delimiter.charAt(0));
  }
}
