package io.streamrecon.pipeline.metrics;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.not;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.streamrecon.model.MetricNames;
import io.streamrecon.model.Side;
import io.streamrecon.transforms.Diff;
import io.streamrecon.transforms.pairing.PairEvents;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.beam.sdk.metrics.DistributionResult;
import org.apache.beam.sdk.metrics.GaugeResult;
import org.apache.beam.sdk.metrics.MetricKey;
import org.apache.beam.sdk.metrics.MetricName;
import org.apache.beam.sdk.metrics.MetricQueryResults;
import org.apache.beam.sdk.metrics.MetricResult;
import org.joda.time.Instant;
import org.junit.Test;

public class PrometheusSeriesTest {
  /** A sample line of the text exposition format: name, optional labels, a number. */
  private static final String LABEL = "[a-zA-Z_][a-zA-Z0-9_]*=\"(\\\\.|[^\"\\\\])*\"";

  private static final Pattern SAMPLE_LINE =
      Pattern.compile(
          "[a-zA-Z_:][a-zA-Z0-9_:]*(\\{" + LABEL + "(," + LABEL + ")*})? -?[0-9.eE+-]+");

  private final List<MetricResult<Long>> counters = new ArrayList<>();
  private final List<MetricResult<GaugeResult>> gauges = new ArrayList<>();
  private final List<MetricResult<DistributionResult>> distributions = new ArrayList<>();

  private void counter(String step, String namespace, String name, long value) {
    counters.add(
        MetricResult.attempted(MetricKey.create(step, MetricName.named(namespace, name)), value));
  }

  private void counter(String name, long value) {
    counter("step", MetricNames.NAMESPACE, name, value);
  }

  private String render() {
    return PrometheusSeries.render(
        MetricQueryResults.create(
            counters, distributions, gauges, List.of(), List.of(), List.of()));
  }

  @Test
  public void sidesStatusesAndTablesAreLabelsOfConventionalNames() {
    counter(MetricNames.input(Side.SOURCE), 10);
    counter(MetricNames.input(Side.TARGET), 9);
    counter(MetricNames.deadLetters(Side.TARGET), 1);
    counter(PairEvents.METRIC_MISMATCH, 3);
    counter(PairEvents.METRIC_MISSING_IN_TARGET, 2);
    counter(MetricNames.rowsCommitted("deltas"), 5);

    String text = render();

    assertThat(text, containsString("# TYPE streamrecon_input_records_total counter\n"));
    assertThat(text, containsString("streamrecon_input_records_total{side=\"source\"} 10\n"));
    assertThat(text, containsString("streamrecon_input_records_total{side=\"target\"} 9\n"));
    assertThat(text, containsString("streamrecon_dead_letters_total{side=\"target\"} 1\n"));
    assertThat(text, containsString("streamrecon_verdicts_total{status=\"mismatch\"} 3\n"));
    assertThat(
        text, containsString("streamrecon_verdicts_total{status=\"missing_in_target\"} 2\n"));
    assertThat(text, containsString("streamrecon_rows_committed_total{table=\"deltas\"} 5\n"));
  }

  @Test
  public void theSeriesAlertsWatchExistAtZeroBeforeTheFirstCount() {
    counter(PairEvents.METRIC_MATCH, 4);

    String text = render();

    assertThat(text, containsString("streamrecon_dead_letters_total{side=\"source\"} 0\n"));
    assertThat(text, containsString("streamrecon_dead_letters_total{side=\"target\"} 0\n"));
    assertThat(text, containsString("streamrecon_verdicts_total{status=\"mismatch\"} 0\n"));
    assertThat(text, containsString("streamrecon_verdicts_total{status=\"match\"} 4\n"));
    assertThat(text, containsString("streamrecon_input_records_total{side=\"target\"} 0\n"));
    assertThat(text, containsString("streamrecon_entries_closed_total 0\n"));
  }

  @Test
  public void oneMetricKeptByTwoStepsIsOneSeries() {
    counter("ReadSource", MetricNames.NAMESPACE, MetricNames.input(Side.SOURCE), 4);
    counter("ReadAgain", MetricNames.NAMESPACE, MetricNames.input(Side.SOURCE), 6);

    String text = render();

    assertThat(text, containsString("streamrecon_input_records_total{side=\"source\"} 10\n"));
    assertEquals(
        1, text.split("streamrecon_input_records_total\\{side=\"source\"}", -1).length - 1);
  }

  @Test
  public void mismatchesWithinToleranceCountAsMatchesLikeTheSummary() {
    counter(PairEvents.METRIC_MATCH, 5);
    counter(PairEvents.METRIC_MISMATCH, 3);
    counter(Diff.MATCH_WITHIN_TOLERANCE, 2);

    String text = render();

    assertThat(text, containsString("streamrecon_verdicts_total{status=\"match\"} 7\n"));
    assertThat(text, containsString("streamrecon_verdicts_total{status=\"mismatch\"} 1\n"));
    assertThat(text, containsString("streamrecon_matches_within_tolerance_total 2\n"));
  }

  @Test
  public void unmappedMetricsAreExportedUnderASanitizedName() {
    counter("events_rehashed", 7);
    counter("step", "io.streamrecon.pipeline.io.ReadKafka", "kafka_split_markers", 1);
    gauges.add(
        MetricResult.attempted(
            MetricKey.create("read", MetricName.named("split-3", "backlog-elements")),
            GaugeResult.create(12, Instant.now())));

    String text = render();

    assertThat(
        text,
        containsString("streamrecon_beam_events_rehashed_total{namespace=\"streamrecon\"} 7\n"));
    assertThat(
        text,
        containsString(
            "streamrecon_beam_kafka_split_markers_total"
                + "{namespace=\"io.streamrecon.pipeline.io.ReadKafka\"} 1\n"));
    assertThat(
        text, containsString("streamrecon_beam_backlog_elements{namespace=\"split-3\"} 12\n"));
  }

  @Test
  public void kafkaPartitionGaugesCarryTheirLabelsAndWatermarksAreSeconds() {
    gauges.add(
        MetricResult.attempted(
            MetricKey.create(
                "read",
                MetricName.named(
                    MetricNames.NAMESPACE,
                    MetricNames.labelled(
                        MetricNames.KAFKA_RECORDS_BEHIND,
                        "side",
                        "source",
                        "topic",
                        "orders",
                        "partition",
                        "2"))),
            GaugeResult.create(40, Instant.now())));
    gauges.add(
        MetricResult.attempted(
            MetricKey.create(
                "read",
                MetricName.named(
                    MetricNames.NAMESPACE,
                    MetricNames.labelled(
                        MetricNames.KAFKA_WATERMARK_MILLIS,
                        "side",
                        "target",
                        "topic",
                        "orders",
                        "partition",
                        "0"))),
            GaugeResult.create(1_700_000_000_500L, Instant.now())));

    String text = render();

    assertThat(
        text,
        containsString(
            "streamrecon_kafka_records_behind_latest"
                + "{partition=\"2\",side=\"source\",topic=\"orders\"} 40\n"));
    assertThat(
        text,
        containsString(
            "streamrecon_watermark_seconds{partition=\"0\",side=\"target\",topic=\"orders\"}"
                + " 1.7000000005E9\n"));
  }

  @Test
  public void theLatestOfAGaugeKeptByTwoStepsWins() {
    MetricName name = MetricName.named("ns", "g");
    gauges.add(
        MetricResult.attempted(
            MetricKey.create("a", name), GaugeResult.create(1, new Instant(2000))));
    gauges.add(
        MetricResult.attempted(
            MetricKey.create("b", name), GaugeResult.create(2, new Instant(1000))));

    assertThat(render(), containsString("streamrecon_beam_g{namespace=\"ns\"} 1\n"));
  }

  @Test
  public void commitDurationsAreASummaryInSecondsPerTable() {
    distributions.add(
        MetricResult.attempted(
            MetricKey.create(
                "commit",
                MetricName.named(MetricNames.NAMESPACE, MetricNames.commitMillis("verdicts"))),
            DistributionResult.create(1500, 3, 200, 900)));

    String text = render();

    assertThat(text, containsString("# TYPE streamrecon_commit_duration_seconds summary\n"));
    assertThat(
        text, containsString("streamrecon_commit_duration_seconds_sum{table=\"verdicts\"} 1.5\n"));
    assertThat(
        text, containsString("streamrecon_commit_duration_seconds_count{table=\"verdicts\"} 3\n"));
  }

  @Test
  public void everyMappedSeriesIsInTheMetricTableOfTheDocs() throws java.io.IOException {
    for (String name : io.streamrecon.pipeline.run.Summary.counterNames()) {
      counter(name, 1);
    }
    for (String name :
        List.of(
            PairEvents.METRIC_ENTRIES_OPENED,
            PairEvents.METRIC_ENTRIES_CLOSED,
            "deltalake_commits",
            "lookup_rows_read",
            "lookup_file_opens",
            MetricNames.rowsCommitted("deltas"))) {
      counter(name, 1);
    }
    for (String base :
        List.of(MetricNames.KAFKA_RECORDS_BEHIND, MetricNames.KAFKA_WATERMARK_MILLIS)) {
      gauges.add(
          MetricResult.attempted(
              MetricKey.create(
                  "read",
                  MetricName.named(
                      MetricNames.NAMESPACE, MetricNames.labelled(base, "side", "source"))),
              GaugeResult.create(1, Instant.now())));
    }
    distributions.add(
        MetricResult.attempted(
            MetricKey.create(
                "commit",
                MetricName.named(MetricNames.NAMESPACE, MetricNames.commitMillis("deltas"))),
            DistributionResult.create(1, 1, 1, 1)));

    java.util.Set<String> families = new java.util.TreeSet<>();
    for (PrometheusSeries.Sample sample :
        PrometheusSeries.samples(
            MetricQueryResults.create(
                counters, distributions, gauges, List.of(), List.of(), List.of()))) {
      if (!sample.family().startsWith(PrometheusSeries.UNMAPPED_PREFIX)) {
        families.add(sample.family());
      }
    }
    families.removeAll(AlertRulesTest.documentedSeries());
    assertEquals("series docs/operations.md does not list", java.util.Set.of(), families);
  }

  @Test
  public void everyLineIsValidExpositionFormat() {
    counter(MetricNames.input(Side.SOURCE), 1);
    counter("step", "9 odd/namespace\"", "a name-with.dots", 2);
    distributions.add(
        MetricResult.attempted(
            MetricKey.create("s", MetricName.named("other", "latency")),
            DistributionResult.create(10, 2, 4, 6)));

    String text = render();

    assertThat(text, not(containsString("\n\n")));
    for (String line : text.split("\n")) {
      if (!line.startsWith("# TYPE ")) {
        assertTrue(line, SAMPLE_LINE.matcher(line).matches());
      }
    }
    assertThat(
        text,
        containsString(
            "streamrecon_beam_a_name_with_dots_total{namespace=\"9 odd/namespace\\\"\"} 2\n"));
  }
}
