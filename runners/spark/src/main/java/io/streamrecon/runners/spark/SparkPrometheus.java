package io.streamrecon.runners.spark;

/**
 * Serves a run's metrics to Prometheus from the Spark UI of the driver, at {@value #PATH}, through
 * {@link BeamPrometheusServlet} (docs/operations.md, Watching a job).
 *
 * <p>Spark reads its metrics configuration from {@code spark.metrics.conf.*} settings when the
 * runner creates its context; Beam's options offer no other hook, so these are system properties
 * set before the context is made, as spark-submit sets its {@code --conf} settings. A setting a run
 * gave itself (spark-submit {@code --conf}, {@code -D}) is kept, and a run that names another class
 * for the {@code prometheusServlet} sink keeps it.
 */
final class SparkPrometheus {
  /** The sink's class setting: the driver only, where Beam's SparkRunner keeps its metrics. */
  static final String SINK_CLASS = "spark.metrics.conf.driver.sink.prometheusServlet.class";

  /** The sink's path setting, which Spark's servlet requires. */
  static final String SINK_PATH = "spark.metrics.conf.driver.sink.prometheusServlet.path";

  /** The URL path of the series on the Spark UI. */
  static final String PATH = "/metrics/prometheus";

  /**
   * Spark's prefix of its own metric names, the application id unless set: a fixed one keeps the
   * names of Spark's series the same from run to run.
   */
  static final String NAMESPACE = "spark.metrics.namespace";

  private SparkPrometheus() {}

  /** Sets the three settings that are not set yet. */
  static void exportByDefault() {
    setIfAbsent(SINK_CLASS, BeamPrometheusServlet.class.getName());
    setIfAbsent(SINK_PATH, PATH);
    setIfAbsent(NAMESPACE, "streamrecon");
  }

  private static void setIfAbsent(String key, String value) {
    if (System.getProperty(key) == null) {
      System.setProperty(key, value);
    }
  }
}
