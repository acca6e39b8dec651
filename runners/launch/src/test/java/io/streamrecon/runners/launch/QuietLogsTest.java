package io.streamrecon.runners.launch;

import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.net.URL;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.ConfigurationFactory;
import org.apache.logging.log4j.core.config.ConfigurationSource;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.impl.Log4jLogEvent;
import org.apache.logging.log4j.message.ParameterizedMessage;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/** What streamrecon's log4j 2 configuration drops, and what it must keep showing. */
public class QuietLogsTest {
  private static final String METRICS_ENVIRONMENT =
      "org.apache.beam.sdk.metrics.MetricsEnvironment";

  /** Beam 2.70's message when a metric is updated on a thread without a metrics container. */
  private static final String NO_CONTAINER =
      "Unable to update metrics on the current thread. Most likely caused by using metrics outside"
          + " the managed work-execution thread:\n  {}";

  private static LoggerContext context;
  private static Configuration config;

  @BeforeClass
  public static void load() throws Exception {
    URL url = QuietLogs.class.getResource(QuietLogs.RESOURCE);
    context = new LoggerContext("QuietLogsTest");
    config =
        ConfigurationFactory.getInstance()
            .getConfiguration(context, ConfigurationSource.fromUri(url.toURI()));
    config.initialize();
  }

  @AfterClass
  public static void stop() {
    config.stop();
    context.stop();
  }

  private static boolean dropped(String logger, Level level, String template, Object param) {
    LoggerConfig lc = config.getLoggerConfig(logger);
    if (!lc.getLevel().isLessSpecificThan(level)) {
      return true;
    }
    LogEvent event =
        Log4jLogEvent.newBuilder()
            .setLoggerName(logger)
            .setLevel(level)
            .setMessage(new ParameterizedMessage(template, param))
            .build();
    return lc.isFiltered(event);
  }

  @Test
  public void theMetricsMessageOfAFlinkCheckpointThreadIsDropped() {
    String trace = "java.lang.Thread.getStackTrace(Thread.java:1610)\n  org.apache.beam...";
    assertTrue(dropped(METRICS_ENVIRONMENT, Level.ERROR, NO_CONTAINER, trace));
  }

  @Test
  public void otherMessagesOfThatLoggerStillShow() {
    assertFalse(
        dropped(
            METRICS_ENVIRONMENT,
            Level.ERROR,
            "Reporting metrics are not supported in the current execution environment:\n  {}",
            "trace"));
    assertFalse(dropped(METRICS_ENVIRONMENT, Level.WARN, "something else {}", "x"));
  }

  @Test
  public void theSameTextFromAnotherLoggerStillShows() {
    assertFalse(dropped("org.apache.beam.sdk.io.kafka.KafkaIO", Level.ERROR, NO_CONTAINER, "t"));
  }
}
