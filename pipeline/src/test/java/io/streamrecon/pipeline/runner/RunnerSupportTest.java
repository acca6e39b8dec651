package io.streamrecon.pipeline.runner;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.Optional;
import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.junit.Test;

public class RunnerSupportTest {
  @Test
  public void aSupportWhoseRunnerIsMissingIsPassedOver() {
    PipelineOptions o = PipelineOptionsFactory.create();
    o.setRunner(DirectRunner.class);
    // The test class path registers UnlinkableRunnerSupport and nothing for the DirectRunner.
    assertEquals(Optional.empty(), RunnerSupport.find(o));
  }

  @Test
  public void explicitOptionsAreThoseTheUserSet() {
    PipelineOptions o = PipelineOptionsFactory.fromArgs("--jobName=j").create();
    assertTrue(RunnerSupport.isExplicit(o, "jobName"));
    assertFalse(RunnerSupport.isExplicit(o, "tempLocation"));
  }
}
