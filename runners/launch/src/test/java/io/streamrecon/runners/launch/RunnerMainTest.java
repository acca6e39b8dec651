package io.streamrecon.runners.launch;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

/** The entry points' command line and log switch. */
public class RunnerMainTest {
  @Test
  public void addsRunAndTheJarsRunner() {
    assertArrayEquals(
        new String[] {"run", "--source=a", "--runner=SparkRunner"},
        RunnerMain.runArgs(new String[] {"--source=a"}, "SparkRunner"));
  }

  @Test
  public void keepsARunnerTheUserNamed() {
    assertArrayEquals(
        new String[] {"run", "--runner=DirectRunner", "--source=a"},
        RunnerMain.runArgs(new String[] {"--runner=DirectRunner", "--source=a"}, "FlinkRunner"));
  }

  @Test
  public void verboseKeepsTheDistributionsLogs() {
    assertTrue(QuietLogs.verbose(new String[] {"--source=a", "--verbose"}));
    assertTrue(QuietLogs.verbose(new String[] {"--verbose=true"}));
    assertFalse(QuietLogs.verbose(new String[] {"--verbose=false", "--source=a"}));
  }

  @Test
  public void quietConfigurationIsOnTheClassPath() {
    assertNotNull(QuietLogs.class.getResource(QuietLogs.RESOURCE));
  }
}
