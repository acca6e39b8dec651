package io.streamrecon.pipeline.metrics;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.Test;

/**
 * The Grafana dashboard shipped in ops/grafana is a well-formed dashboard whose queries use only
 * series of the metric table in docs/operations.md.
 */
public class DashboardTest {
  private static final Path DASHBOARD = Path.of("..", "ops", "grafana", "streamrecon.json");
  private static final Pattern SERIES = Pattern.compile("\\bstreamrecon_[a-z_]+");

  @Test
  public void theDashboardIsWellFormedAndQueriesOnlyDocumentedSeries() throws IOException {
    JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
    assertEquals("streamrecon", dashboard.path("uid").asText());
    assertTrue(dashboard.path("panels").isArray() && dashboard.path("panels").size() > 0);
    Set<String> used = new TreeSet<>();
    for (JsonNode panel : dashboard.path("panels")) {
      assertFalse(panel.path("title").asText().isEmpty());
      assertTrue(panel.path("title").asText(), panel.path("targets").size() > 0);
      for (JsonNode target : panel.path("targets")) {
        String expr = target.path("expr").asText();
        assertFalse(panel.path("title").asText(), expr.isEmpty());
        Matcher m = SERIES.matcher(expr);
        while (m.find()) {
          used.add(seriesOf(m.group()));
        }
      }
    }
    Set<String> undocumented = new TreeSet<>(used);
    undocumented.removeAll(AlertRulesTest.documentedSeries());
    assertEquals(
        "series the dashboard uses that docs/operations.md does not list", Set.of(), undocumented);
  }

  /** A summary's {@code _sum} and {@code _count} belong to the summary's row in the table. */
  private static String seriesOf(String name) {
    return name.replaceAll("_(sum|count)$", "");
  }
}
