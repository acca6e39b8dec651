package io.streamrecon.runners.spark;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamrecon.pipeline.run.JobCheckpoints;
import io.streamrecon.pipeline.runner.JobIdentity;
import io.streamrecon.pipeline.runner.RunnerSupport;
import io.streamrecon.pipeline.runner.RunnerSupport.Recovery;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.beam.runners.spark.SparkPipelineOptions;
import org.apache.beam.runners.spark.util.GlobalWatermarkHolder;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.transforms.display.DisplayData;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Makes an unbounded run on the classic SparkRunner recoverable and able to keep pace: its
 * checkpoint directory defaults to {@code <checkpoint root>/spark} (Beam's own default is {@code
 * /tmp/<random job name>}, so a restarted job would never find it), from which {@code
 * JavaStreamingContext.getOrCreate} restores the streaming context, state and Kafka read positions
 * included. On recovery Spark deserializes the first start's graph and options, so a restored job
 * runs with every option of its first start whatever the command line says now: the first start
 * records its options ({@value #OPTIONS_FILE}, a digest per option, beside the job manifest) and a
 * restart with any of them changed is refused instead of silently ignored.
 *
 * <p>The state streams of Beam's Kafka source and of its GroupByKeys (the Delta Lake commit steps)
 * are also checkpointed every micro-batch ({@code --checkpointDurationMillis} defaults to {@code
 * --batchIntervalMillis}) instead of Spark's default of every tenth. Beam's Spark source reads
 * Kafka through a live reader while a batch's jobs are generated, and the records it read are kept
 * only in the source's state RDD. On recovery Spark recomputes every batch since that RDD's last
 * checkpoint to rebuild state; with a fresh reader those recomputations read the backlog again into
 * batches whose output nothing uses, and the stored read position moved past records that were then
 * never stored. Checkpointed every batch, the recomputation starts from the checkpoint files, which
 * hold what each batch really read (the Spark crash test, {@code ShippedCrashRecoveryTest}: without
 * this, records produced around a crash were never stored; with it the test passes).
 */
final class SparkRecovery {
  /**
   * Micro-batch interval of an unbounded run unless {@code --batchIntervalMillis} is given. Beam's
   * default (500 ms) is shorter than one batch takes here (the pairing visits every bucket each
   * batch): Spark then labels each batch later than the last and its checkpoint falls further
   * behind wall time, so a restart would reschedule every batch of that drift. 5 s keeps pace with
   * a sustained load.
   */
  static final long DEFAULT_BATCH_INTERVAL_MILLIS = 5000;

  /** The file beside the job manifest that holds the first start's options, as digests. */
  static final String OPTIONS_FILE = "spark-options.json";

  /**
   * Options left out of the comparison: set anew by every start ({@code fresh}, the job's name and
   * run id, Beam's options id), or able to hold a secret, which must not reach a file even as a
   * digest (the Kafka client settings: a restored job keeps the first start's, so a change of them
   * needs {@code --fresh} like any other).
   */
  static final Set<String> NOT_COMPARED =
      Set.of("fresh", "jobName", "runId", "optionsId", "kafkaProperties", "kafkaPropertiesFile");

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * On the first start, writes each option set on this run (after the defaults above) as a SHA-256
   * digest of its value; on a restart, refuses when any differs, naming the options but not their
   * values.
   *
   * @throws IllegalArgumentException when a restart changed an option the checkpoint keeps
   */
  static void checkOptionsOfFirstStart(PipelineOptions options, JobIdentity job) {
    Map<String, String> now = optionDigests(options);
    Path file = new Path(job.checkpointRoot(), OPTIONS_FILE);
    try {
      FileSystem fs = JobCheckpoints.fileSystem(job.checkpointRoot());
      if (!job.resumed() || !fs.exists(file)) {
        JobCheckpoints.writeWhole(
            fs, file, JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(now));
        return;
      }
      Map<String, String> first;
      try (InputStream in = fs.open(file)) {
        first =
            JSON.readValue(
                in,
                new com.fasterxml.jackson.core.type.TypeReference<TreeMap<String, String>>() {});
      }
      List<String> changed = new ArrayList<>();
      for (String name : union(first.keySet(), now.keySet())) {
        if (!java.util.Objects.equals(first.get(name), now.get(name))) {
          changed.add("--" + name);
        }
      }
      if (!changed.isEmpty()) {
        throw new IllegalArgumentException(
            "job "
                + job.jobName()
                + " runs on the SparkRunner, whose checkpoint restores the options of the job's"
                + " first start, and these differ from it: "
                + String.join(", ", changed)
                + ". Run with the job's options, or add --fresh to start the job over (its"
                + " checkpoints under "
                + job.checkpointRoot()
                + " are moved aside)");
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot read or write " + file + ": " + e.getMessage(), e);
    }
  }

  /** Every option set on {@code options} (given or set by code), name → SHA-256 of its value. */
  static Map<String, String> optionDigests(PipelineOptions options) {
    Map<String, String> out = new TreeMap<>();
    for (DisplayData.Item item : DisplayData.from(options).items()) {
      if (NOT_COMPARED.contains(item.getKey())) {
        continue;
      }
      out.put(item.getKey(), sha256(String.valueOf(item.getValue())));
    }
    return out;
  }

  private static java.util.SortedSet<String> union(Set<String> a, Set<String> b) {
    java.util.SortedSet<String> all = new java.util.TreeSet<>(a);
    all.addAll(b);
    return all;
  }

  private static String sha256(String s) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Configures the options of an unbounded run; what {@link SparkSupport#configure} returns. */
  Recovery configure(PipelineOptions options, JobIdentity job) {
    SparkPipelineOptions spark = options.as(SparkPipelineOptions.class);
    // The runner's watermarks are static per JVM and SparkRunner never resets them: a job started
    // after another in the same JVM would otherwise read the first job's watermarks (queued per
    // source id, which each streaming context numbers from the same start) for its first batches.
    GlobalWatermarkHolder.clear();
    if (!RunnerSupport.isExplicit(options, "checkpointDir")) {
      spark.setCheckpointDir(job.runnerDir("spark"));
    }
    if (!RunnerSupport.isExplicit(options, "batchIntervalMillis")) {
      spark.setBatchIntervalMillis(DEFAULT_BATCH_INTERVAL_MILLIS);
    }
    if (!RunnerSupport.isExplicit(options, "checkpointDurationMillis")) {
      spark.setCheckpointDurationMillis(spark.getBatchIntervalMillis());
    }
    checkOptionsOfFirstStart(options, job);
    return new Recovery(
        true,
        false,
        "SparkRunner, streaming context checkpointed under "
            + spark.getCheckpointDir()
            + (job.resumed() ? "; restoring it if present" : ""));
  }
}
