package io.streamrecon.pipeline.run;

import io.streamrecon.deltalake.WarehouseIds;
import io.streamrecon.pipeline.ReconcileOptions;
import io.streamrecon.pipeline.ReconcileSettings;
import io.streamrecon.pipeline.io.InputSpec;
import io.streamrecon.pipeline.runner.JobIdentity;
import io.streamrecon.pipeline.runner.RunnerSupport;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds or creates a streaming job's identity under {@code <warehouse>/_checkpoints/<jobName>}: the
 * first start writes {@link JobManifest} there; a restart reuses its run id and refuses a changed
 * state-shaping option or checkpoints of another release; {@code --fresh} moves the old directory
 * aside and starts a new run. Works on any Hadoop file system the warehouse is on.
 */
public final class JobCheckpoints {
  private static final Logger LOG = LoggerFactory.getLogger(JobCheckpoints.class);

  /** Directory under the warehouse that holds every job's checkpoints. */
  public static final String DIR = "_checkpoints";

  /** The manifest's file name inside a job's checkpoint root. */
  public static final String MANIFEST = "job.json";

  private static final DateTimeFormatter STAMP =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

  private JobCheckpoints() {}

  /**
   * Reads or writes the manifest and returns the job's identity.
   *
   * @throws IllegalArgumentException when a state-shaping option or an explicit {@code --runId}
   *     differs from the job's manifest, or the job name is not usable as a directory name
   */
  public static JobIdentity prepare(ReconcileOptions options, ReconcileSettings s) {
    String jobName =
        RunnerSupport.isExplicit(options, "jobName") ? options.getJobName() : defaultJobName(s);
    // The job name names the checkpoint directory.
    WarehouseIds.check("jobName", jobName);
    String root = Warehouse.of(s.warehouse()).uri() + "/" + DIR + "/" + jobName;
    org.apache.hadoop.fs.Path rootPath = new org.apache.hadoop.fs.Path(root);
    org.apache.hadoop.fs.Path manifestPath = new org.apache.hadoop.fs.Path(rootPath, MANIFEST);
    try {
      FileSystem fs = fileSystem(root);
      if (options.getFresh() && fs.exists(rootPath)) {
        org.apache.hadoop.fs.Path aside =
            new org.apache.hadoop.fs.Path(
                rootPath.getParent(), jobName + ".replaced-" + STAMP.format(Instant.now()));
        if (!fs.rename(rootPath, aside)) {
          throw new IOException("cannot move " + rootPath + " to " + aside);
        }
        LOG.info("--fresh: moved the checkpoints of job {} aside to {}", jobName, aside);
      }
      java.util.Map<String, String> current = JobManifest.stateOptions(s);
      if (fs.exists(manifestPath)) {
        JobManifest m = JobManifest.fromJson(read(fs, manifestPath), manifestPath.toString());
        if (!WarehouseIds.isValid(m.runId())) {
          // The resumed run id names folders in the warehouse, as a given --runId does.
          throw new IllegalArgumentException(
              "job "
                  + jobName
                  + " is run "
                  + m.runId()
                  + " (in "
                  + manifestPath
                  + "), which is not a valid run id ("
                  + WarehouseIds.FORM
                  + "): add --fresh to start a new run");
        }
        java.util.Optional<String> otherRelease = m.releaseMismatch(Release.VERSION);
        if (otherRelease.isPresent()) {
          throw new IllegalArgumentException(
              "job "
                  + jobName
                  + " cannot resume: "
                  + otherRelease.get()
                  + ". Let the old release finish the job, or add --fresh to start it over (its"
                  + " checkpoints under "
                  + root
                  + " are moved aside; docs/operations.md#upgrading-a-streaming-job)");
        }
        List<String> changes = m.changes(current);
        if (!changes.isEmpty()) {
          throw new IllegalArgumentException(
              "job "
                  + jobName
                  + " has checkpointed state built with other options: "
                  + String.join(", ", changes)
                  + "; restoring it would give wrong verdicts. Run with the job's values, or add"
                  + " --fresh to start the job over (its checkpoints under "
                  + root
                  + " are moved aside)");
        }
        if (RunnerSupport.isExplicit(options, "runId") && !options.getRunId().equals(m.runId())) {
          throw new IllegalArgumentException(
              "--runId="
                  + options.getRunId()
                  + " but job "
                  + jobName
                  + " is run "
                  + m.runId()
                  + " (in "
                  + manifestPath
                  + "): leave --runId out to resume it, or add --fresh to start a new run");
        }
        return new JobIdentity(jobName, m.runId(), root, true);
      }
      JobManifest m =
          new JobManifest(
              JobManifest.FORMAT,
              jobName,
              options.getRunId(),
              Instant.now().toString(),
              Release.VERSION,
              current);
      // Whole or not at all: a half manifest would block every restart.
      writeWhole(fs, manifestPath, m.toJson().getBytes(StandardCharsets.UTF_8));
      return new JobIdentity(jobName, m.runId(), root, false);
    } catch (IOException e) {
      throw new IllegalStateException(
          "cannot read or write the job manifest " + manifestPath + ": " + e.getMessage(), e);
    }
  }

  /**
   * {@code streamrecon-<12 hex>}: a digest of what the job reads (file pattern, or Kafka topic and
   * consumer group) and where it writes, so that the same command names the same job while broker
   * addresses may change.
   */
  public static String defaultJobName(ReconcileSettings s) {
    String group = s.kafkaProperties().getOrDefault("group.id", "");
    String identity =
        String.join(
            "\n",
            describe(s.source()),
            describe(s.target()),
            group,
            Warehouse.of(s.warehouse()).uri());
    try {
      byte[] d =
          MessageDigest.getInstance("SHA-256").digest(identity.getBytes(StandardCharsets.UTF_8));
      return "streamrecon-" + HexFormat.of().formatHex(d).substring(0, 12);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String describe(InputSpec spec) {
    return spec.isKafka() ? "kafka:" + spec.topic() : "file:" + spec.filePattern();
  }

  /**
   * Writes {@code bytes} to {@code file} (replacing it) through a temporary file of an
   * unpredictable name in the same folder, created afresh (never a file or link someone put there
   * first), then renamed: a crash mid-write leaves the old file or none, never half a file.
   */
  public static void writeWhole(FileSystem fs, org.apache.hadoop.fs.Path file, byte[] bytes)
      throws IOException {
    fs.mkdirs(file.getParent());
    org.apache.hadoop.fs.Path tmp =
        new org.apache.hadoop.fs.Path(
            file.getParent(), "." + file.getName() + "." + java.util.UUID.randomUUID() + ".tmp");
    try (OutputStream out = fs.create(tmp, false)) {
      out.write(bytes);
    }
    fs.delete(file, false);
    if (!fs.rename(tmp, file)) {
      throw new IOException("cannot rename " + tmp + " to " + file);
    }
  }

  /** The file system of a Hadoop URI; local files without checksum side files. */
  public static FileSystem fileSystem(String uri) throws IOException {
    FileSystem fs = FileSystem.get(URI.create(uri), new Configuration());
    return fs instanceof LocalFileSystem l ? l.getRaw() : fs;
  }

  private static String read(FileSystem fs, org.apache.hadoop.fs.Path p) throws IOException {
    try (InputStream in = fs.open(p)) {
      ByteArrayOutputStream b = new ByteArrayOutputStream();
      in.transferTo(b);
      return b.toString(StandardCharsets.UTF_8);
    }
  }
}
