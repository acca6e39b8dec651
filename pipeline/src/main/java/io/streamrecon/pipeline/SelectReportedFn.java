package io.streamrecon.pipeline;

import io.streamrecon.model.Status;
import io.streamrecon.model.Verdict;
import org.apache.beam.sdk.transforms.DoFn;

/**
 * Keeps the verdicts that become DeltaRecords: MISSING always; MATCH only with {@code
 * --emitMatches} or when it supersedes an earlier verdict (a resolved mismatch must be visible).
 * PairEvents already leaves plain MATCHes out when {@code --emitMatches} is off ({@code
 * withEmitMatches}), so that they are not carried through its persisted output; this step keeps the
 * rule in the graph, whose shape jobs restored from older checkpoints expect.
 */
final class SelectReportedFn extends DoFn<Verdict, Verdict> {
  private final boolean emitMatches;

  SelectReportedFn(boolean emitMatches) {
    this.emitMatches = emitMatches;
  }

  @ProcessElement
  public void process(@Element Verdict v, OutputReceiver<Verdict> out) {
    if (v.status() != Status.MATCH || emitMatches || v.supersedes() != null) {
      out.output(v);
    }
  }
}
