package io.streamrecon.transforms;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import io.streamrecon.json.CanonicalJson;
import io.streamrecon.json.InvalidEventException;
import io.streamrecon.json.JsonDiff;
import io.streamrecon.json.JsonSupport;
import io.streamrecon.model.DeltaRecord;
import io.streamrecon.model.Difference;
import io.streamrecon.model.EventRef;
import io.streamrecon.model.ModelCoders;
import io.streamrecon.model.PayloadPair;
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
 * field-by-field {@link JsonDiff} of the payloads after removing the ignored fields (SPEC §5).
 *
 * <p>The ignored fields must be those given to {@link ParseEvents}, or the differences will not
 * agree with the hashes that made the verdict; a MISMATCH whose diff comes out empty is counted as
 * {@code empty_diffs} (namespace {@code streamrecon}) to make such a misconfiguration visible.
 *
 * <p>A payload that does not parse fails the bundle with an {@link IllegalStateException} naming
 * the stored row, not the payload. It is not a dead letter: every stored payload was parsed by the
 * same {@link JsonSupport} before it was stored, so a failure here means corrupted storage or a
 * pointer to the wrong row, a defect to stop at rather than input to set aside; and a dead letter
 * describes one raw input with one side and origin, which a pair of stored rows is not.
 */
public final class Diff extends PTransform<PCollection<PayloadPair>, PCollection<DeltaRecord>> {
  private static final long serialVersionUID = 1L;

  private final List<String> ignoreFields;
  private final String runId;

  private Diff(List<String> ignoreFields, String runId) {
    this.ignoreFields = ignoreFields;
    this.runId = runId;
  }

  /** Nothing ignored; a run id must be set with {@link #withRunId}. */
  public static Diff create() {
    return new Diff(List.of(), null);
  }

  /** JSON Pointers removed from both payloads before diffing; the same as for parsing. */
  public Diff withIgnoreFields(List<String> ignoreFields) {
    if (ignoreFields == null) {
      throw new IllegalArgumentException("ignoreFields must not be null; use an empty list");
    }
    for (String field : ignoreFields) {
      JsonSupport.pointer("ignoreFields", field);
    }
    return new Diff(List.copyOf(ignoreFields), runId);
  }

  /** The run that detects the differences, written to every record. Required. */
  public Diff withRunId(String runId) {
    if (runId == null || runId.isBlank()) {
      throw new IllegalArgumentException("runId must be a non-blank string");
    }
    return new Diff(ignoreFields, runId);
  }

  @Override
  public PCollection<DeltaRecord> expand(PCollection<PayloadPair> input) {
    if (runId == null) {
      throw new IllegalArgumentException("Diff: runId is required; call withRunId(..)");
    }
    return input
        .apply("DiffPayloads", ParDo.of(new DiffFn(ignoreFields, runId)))
        .setCoder(ModelCoders.DeltaRecordCoder.of());
  }

  /** Parses both payloads, removes ignored fields, diffs. */
  static final class DiffFn extends DoFn<PayloadPair, DeltaRecord> {
    private static final long serialVersionUID = 1L;

    private final List<String> ignoreFields;
    private final String runId;
    private final Counter emptyDiffs = Metrics.counter("streamrecon", "empty_diffs");
    private transient List<JsonPointer> ignorePointers;

    DiffFn(List<String> ignoreFields, String runId) {
      this.ignoreFields = ignoreFields;
      this.runId = runId;
    }

    @Setup
    public void setup() {
      List<JsonPointer> pointers = new ArrayList<>();
      for (String field : ignoreFields) {
        pointers.add(JsonSupport.pointer("ignoreFields", field));
      }
      ignorePointers = List.copyOf(pointers);
    }

    @ProcessElement
    public void processElement(@Element PayloadPair pair, OutputReceiver<DeltaRecord> out) {
      JsonNode source = parse(pair.sourcePayload(), pair.verdict().source(), "source", pair);
      JsonNode target = parse(pair.targetPayload(), pair.verdict().target(), "target", pair);
      List<Difference> differences =
          JsonDiff.diff(
              CanonicalJson.withoutFields(source, ignorePointers),
              CanonicalJson.withoutFields(target, ignorePointers));
      if (differences.isEmpty()) {
        emptyDiffs.inc();
      }
      out.output(DeltaRecord.of(pair.verdict(), differences, Instant.now(), runId));
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
