package io.streamrecon.pipeline.metrics;

import io.streamrecon.model.MetricNames;
import io.streamrecon.model.Side;
import io.streamrecon.transforms.Diff;
import io.streamrecon.transforms.pairing.PairEvents;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.beam.sdk.metrics.DistributionResult;
import org.apache.beam.sdk.metrics.GaugeResult;
import org.apache.beam.sdk.metrics.MetricName;
import org.apache.beam.sdk.metrics.MetricQueryResults;
import org.apache.beam.sdk.metrics.MetricResult;

/**
 * The one mapping from Beam metrics to Prometheus series (docs/operations.md, Watching a job), and
 * their text exposition format. Every exporter goes through it: the Spark metrics sink while a job
 * runs, the file a run writes at its end.
 *
 * <p>Names follow Prometheus conventions: the {@value #PREFIX} prefix, units in the name, {@code
 * _total} for counters, and labels for side, status and table instead of one name each. A metric
 * this class does not know is still exported, as {@code streamrecon_beam_<name>} with its Beam
 * namespace as a label, so a new counter is never silently dropped. The values of one metric kept
 * by several steps are added up (counters, distributions) or the latest is taken (gauges).
 *
 * <p>Label values come only from metric names, which hold fixed words, sides, table and topic names
 * and partition numbers, never from records or settings.
 */
public final class PrometheusSeries {
  /** Prefix of every series. */
  public static final String PREFIX = "streamrecon_";

  /** Prefix of the series of metrics without a mapping of their own. */
  static final String UNMAPPED_PREFIX = PREFIX + "beam_";

  private static final Pattern LABELLED = Pattern.compile("([^{]+)\\{(.*)}");
  private static final Pattern SIDE_SUFFIX = sideSuffix();

  /**
   * Counters exported from the start, at zero until counted: Beam reports a counter only once it
   * was incremented, and a series born at 1 shows no increase, so the first dead letter or mismatch
   * of a run would never move a rate or fire an alert.
   */
  private static final List<MetricName> ALWAYS = always();

  private PrometheusSeries() {}

  /** Kinds of series, as the exposition format's {@code # TYPE} line names them. */
  public enum Type {
    COUNTER,
    GAUGE,
    SUMMARY;

    String word() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * One sample: a series name (without the {@code _sum}/{@code _count} of a summary), its labels,
   * its value, and the family it belongs to.
   */
  public record Sample(
      String family, Type type, String name, Map<String, String> labels, double value) {
    public Sample {
      labels = Collections.unmodifiableMap(new TreeMap<>(labels));
    }
  }

  /** The samples of every Beam metric in {@code metrics}, attempted values. */
  public static List<Sample> samples(MetricQueryResults metrics) {
    Map<MetricName, Long> counters = new TreeMap<>(PrometheusSeries::compare);
    for (MetricResult<Long> c : metrics.getCounters()) {
      Long v = c.getAttempted();
      counters.merge(c.getName(), v == null ? 0L : v, Long::sum);
    }
    Map<MetricName, GaugeResult> gauges = new TreeMap<>(PrometheusSeries::compare);
    for (MetricResult<GaugeResult> g : metrics.getGauges()) {
      GaugeResult v = g.getAttempted();
      if (v != null) {
        gauges.merge(g.getName(), v, (a, b) -> a.getTimestamp().isAfter(b.getTimestamp()) ? a : b);
      }
    }
    Map<MetricName, DistributionResult> distributions = new TreeMap<>(PrometheusSeries::compare);
    for (MetricResult<DistributionResult> d : metrics.getDistributions()) {
      DistributionResult v = d.getAttempted();
      if (v != null) {
        distributions.merge(d.getName(), v, PrometheusSeries::combine);
      }
    }
    List<Sample> out = new ArrayList<>();
    long withinTolerance = counters.getOrDefault(own(Diff.MATCH_WITHIN_TOLERANCE), 0L);
    for (MetricName always : ALWAYS) {
      counters.putIfAbsent(always, 0L);
    }
    counters.forEach((name, value) -> out.add(counter(name, value, withinTolerance)));
    gauges.forEach((name, value) -> out.add(gauge(name, value.getValue())));
    distributions.forEach((name, value) -> out.addAll(summary(name, value)));
    return out;
  }

  /** The text exposition format (version 0.0.4) of the samples of {@code metrics}. */
  public static String render(MetricQueryResults metrics) {
    return render(samples(metrics));
  }

  /** The text exposition format of samples: grouped by family, one {@code # TYPE} line each. */
  public static String render(List<Sample> samples) {
    Map<String, List<Sample>> families = new TreeMap<>();
    for (Sample s : samples) {
      families.computeIfAbsent(s.family(), k -> new ArrayList<>()).add(s);
    }
    StringBuilder b = new StringBuilder();
    for (Map.Entry<String, List<Sample>> f : families.entrySet()) {
      b.append("# TYPE ").append(f.getKey()).append(' ').append(f.getValue().get(0).type().word());
      b.append('\n');
      for (Sample s : f.getValue()) {
        b.append(s.name());
        if (!s.labels().isEmpty()) {
          b.append('{');
          String sep = "";
          for (Map.Entry<String, String> l : s.labels().entrySet()) {
            b.append(sep).append(l.getKey()).append("=\"").append(escape(l.getValue())).append('"');
            sep = ",";
          }
          b.append('}');
        }
        b.append(' ').append(number(s.value())).append('\n');
      }
    }
    return b.toString();
  }

  /**
   * A counter's sample. The pairing counts a MISMATCH that Diff later finds within tolerance as a
   * mismatch; like the run's summary, the verdict series move it to match, so they equal the
   * verdicts stored.
   */
  private static Sample counter(MetricName metric, long value, long withinTolerance) {
    if (!MetricNames.NAMESPACE.equals(metric.getNamespace())) {
      return unmapped(metric, Type.COUNTER, "_total", value);
    }
    String name = metric.getName();
    Matcher side = SIDE_SUFFIX.matcher(name);
    if (side.matches()) {
      String family =
          switch (side.group(1)) {
            case "summary_input" -> "input_records_total";
            case "summary_blank_lines" -> "blank_lines_total";
            default -> "dead_letters_total";
          };
      return sample(PREFIX + family, Type.COUNTER, Map.of("side", side.group(2)), value);
    }
    if (name.startsWith("deltalake_rows_committed_")) {
      String table = name.substring("deltalake_rows_committed_".length());
      return sample(PREFIX + "rows_committed_total", Type.COUNTER, Map.of("table", table), value);
    }
    String verdicts = PREFIX + "verdicts_total";
    return switch (name) {
      case PairEvents.METRIC_MATCH ->
          sample(verdicts, Type.COUNTER, Map.of("status", "match"), value + withinTolerance);
      case PairEvents.METRIC_MISMATCH ->
          sample(verdicts, Type.COUNTER, Map.of("status", "mismatch"), value - withinTolerance);
      case PairEvents.METRIC_MISSING_IN_TARGET, PairEvents.METRIC_MISSING_IN_SOURCE ->
          sample(verdicts, Type.COUNTER, Map.of("status", name), value);
      case Diff.MATCH_WITHIN_TOLERANCE -> own("matches_within_tolerance_total", value);
      case PairEvents.METRIC_LATE -> own("late_events_total", value);
      case PairEvents.METRIC_DUPLICATE -> own("duplicate_events_total", value);
      case PairEvents.METRIC_SUPERSEDED -> own("superseded_events_total", value);
      case PairEvents.METRIC_EVENTS_IN_VERDICTS -> own("events_in_verdicts_total", value);
      case PairEvents.METRIC_ENTRIES_OPENED -> own("entries_opened_total", value);
      case PairEvents.METRIC_ENTRIES_CLOSED -> own("entries_closed_total", value);
      case MetricNames.RAW_EVENTS -> own("raw_events_total", value);
      case MetricNames.PAYLOADS_DELETED -> own("payloads_deleted_total", value);
      case "deltalake_commits" -> own("commits_total", value);
      case "lookup_rows_read" -> own("payload_fetches_total", value);
      case "lookup_file_opens" -> own("payload_file_opens_total", value);
      default -> unmapped(metric, Type.COUNTER, "_total", value);
    };
  }

  /** A gauge's sample: the Kafka partition gauges, labelled; others unmapped. */
  private static Sample gauge(MetricName metric, long value) {
    Matcher labelled = LABELLED.matcher(metric.getName());
    if (MetricNames.NAMESPACE.equals(metric.getNamespace()) && labelled.matches()) {
      Map<String, String> labels = labels(labelled.group(2));
      switch (labelled.group(1)) {
        case MetricNames.KAFKA_RECORDS_BEHIND:
          return sample(PREFIX + "kafka_records_behind_latest", Type.GAUGE, labels, value);
        case MetricNames.KAFKA_WATERMARK_MILLIS:
          return sample(PREFIX + "watermark_seconds", Type.GAUGE, labels, value / 1000.0);
        default:
          break;
      }
    }
    return unmapped(metric, Type.GAUGE, "", value);
  }

  /**
   * A distribution as a summary without quantiles ({@code _sum}, {@code _count}); the commit
   * durations in seconds, labelled by table.
   */
  private static List<Sample> summary(MetricName metric, DistributionResult value) {
    String name = metric.getName();
    String family;
    Map<String, String> labels;
    double scale = 1;
    if (MetricNames.NAMESPACE.equals(metric.getNamespace())
        && name.startsWith("deltalake_commit_millis_")) {
      family = PREFIX + "commit_duration_seconds";
      labels = Map.of("table", name.substring("deltalake_commit_millis_".length()));
      scale = 1000.0;
    } else {
      family = UNMAPPED_PREFIX + sanitize(name);
      labels = Map.of("namespace", metric.getNamespace());
    }
    return List.of(
        new Sample(family, Type.SUMMARY, family + "_sum", labels, value.getSum() / scale),
        new Sample(family, Type.SUMMARY, family + "_count", labels, value.getCount()));
  }

  private static Sample own(String family, long value) {
    return sample(PREFIX + family, Type.COUNTER, Map.of(), value);
  }

  private static Sample sample(String family, Type type, Map<String, String> labels, double v) {
    return new Sample(family, type, family, labels, v);
  }

  private static Sample unmapped(MetricName metric, Type type, String suffix, double value) {
    String base = metric.getName();
    Map<String, String> labels = new TreeMap<>();
    Matcher labelled = LABELLED.matcher(base);
    if (labelled.matches()) {
      base = labelled.group(1);
      labels.putAll(labels(labelled.group(2)));
    }
    labels.put("namespace", metric.getNamespace());
    String family = UNMAPPED_PREFIX + sanitize(base) + suffix;
    return sample(family, type, labels, value);
  }

  private static MetricName own(String name) {
    return MetricName.named(MetricNames.NAMESPACE, name);
  }

  private static Map<String, String> labels(String pairs) {
    Map<String, String> labels = new TreeMap<>();
    for (String pair : pairs.split(",")) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        labels.put(sanitize(pair.substring(0, eq)), pair.substring(eq + 1));
      }
    }
    return labels;
  }

  /** A valid Prometheus name part: letters, digits and underscores, not starting with a digit. */
  static String sanitize(String name) {
    String s = name.replaceAll("[^A-Za-z0-9_]", "_");
    return s.isEmpty() || Character.isDigit(s.charAt(0)) ? "_" + s : s;
  }

  private static String escape(String value) {
    return value.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
  }

  private static String number(double v) {
    return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
  }

  private static DistributionResult combine(DistributionResult a, DistributionResult b) {
    return DistributionResult.create(
        a.getSum() + b.getSum(),
        a.getCount() + b.getCount(),
        Math.min(a.getMin(), b.getMin()),
        Math.max(a.getMax(), b.getMax()));
  }

  private static int compare(MetricName a, MetricName b) {
    int c = a.getNamespace().compareTo(b.getNamespace());
    return c != 0 ? c : a.getName().compareTo(b.getName());
  }

  private static List<MetricName> always() {
    List<MetricName> names = new ArrayList<>();
    for (Side side : Side.values()) {
      names.add(own(MetricNames.input(side)));
      names.add(own(MetricNames.deadLetters(side)));
    }
    for (String name :
        List.of(
            PairEvents.METRIC_MATCH,
            PairEvents.METRIC_MISMATCH,
            PairEvents.METRIC_MISSING_IN_TARGET,
            PairEvents.METRIC_MISSING_IN_SOURCE,
            PairEvents.METRIC_LATE,
            PairEvents.METRIC_ENTRIES_OPENED,
            PairEvents.METRIC_ENTRIES_CLOSED)) {
      names.add(own(name));
    }
    return List.copyOf(names);
  }

  private static Pattern sideSuffix() {
    List<String> sides = new ArrayList<>();
    for (Side s : Side.values()) {
      sides.add(s.name().toLowerCase(Locale.ROOT));
    }
    return Pattern.compile(
        "(summary_input|summary_blank_lines|summary_dead_letters)_("
            + String.join("|", sides)
            + ")");
  }
}
