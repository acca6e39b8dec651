package io.streamrecon.bench;

import static org.junit.Assert.assertEquals;

import io.streamrecon.json.ComparisonRules;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The typical rules file of the benchmark changes no verdict on generated data (its paths hold
 * nothing the generator varies within a rule), so the bare contender's cost comparison with and
 * without rules compares the same work.
 */
public class BareContenderRulesTest {
  @Rule public final TemporaryFolder tmp = new TemporaryFolder();

  @Test
  public void typicalRulesKeepTheExpectedCounts() throws Exception {
    Path dir = tmp.newFolder().toPath();
    Expected e =
        new Generator(
                GeneratorConfig.defaults()
                    .withRecords(2000)
                    .withShares(0.10, 0.05, 0.05, 0.02, 0.05, 0.05)
                    .withPayloadBytes(300, 2000)
                    .withTiming(
                        Duration.ofMillis(20), Duration.ofSeconds(5), 300, Duration.ofSeconds(60)))
            .generate(dir);
    BareContender bare = new BareContender(dir, e, ComparisonRules.fromFile("rules-typical.json"));
    assertEquals(e.streaming(), bare.run());
    assertEquals(0, bare.matchesWithinTolerance);
  }
}
