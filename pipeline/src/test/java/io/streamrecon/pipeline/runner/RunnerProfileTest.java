package io.streamrecon.pipeline.runner;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import io.streamrecon.pipeline.FakeSparkRunner;
import io.streamrecon.pipeline.FakeSparkSupport;
import io.streamrecon.pipeline.io.ReadKafka;
import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.PipelineRunner;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.junit.Test;

/** Which profile a run gets: the DirectRunner's, a registered support's, or none. */
public class RunnerProfileTest {
  /** A runner no support handles. */
  public static final class UnsupportedRunner extends PipelineRunner<PipelineResult> {
    public static UnsupportedRunner fromOptions(PipelineOptions options) {
      return new UnsupportedRunner();
    }

    @Override
    public PipelineResult run(Pipeline pipeline) {
      throw new UnsupportedOperationException();
    }
  }

  private static PipelineOptions on(Class<? extends PipelineRunner<?>> runner) {
    PipelineOptions o = PipelineOptionsFactory.create();
    o.setRunner(runner);
    return o;
  }

  @Test
  public void theDirectRunnerHas64BucketsAndItsOwnChecks() {
    RunnerProfile p = RunnerProfile.of(on(DirectRunner.class), true);
    assertTrue(p.directRunner());
    assertEquals(64, p.pairingBuckets());
    assertNull(p.commitInterval());
    assertFalse(p.parsedInputsAsOneCollection());
    assertFalse(p.polledWatermark());
    assertEquals(ReadKafka.Splits.KAFKA_IO, p.kafkaSplits());
    assertTrue(RunnerProfile.isDirectRunner(on(DirectRunner.class)));
    assertFalse(RunnerProfile.isDirectRunner(on(FakeSparkRunner.class)));
  }

  @Test
  public void aRegisteredSupportMakesItsRunnersProfile() {
    PipelineOptions o = on(FakeSparkRunner.class);
    assertEquals(new FakeSparkSupport().profile(o, true), RunnerProfile.of(o, true));
    assertEquals(new FakeSparkSupport().profile(o, false), RunnerProfile.of(o, false));
    assertEquals("FakeSparkRunner", RunnerProfile.of(o, true).runnerName());
  }

  @Test
  public void aRunnerWithoutSupportRunsUntuned() {
    PipelineOptions o = on(UnsupportedRunner.class);
    RunnerProfile p = RunnerProfile.of(o, true);
    assertEquals(RunnerProfile.untuned(o), p);
    assertFalse(p.directRunner());
    assertEquals(0, p.pairingBuckets());
    assertEquals("UnsupportedRunner", p.runnerName());
  }
}
