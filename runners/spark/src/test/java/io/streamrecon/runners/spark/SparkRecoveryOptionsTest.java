package io.streamrecon.runners.spark;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.not;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;

import io.streamrecon.pipeline.ReconcileOptions;
import io.streamrecon.pipeline.runner.JobIdentity;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.beam.runners.spark.SparkPipelineOptions;
import org.apache.beam.runners.spark.SparkRunner;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * A restored Spark streaming job runs with the options of its first start, so a restart that
 * changes one is refused with one line that names it (never its value) instead of being silently
 * ignored; the same options, a fresh start, and a changed Kafka setting (kept out of the file: it
 * may hold a secret) pass.
 */
public class SparkRecoveryOptionsTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  private static SparkPipelineOptions options(String... args) {
    SparkPipelineOptions o = PipelineOptionsFactory.fromArgs(args).as(SparkPipelineOptions.class);
    o.setRunner(SparkRunner.class);
    o.as(ReconcileOptions.class);
    return o;
  }

  private JobIdentity job(Path root, boolean resumed) {
    return new JobIdentity("job-a", "run-a", root.toUri().toString(), resumed);
  }

  @Test
  public void aRestartWithAChangedBatchIntervalIsRefusedNamingIt() throws Exception {
    Path root = tmp.newFolder("job-a").toPath();
    new SparkRecovery().configure(options("--batchIntervalMillis=5000"), job(root, false));
    assertFalse(Files.readString(root.resolve(SparkRecovery.OPTIONS_FILE)).contains("5000"));

    // The same command resumes; Beam's default written out is no change either.
    new SparkRecovery().configure(options("--batchIntervalMillis=5000"), job(root, true));
    new SparkRecovery().configure(options(), job(root, true));

    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                new SparkRecovery()
                    .configure(options("--batchIntervalMillis=2000"), job(root, true)));
    assertThat(e.getMessage(), containsString("--batchIntervalMillis"));
    assertThat(e.getMessage(), containsString("add --fresh"));
    assertThat(e.getMessage(), not(containsString("2000")));
    assertFalse(e.getMessage().contains("\n"));
  }

  @Test
  public void kafkaSettingsAndAFreshStartAreNotCompared() throws Exception {
    Path root = tmp.newFolder("job-b").toPath();
    new SparkRecovery()
        .configure(
            options("--kafkaProperties=group.id=g1", "--emitMatches=true"), job(root, false));
    assertFalse(
        "Kafka settings never reach the file",
        Files.readString(root.resolve(SparkRecovery.OPTIONS_FILE)).contains("kafkaProperties"));
    new SparkRecovery()
        .configure(options("--kafkaProperties=group.id=g2", "--emitMatches=true"), job(root, true));
    assertThrows(
        IllegalArgumentException.class,
        () -> new SparkRecovery().configure(options("--emitMatches=false"), job(root, true)));
    // A first start (after --fresh moved the old root aside) records its own options.
    new SparkRecovery().configure(options("--emitMatches=false"), job(root, false));
    new SparkRecovery().configure(options("--emitMatches=false"), job(root, true));
  }
}
