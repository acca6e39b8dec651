package io.streamrecon.runners.flink;

import io.streamrecon.deltalake.ContainedPaths;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Finds the newest completed Flink checkpoint under a job's storage path. Flink writes {@code
 * <storage>/<flink job id>/chk-<n>/_metadata}; a checkpoint without {@code _metadata} was cut short
 * by a crash and cannot be restored. Every restart of the job is a new Flink job id, and checkpoint
 * numbers continue across a restore, so the newest is the highest number in any job directory.
 */
final class FlinkCheckpoints {
  private static final Pattern CHK = Pattern.compile("chk-(\\d+)");

  private FlinkCheckpoints() {}

  /** A completed checkpoint: its number and directory. */
  record Completed(long number, Path dir) {}

  /** The newest completed checkpoint, if any. */
  static Optional<Completed> newest(FileSystem fs, Path storage) throws IOException {
    Completed best = null;
    for (Completed c : completed(fs, storage)) {
      if (best == null || c.number() > best.number()) {
        best = c;
      }
    }
    return Optional.ofNullable(best);
  }

  static List<Completed> completed(FileSystem fs, Path storage) throws IOException {
    List<Completed> out = new ArrayList<>();
    if (!fs.exists(storage)) {
      return out;
    }
    for (FileStatus job : fs.listStatus(storage)) {
      if (!job.isDirectory()) {
        continue;
      }
      for (FileStatus chk : fs.listStatus(job.getPath())) {
        Matcher m = CHK.matcher(chk.getPath().getName());
        if (chk.isDirectory() && m.matches() && fs.exists(new Path(chk.getPath(), "_metadata"))) {
          out.add(new Completed(Long.parseLong(m.group(1)), chk.getPath()));
        }
      }
    }
    return out;
  }

  /**
   * Deletes the directories of earlier Flink jobs of this streamrecon job that do not hold {@code
   * keep}: their checkpoints are older, and a restored job takes a full checkpoint of its own
   * (Flink's default NO_CLAIM mode), so nothing refers to them.
   */
  static int deleteOlderJobs(FileSystem fs, Path storage, Completed keep) throws IOException {
    Path keepJob = keep.dir().getParent();
    int deleted = 0;
    for (FileStatus job : fs.listStatus(storage)) {
      if (job.isDirectory() && !job.getPath().getName().equals(keepJob.getName())) {
        ContainedPaths.deleteRecursively(fs, storage, job.getPath());
        deleted++;
      }
    }
    return deleted;
  }
}
