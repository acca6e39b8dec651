package io.streamrecon.pipeline.run;

import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import io.streamrecon.pipeline.FakeSparkRunner;
import org.apache.beam.runners.direct.DirectOptions;
import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.sdk.PipelineRunner;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.junit.Test;

/**
 * A production run on the DirectRunner skips the runner's per-element immutability and encodability
 * checks, unless the user asked for them; other runners are left alone.
 */
public class DirectRunnerChecksTest {
  private static DirectOptions after(Class<? extends PipelineRunner<?>> runner, String... args) {
    DirectOptions o = PipelineOptionsFactory.fromArgs(args).as(DirectOptions.class);
    o.setRunner(runner);
    ReconcileRun.skipDirectRunnerChecks(o);
    return o;
  }

  @Test
  public void theDirectRunnerSkipsBothChecksByDefault() {
    DirectOptions o = after(DirectRunner.class);
    assertFalse(o.isEnforceImmutability());
    assertFalse(o.isEnforceEncodability());
  }

  @Test
  public void checksTheUserAskedForAreKept() {
    DirectOptions o =
        after(DirectRunner.class, "--enforceImmutability=true", "--enforceEncodability=true");
    assertTrue(o.isEnforceImmutability());
    assertTrue(o.isEnforceEncodability());
  }

  @Test
  public void otherRunnersAreLeftAlone() {
    DirectOptions o = after(FakeSparkRunner.class);
    assertTrue(o.isEnforceImmutability());
    assertTrue(o.isEnforceEncodability());
  }
}
