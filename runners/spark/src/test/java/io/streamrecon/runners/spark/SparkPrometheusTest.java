package io.streamrecon.runners.spark;

import static org.junit.Assert.assertEquals;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.runners.spark.SparkRunner;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;

/** Every SparkRunner run serves its series on the driver's UI unless it configured its own. */
public class SparkPrometheusTest {
  private static final List<String> KEYS =
      List.of(SparkPrometheus.SINK_CLASS, SparkPrometheus.SINK_PATH, SparkPrometheus.NAMESPACE);
  private final Map<String, String> saved = new HashMap<>();

  @Before
  public void clearProperties() {
    for (String k : KEYS) {
      saved.put(k, System.clearProperty(k));
    }
  }

  @After
  public void restoreProperties() {
    for (String k : KEYS) {
      if (saved.get(k) == null) {
        System.clearProperty(k);
      } else {
        System.setProperty(k, saved.get(k));
      }
    }
  }

  private static PipelineOptions spark(boolean streaming) {
    PipelineOptions o = PipelineOptionsFactory.create();
    o.setRunner(SparkRunner.class);
    o.as(org.apache.beam.sdk.options.StreamingOptions.class).setStreaming(streaming);
    return o;
  }

  @Test
  public void streamingAndBatchRunsServeTheSeries() {
    for (boolean streaming : new boolean[] {true, false}) {
      clearProperties();
      new SparkSupport().tune(spark(streaming));
      assertEquals(
          BeamPrometheusServlet.class.getName(), System.getProperty(SparkPrometheus.SINK_CLASS));
      assertEquals("/metrics/prometheus", System.getProperty(SparkPrometheus.SINK_PATH));
      assertEquals("streamrecon", System.getProperty(SparkPrometheus.NAMESPACE));
    }
  }

  @Test
  public void aRunsOwnSettingsAreKept() {
    System.setProperty(SparkPrometheus.SINK_PATH, "/prom");
    System.setProperty(SparkPrometheus.NAMESPACE, "mine");

    new SparkSupport().tune(spark(true));

    assertEquals("/prom", System.getProperty(SparkPrometheus.SINK_PATH));
    assertEquals("mine", System.getProperty(SparkPrometheus.NAMESPACE));
  }
}
