package io.streamrecon.runners.spark;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import io.streamrecon.pipeline.FakeSparkSupport;
import io.streamrecon.pipeline.ReconcileOptions;
import io.streamrecon.pipeline.ReconcileSettings;
import io.streamrecon.pipeline.io.ReadKafka;
import io.streamrecon.pipeline.runner.RunnerProfile;
import io.streamrecon.pipeline.runner.RunnerSupport;
import io.streamrecon.transforms.deltalake.DeltaLakeIO;
import io.streamrecon.transforms.pairing.PairEvents;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.runners.spark.SparkPipelineOptions;
import org.apache.beam.runners.spark.SparkRunner;
import org.apache.beam.sdk.options.ExperimentalOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.joda.time.Duration;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;

/**
 * A batch run on the SparkRunner persists to local disk only, spills its sorters every 25,000
 * elements and streams a splittable DoFn's output; streaming is left alone, and whatever the user
 * set is kept. The run finds this support through the ServiceLoader registration.
 */
public class SparkSupportTest {
  private String savedThreshold;

  @Before
  public void clearProperty() {
    savedThreshold = System.clearProperty(SparkSupport.SPILL_THRESHOLD);
  }

  @After
  public void restoreProperty() {
    if (savedThreshold == null) {
      System.clearProperty(SparkSupport.SPILL_THRESHOLD);
    } else {
      System.setProperty(SparkSupport.SPILL_THRESHOLD, savedThreshold);
    }
  }

  private static SparkPipelineOptions tuned(String... args) {
    SparkPipelineOptions o = PipelineOptionsFactory.fromArgs(args).as(SparkPipelineOptions.class);
    o.setRunner(SparkRunner.class);
    RunnerSupport support = RunnerSupport.find(o).orElseThrow();
    support.tune(o);
    return o;
  }

  private static boolean streamsReads(SparkPipelineOptions o) {
    return ExperimentalOptions.hasExperiment(
        o.as(ExperimentalOptions.class), SparkSupport.SDF_BOUNDED_OUTPUT);
  }

  @Test
  public void theSparkRunnerIsHandledAndNoOtherRunner() {
    SparkPipelineOptions o = PipelineOptionsFactory.as(SparkPipelineOptions.class);
    o.setRunner(SparkRunner.class);
    assertTrue(RunnerSupport.find(o).orElseThrow() instanceof SparkSupport);
    o.setRunner(DirectRunner.class);
    assertFalse(new SparkSupport().handles(o));
  }

  @Test
  public void batchIsTunedForABoundedHeap() {
    SparkPipelineOptions o = tuned();
    assertEquals("DISK_ONLY", o.getStorageLevel());
    assertEquals("25000", System.getProperty(SparkSupport.SPILL_THRESHOLD));
    assertTrue(streamsReads(o));
  }

  @Test
  public void streamingIsLeftAlone() {
    SparkPipelineOptions o = tuned("--streaming=true");
    assertEquals("MEMORY_ONLY", o.getStorageLevel());
    assertNull(System.getProperty(SparkSupport.SPILL_THRESHOLD));
    assertFalse(streamsReads(o));
  }

  @Test
  public void whatTheUserSetIsKept() {
    System.setProperty(SparkSupport.SPILL_THRESHOLD, "5000");
    SparkPipelineOptions o =
        tuned(
            "--storageLevel=MEMORY_AND_DISK_SER",
            "--experiments=" + SparkSupport.SDF_BOUNDED_OUTPUT + ",other");
    assertEquals("MEMORY_AND_DISK_SER", o.getStorageLevel());
    assertEquals("5000", System.getProperty(SparkSupport.SPILL_THRESHOLD));
    assertEquals(
        List.of(SparkSupport.SDF_BOUNDED_OUTPUT, "other"),
        o.as(ExperimentalOptions.class).getExperiments());
  }

  /** Options of a run on the SparkRunner from two Kafka topics, plus {@code extra}. */
  private static ReconcileOptions kafkaRun(String... extra) {
    List<String> args =
        new ArrayList<>(
            List.of("--source=kafka://localhost:9092/a", "--target=kafka://localhost:9092/b"));
    args.addAll(List.of(extra));
    ReconcileOptions o =
        PipelineOptionsFactory.fromArgs(args.toArray(new String[0])).as(ReconcileOptions.class);
    o.setRunner(SparkRunner.class);
    return o;
  }

  @Test
  public void streamingSettingsFollowTheSparkProfile() {
    ReconcileSettings s = ReconcileSettings.from(kafkaRun());
    assertEquals(SparkSupport.STREAMING_BUCKETS, s.pairingBuckets());
    assertEquals(DeltaLakeIO.COMMIT_EACH_MICRO_BATCH, s.commitInterval());
    assertEquals(DeltaLakeIO.COMMIT_EACH_MICRO_BATCH, s.rawCommitInterval());
    assertTrue(s.runner().parsedInputsAsOneCollection());
    assertTrue(s.runner().polledWatermark());
    assertEquals(ReadKafka.Splits.ONE_SPLIT, s.runner().kafkaSplits());
    assertEquals("SparkRunner", s.runner().runnerName());
    assertFalse(s.runner().directRunner());

    ReconcileSettings given = ReconcileSettings.from(kafkaRun("--commitInterval=2s"));
    assertEquals(Duration.standardSeconds(2), given.commitInterval());
    assertEquals(DeltaLakeIO.COMMIT_EACH_MICRO_BATCH, given.rawCommitInterval());
  }

  @Test
  public void batchSettingsKeepTheOptionsDefaults() {
    ReconcileSettings s = ReconcileSettings.from(kafkaRun("--kafkaMaxRecords=10"));
    assertEquals(PairEvents.DEFAULT_BUCKETS, s.pairingBuckets());
    assertEquals(Duration.standardSeconds(5), s.commitInterval());
    assertEquals(Duration.standardSeconds(5), s.rawCommitInterval());
    assertFalse(s.runner().parsedInputsAsOneCollection());
    assertFalse(s.runner().polledWatermark());
    assertEquals(ReadKafka.Splits.ONE_SPLIT, s.runner().kafkaSplits());
  }

  /** The pipeline module's tests check the Spark settings and graph with a stand-in support. */
  @Test
  public void thePipelineTestsStandInMakesTheSameChoices() {
    ReconcileOptions o = kafkaRun();
    for (boolean streaming : new boolean[] {true, false}) {
      RunnerProfile real = new SparkSupport().profile(o, streaming);
      RunnerProfile standIn = new FakeSparkSupport().profile(o, streaming);
      assertEquals(real, standIn);
    }
  }
}
