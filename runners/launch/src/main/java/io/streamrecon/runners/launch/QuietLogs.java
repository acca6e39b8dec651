package io.streamrecon.runners.launch;

import java.net.URISyntaxException;
import java.net.URL;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.DefaultConfiguration;

/**
 * Third-party INFO off by default on the distribution's log4j 2: when the cluster has no log4j2
 * configuration of its own (log4j's built-in default, or the defaults file Spark loads then),
 * streamrecon's {@code streamrecon-log4j2.properties} replaces it: WARN for libraries, INFO for
 * streamrecon's progress lines. A configuration the operator gave is left alone, and so is
 * everything with {@code --verbose}.
 */
public final class QuietLogs {
  /** On the class path of both deployable jars. */
  public static final String RESOURCE = "/streamrecon-log4j2.properties";

  private QuietLogs() {}

  /** True when {@code args} ask for all logs; such runs keep the distribution's defaults. */
  public static boolean verbose(String[] args) {
    for (String a : args) {
      if (a.equals("--verbose") || a.equals("--verbose=true")) {
        return true;
      }
    }
    return false;
  }

  /** Replaces a built-in log4j 2 configuration with streamrecon's, unless {@code --verbose}. */
  public static void apply(String[] args) {
    if (verbose(args)) {
      return;
    }
    try {
      LoggerContext context = (LoggerContext) LogManager.getContext(false);
      Configuration current = context.getConfiguration();
      String source = String.valueOf(current.getConfigurationSource().getLocation());
      boolean builtIn =
          current instanceof DefaultConfiguration
              || source.endsWith("org/apache/spark/log4j2-defaults.properties");
      URL ours = QuietLogs.class.getResource(RESOURCE);
      if (builtIn && ours != null) {
        context.setConfigLocation(ours.toURI());
      }
    } catch (ClassCastException | URISyntaxException | LinkageError e) {
      // Another logging back end than log4j-core: its own configuration applies.
    }
  }
}
