package io.streamrecon.runners.flink;

import io.prometheus.client.Collector;
import io.prometheus.client.CollectorRegistry;
import io.streamrecon.model.MetricNames;
import io.streamrecon.pipeline.metrics.PrometheusSeries;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.beam.sdk.metrics.DistributionResult;
import org.apache.beam.sdk.metrics.GaugeResult;
import org.apache.beam.sdk.metrics.MetricKey;
import org.apache.beam.sdk.metrics.MetricName;
import org.apache.beam.sdk.metrics.MetricQueryResults;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.prometheus.AbstractPrometheusReporter;
import org.apache.flink.metrics.prometheus.PrometheusReporter;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.joda.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Flink's {@link PrometheusReporter} with Beam's metrics under the series names of {@link
 * PrometheusSeries}, on the reporter's one HTTP endpoint. Flink's own metrics (checkpoint
 * durations, records in and out, ...) go to Flink's reporter unchanged. Beam's FlinkRunner
 * registers each Beam metric on its operator's metric group, named {@code
 * <namespace><delimiter><name>}; Flink's reporter alone would export one series per operator and
 * subtask under a scope-mangled name, and a Beam distribution (a gauge whose value is not a number)
 * as 0. Here they are kept aside and, at each scrape, added up across operators and subtasks by the
 * same mapping as on the SparkRunner.
 *
 * <p>Flink's reporter cannot be subclassed outside its package and keeps its collector registry in
 * a package-private field; the Beam collector is registered there when the reporter is made. A
 * Flink version without that field fails the reporter's creation with a message saying so, and
 * Flink runs the job without it.
 *
 * <p>Values come from the value objects by reflection where they are Beam classes: under {@code
 * flink run} the reporter is a Flink plugin, and Beam's classes in the job's class loader are not
 * the reporter's.
 */
final class BeamPrometheusReporter implements MetricReporter {
  private static final Logger LOG = LoggerFactory.getLogger(BeamPrometheusReporter.class);

  private final PrometheusReporter flink;
  private final char delimiter;
  private final Map<Metric, MetricName> beam = new ConcurrentHashMap<>();

  /**
   * Registers the Beam collector with Flink's reporter; when that fails, closes Flink's reporter
   * (whose HTTP server is already up) and throws, so Flink reports the reporter as not created.
   */
  BeamPrometheusReporter(PrometheusReporter flink, char delimiter) {
    this.flink = flink;
    this.delimiter = delimiter;
    try {
      registry(flink).register(new BeamCollector());
    } catch (RuntimeException e) {
      flink.close();
      throw e;
    }
  }

  @Override
  public void open(MetricConfig config) {
    flink.open(config);
    LOG.info("Prometheus series served at http://<this host>:{}/metrics", port(flink));
  }

  /** The port Flink's reporter took from its range, or "?" when this Flink hides it elsewhere. */
  private static String port(PrometheusReporter flink) {
    try {
      Field f = PrometheusReporter.class.getDeclaredField("port");
      f.setAccessible(true);
      return String.valueOf(f.getInt(flink));
    } catch (ReflectiveOperationException | RuntimeException e) {
      return "?";
    }
  }

  @Override
  public void close() {
    flink.close();
  }

  @Override
  public void notifyOfAddedMetric(Metric metric, String metricName, MetricGroup group) {
    MetricName name = beamName(metricName, group);
    if (name == null) {
      flink.notifyOfAddedMetric(metric, metricName, group);
    } else {
      beam.put(metric, name);
    }
  }

  @Override
  public void notifyOfRemovedMetric(Metric metric, String metricName, MetricGroup group) {
    if (beam.remove(metric) == null) {
      flink.notifyOfRemovedMetric(metric, metricName, group);
    }
  }

  /**
   * The Beam metric a Flink metric stands for, or null for Flink's own. Beam's are on an operator's
   * group and have the delimiter in their name (Flink's own operator metrics, such as {@code
   * numRecordsIn}, do not). A Beam namespace may hold the delimiter too (a class name); a name
   * holds it only inside labels ({@code name{topic=a.b}}), so the split is at the last delimiter
   * before any label.
   */
  MetricName beamName(String metricName, MetricGroup group) {
    if (!group.getAllVariables().containsKey("<operator_id>")) {
      return null;
    }
    String own = MetricNames.NAMESPACE + delimiter;
    if (metricName.startsWith(own)) {
      return MetricName.named(MetricNames.NAMESPACE, metricName.substring(own.length()));
    }
    int labels = metricName.indexOf('{');
    int split = metricName.lastIndexOf(delimiter, labels < 0 ? metricName.length() : labels);
    if (split <= 0 || split == metricName.length() - 1) {
      return null;
    }
    return MetricName.named(metricName.substring(0, split), metricName.substring(split + 1));
  }

  /** Beam's metrics as Beam results: one per operator and subtask, which the mapping adds up. */
  MetricQueryResults results() {
    List<MetricResult<Long>> counters = new ArrayList<>();
    List<MetricResult<GaugeResult>> gauges = new ArrayList<>();
    List<MetricResult<DistributionResult>> distributions = new ArrayList<>();
    Instant now = Instant.now();
    int i = 0;
    for (Map.Entry<Metric, MetricName> e : beam.entrySet()) {
      MetricKey key = MetricKey.create("flink-" + i++, e.getValue());
      Metric m = e.getKey();
      if (m instanceof Counter c) {
        counters.add(MetricResult.attempted(key, c.getCount()));
      } else if (m instanceof Gauge<?> g) {
        Object v = g.getValue();
        if (v instanceof Number n) {
          gauges.add(MetricResult.attempted(key, GaugeResult.create(n.longValue(), now)));
        } else if (v != null) {
          DistributionResult d = distribution(v);
          if (d != null) {
            distributions.add(MetricResult.attempted(key, d));
          }
        }
      }
    }
    return MetricQueryResults.create(
        counters, distributions, gauges, List.of(), List.of(), List.of());
  }

  /** A Beam DistributionResult from any class loader, or null for another kind of value. */
  private static DistributionResult distribution(Object v) {
    try {
      Class<?> c = v.getClass();
      return DistributionResult.create(
          number(c.getMethod("getSum"), v),
          number(c.getMethod("getCount"), v),
          number(c.getMethod("getMin"), v),
          number(c.getMethod("getMax"), v));
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }

  private static long number(Method m, Object on) throws ReflectiveOperationException {
    m.setAccessible(true);
    return ((Number) m.invoke(on)).longValue();
  }

  private static CollectorRegistry registry(PrometheusReporter flink) {
    try {
      Field f = AbstractPrometheusReporter.class.getDeclaredField("registry");
      f.setAccessible(true);
      return (CollectorRegistry) f.get(flink);
    } catch (ReflectiveOperationException | RuntimeException e) {
      throw new IllegalStateException(
          "this Flink's PrometheusReporter has no collector registry where the streamrecon"
              + " reporter expects it (Flink 1.19's flink-metrics-prometheus is needed)",
          e);
    }
  }

  /** Beam's metrics through {@link PrometheusSeries}, at each scrape. */
  private final class BeamCollector extends Collector {
    @Override
    public List<MetricFamilySamples> collect() {
      Map<String, List<PrometheusSeries.Sample>> families = new LinkedHashMap<>();
      for (PrometheusSeries.Sample s : PrometheusSeries.samples(results())) {
        families.computeIfAbsent(s.family(), k -> new ArrayList<>()).add(s);
      }
      List<MetricFamilySamples> out = new ArrayList<>();
      for (List<PrometheusSeries.Sample> family : families.values()) {
        List<MetricFamilySamples.Sample> samples = new ArrayList<>();
        for (PrometheusSeries.Sample s : family) {
          samples.add(
              new MetricFamilySamples.Sample(
                  s.name(),
                  List.copyOf(s.labels().keySet()),
                  List.copyOf(s.labels().values()),
                  s.value()));
        }
        PrometheusSeries.Sample first = family.get(0);
        out.add(new MetricFamilySamples(first.family(), type(first.type()), "", samples));
      }
      return out;
    }
  }

  private static Collector.Type type(PrometheusSeries.Type t) {
    return switch (t) {
      case COUNTER -> Collector.Type.COUNTER;
      case GAUGE -> Collector.Type.GAUGE;
      case SUMMARY -> Collector.Type.SUMMARY;
    };
  }
}
