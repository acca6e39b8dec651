package io.streamrecon.pipeline.runner;

/**
 * Who a streaming job is across restarts: its name, the run id all its processes share, and where
 * its checkpoints live ({@code <warehouse>/_checkpoints/<jobName>}).
 *
 * @param checkpointRoot a Hadoop URI ({@code file:/...}, {@code hdfs://...}, {@code s3a://...})
 * @param resumed true when a manifest from an earlier start was found and the run id reused
 */
public record JobIdentity(String jobName, String runId, String checkpointRoot, boolean resumed) {

  /** The checkpoint directory of one runner under the root, e.g. {@code .../flink}. */
  public String runnerDir(String runner) {
    return checkpointRoot + "/" + runner;
  }
}
