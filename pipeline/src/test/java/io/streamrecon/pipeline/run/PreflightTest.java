package io.streamrecon.pipeline.run;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.lessThan;
import static org.hamcrest.Matchers.not;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import io.streamrecon.pipeline.ReconcileOptions;
import io.streamrecon.pipeline.ReconcileSettings;
import io.streamrecon.pipeline.io.InputSpec;
import io.streamrecon.pipeline.testing.EmbeddedKafka;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.junit.Test;

/** A bounded run's Kafka broker that does not answer stops the run within a bound, in one line. */
public class PreflightTest {
  private static final Map<String, String> SECRET = Map.of("ssl.key.password", "hunter2-secret");

  private static Duration waitFor(String bound) {
    ReconcileOptions o =
        PipelineOptionsFactory.fromArgs(
                "--source=kafka://broker:9092/orders", "--target=t.jsonl", bound)
            .as(ReconcileOptions.class);
    return Preflight.brokerWait(ReconcileSettings.from(o));
  }

  @Test
  public void theBrokerWaitIsTheReadTimeBetweenFiveAndThirtySeconds() {
    assertEquals(Duration.ofSeconds(5), waitFor("--kafkaMaxReadTime=1s"));
    assertEquals(Duration.ofSeconds(12), waitFor("--kafkaMaxReadTime=12s"));
    assertEquals(Duration.ofSeconds(30), waitFor("--kafkaMaxReadTime=1h"));
    assertEquals(Duration.ofSeconds(30), waitFor("--kafkaMaxRecords=10"));
  }

  /** Accepts connections (the kernel's backlog does) but never reads or answers them. */
  @Test
  public void aBrokerThatDoesNotAnswerFailsWithinTheWaitNamingServersAndTopic() throws Exception {
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      String servers = "127.0.0.1:" + silent.getLocalPort();
      InputSpec spec = InputSpec.parse("source", "kafka://" + servers + "/orders");
      long start = System.nanoTime();
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class,
              () -> Preflight.checkBroker("source", spec, SECRET, Duration.ofSeconds(2)));
      long tookMillis = (System.nanoTime() - start) / 1_000_000;
      assertThat(tookMillis, lessThan(15_000L));
      assertThat(e.getMessage(), containsString("--source: Kafka bootstrap servers " + servers));
      assertThat(e.getMessage(), containsString("topic orders"));
      assertThat(e.getMessage(), containsString("did not answer within 2s"));
      assertThat(e.getMessage(), not(containsString("hunter2")));
    }
  }

  @Test
  public void aBrokerThatAnswersPassesForItsTopicAndNamesAMissingOne() throws Exception {
    try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
      kafka.createTopics("orders");
      Preflight.checkBroker(
          "source",
          InputSpec.parse("source", kafka.uri("orders")),
          Map.of(),
          Duration.ofSeconds(5));
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class,
              () ->
                  Preflight.checkBroker(
                      "target",
                      InputSpec.parse("target", kafka.uri("orderz")),
                      Map.of(),
                      Duration.ofSeconds(5)));
      assertThat(e.getMessage(), containsString("topic orderz: no such topic on that broker"));
    }
  }

  @Test
  public void aPortNobodyListensOnFailsWithinTheWait() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    InputSpec spec = InputSpec.parse("target", "kafka://127.0.0.1:" + port + "/orders");
    long start = System.nanoTime();
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> Preflight.checkBroker("target", spec, SECRET, Duration.ofSeconds(1)));
    assertThat((System.nanoTime() - start) / 1_000_000, lessThan(10_000L));
    assertThat(e.getMessage(), containsString("127.0.0.1:" + port + ", topic orders"));
    assertThat(e.getMessage(), containsString("no server accepted a connection within 1s"));
  }
}
