package io.streamrecon.transforms;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamrecon.json.ComparisonRules;
import io.streamrecon.json.InvalidEventException;
import io.streamrecon.json.JsonDiff;
import io.streamrecon.json.JsonSupport;
import io.streamrecon.model.DeltaRecord;
import io.streamrecon.model.Difference;
import io.streamrecon.model.DifferenceKind;
import io.streamrecon.model.EventRef;
import io.streamrecon.model.MetricNames;
import io.streamrecon.model.PayloadPair;
import io.streamrecon.model.Status;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.PCollection;
import org.joda.time.Instant;

/**
 * Turns a MISMATCH verdict with both payloads into a {@link DeltaRecord} whose differences are the
 * field-by-field {@link JsonDiff} of the payloads after removing the ignored fields
 * (docs/design.md#deltarecord), under the comparison rules if any
 * (docs/design.md#comparison-rules).
 *
 * <p>Tolerance cannot be hashed, so it is decided here, after the one fetch of each payload: a
 * MISMATCH whose diff under the rules is empty because numbers were within tolerance becomes a
 * MATCH, counted as {@code match_within_tolerance}, and is written (like any MATCH) only with
 * {@link #withEmitMatches} or when it supersedes an earlier verdict. It keeps the verdictId that
 * pairing gave it (computed with status MISMATCH): pairing computes the {@code supersedes} of a
 * later version from its state alone, as that same id, so keeping it is what makes the chain of
 * verdicts of a key resolve.
 *
 * <p>The ignored fields must be those given to {@link ParseEvents}, or the differences will not
 * agree with the hashes that made the verdict; a MISMATCH whose diff comes out empty is counted as
 * {@code empty_diffs} (namespace {@code streamrecon}) to make such a misconfiguration visible.
 *
 * <p>A payload deleted from {@code raw_events} before the fetch (by another engine, or erased)
 * cannot be diffed: the verdict is written with its status and, instead of a diff, one difference
 * per deleted side at path {@code ""} of kind {@link DifferenceKind#SOURCE_PAYLOAD_DELETED} or
 * {@link DifferenceKind#TARGET_PAYLOAD_DELETED}, without values (docs/design.md#deltarecord).
 *
 * <p>A payload that does not parse fails the bundle with an {@link IllegalStateException} naming
 * the stored row, not the payload. It is not a dead letter: every stored payload was parsed by the
 * same {@link JsonSupport} before it was stored, so a failure here means corrupted storage or a
 * pointer to the wrong row, a defect to stop at rather than input to set aside; and a dead letter
 * describes one raw input with one side and origin, which a pair of stored rows is not.
 */
public final class Diff extends PTransform<PCollection<PayloadPair>, PCollection<DeltaRecord>> {
  private static final long serialVersionUID = 1L;

  /** Counter (namespace {@code streamrecon}) of MISMATCHes that are MATCHes within tolerance. */
  public static final String MATCH_WITHIN_TOLERANCE = "match_within_tolerance";

  /** Counter of fetched payload pairs diffed: one fetch of each side's payload per pair. */
  public static final String PAIRS_DIFFED = "pairs_diffed";

  private final List<String> ignoreFields;
  private final ComparisonRules rules;
  private final boolean emitMatches;
  private final String runId;

  private Diff(
      List<String> ignoreFields, ComparisonRules rules, boolean emitMatches, String runId) {
    this.ignoreFields = ignoreFields;
    this.rules = rules;
    this.emitMatches = emitMatches;
    this.runId = runId;
  }

  /** Nothing ignored, no rules; a run id must be set with {@link #withRunId}. */
  public static Diff create() {
    return new Diff(List.of(), ComparisonRules.none(), false, null);
  }

  /** The comparison rules; the same as for parsing, or diffs will not agree with the hashes. */
  public Diff withRules(ComparisonRules rules) {
    if (rules == null) {
      throw new IllegalArgumentException("rules must not be null; use ComparisonRules.none()");
    }
    return new Diff(ignoreFields, rules, emitMatches, runId);
  }

  /** Whether MATCHes within tolerance are written too (as {@code --emitMatches}). Default false. */
  public Diff withEmitMatches(boolean emitMatches) {
    return new Diff(ignoreFields, rules, emitMatches, runId);
  }

  /** JSON Pointers removed from both payloads before diffing; the same as for parsing. */
  public Diff withIgnoreFields(List<String> ignoreFields) {
    if (ignoreFields == null) {
      throw new IllegalArgumentException("ignoreFields must not be null; use an empty list");
    }
    for (String field : ignoreFields) {
      JsonSupport.pointer("ignoreFields", field);
    }
    return new Diff(List.copyOf(ignoreFields), rules, emitMatches, runId);
  }

  /** The run that detects the differences, written to every record. Required. */
  public Diff withRunId(String runId) {
    if (runId == null || runId.isBlank()) {
      throw new IllegalArgumentException("runId must be a non-blank string");
    }
    return new Diff(ignoreFields, rules, emitMatches, runId);
  }

  @Override
  public PCollection<DeltaRecord> expand(PCollection<PayloadPair> input) {
    if (runId == null) {
      throw new IllegalArgumentException("Diff: runId is required; call withRunId(..)");
    }
    return input
        .apply(
            "DiffPayloads",
            ParDo.of(new DiffFn(rules.withIgnoreFields(ignoreFields), emitMatches, runId)))
        .setCoder(ModelCoders.DeltaRecordCoder.of());
  }

  /** Parses both payloads (once each), diffs under the rules. */
  static final class DiffFn extends DoFn<PayloadPair, DeltaRecord> {
    private static final long serialVersionUID = 1L;

    private final ComparisonRules rules;
    private final boolean emitMatches;
    private final String runId;
    private final Counter emptyDiffs = Metrics.counter(MetricNames.NAMESPACE, "empty_diffs");
    private final Counter withinTolerance =
        Metrics.counter(MetricNames.NAMESPACE, MATCH_WITHIN_TOLERANCE);
    private final Counter pairsDiffed = Metrics.counter(MetricNames.NAMESPACE, PAIRS_DIFFED);

    DiffFn(ComparisonRules rules, boolean emitMatches, String runId) {
      this.rules = rules;
      this.emitMatches = emitMatches;
      this.runId = runId;
    }

    @ProcessElement
    public void processElement(@Element PayloadPair pair, OutputReceiver<DeltaRecord> out) {
      if (pair.payloadDeleted()) {
        // Nothing to diff, but the verdict is a fact: it is written, saying which side is gone.
        out.output(
            DeltaRecord.of(
                pair.verdict(),
                pair.verdict().status(),
                deletedDifferences(pair),
                Instant.now(),
                runId,
                rules.id()));
        return;
      }
      JsonNode source = parse(pair.sourcePayload(), pair.verdict().source(), "source", pair);
      JsonNode target = parse(pair.targetPayload(), pair.verdict().target(), "target", pair);
      pairsDiffed.inc();
      JsonDiff.Result result = JsonDiff.diff(source, target, rules);
      List<Difference> differences = result.differences();
      Status status = pair.verdict().status();
      if (differences.isEmpty() && result.withinTolerance() > 0) {
        withinTolerance.inc();
        if (!emitMatches && pair.verdict().supersedes() == null) {
          return;
        }
        status = Status.MATCH;
      } else if (differences.isEmpty()) {
        emptyDiffs.inc();
      }
      out.output(
          DeltaRecord.of(pair.verdict(), status, differences, Instant.now(), runId, rules.id()));
    }

    /** One difference at the document's root per deleted side, source first. */
    static List<Difference> deletedDifferences(PayloadPair pair) {
      List<Difference> differences = new ArrayList<>(2);
      if (pair.sourcePayload() == null) {
        differences.add(new Difference("", DifferenceKind.SOURCE_PAYLOAD_DELETED, null, null));
      }
      if (pair.targetPayload() == null) {
        differences.add(new Difference("", DifferenceKind.TARGET_PAYLOAD_DELETED, null, null));
      }
      return differences;
    }

    private static JsonNode parse(byte[] payload, EventRef ref, String side, PayloadPair pair) {
      try {
        return JsonSupport.parse(payload);
      } catch (InvalidEventException e) {
        throw new IllegalStateException(
            "stored "
                + side
                + " payload of verdict "
                + pair.verdict().verdictId()
                + (ref == null ? "" : " at " + ref.pointer().describe())
                + " does not parse: "
                + e.getMessage());
      }
    }
  }
}
