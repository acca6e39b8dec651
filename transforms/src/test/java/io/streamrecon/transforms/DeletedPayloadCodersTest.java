package io.streamrecon.transforms;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;

import io.streamrecon.model.DeltaRecord;
import io.streamrecon.model.Difference;
import io.streamrecon.model.DifferenceKind;
import io.streamrecon.model.EventRef;
import io.streamrecon.model.ModelBytes;
import io.streamrecon.model.PayloadPair;
import io.streamrecon.model.Pointer;
import io.streamrecon.model.Side;
import io.streamrecon.model.Status;
import io.streamrecon.model.StoredPayload;
import io.streamrecon.model.Verdict;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.beam.sdk.testing.CoderProperties;
import org.apache.beam.sdk.util.CoderUtils;
import org.joda.time.Instant;
import org.junit.Test;

/**
 * Deleted payloads pass through the payload coders as {@code null}, and everything encoded before
 * they existed decodes as it did: the coders' form of a stored payload is unchanged.
 */
public class DeletedPayloadCodersTest {
  private static final byte[] PAYLOAD = "{\"id\":\"k\"}".getBytes(StandardCharsets.UTF_8);

  private static Pointer pointer(Side side) {
    return new Pointer(2, "f.parquet", 7, side, "k", (side == Side.SOURCE ? "a" : "b").repeat(64));
  }

  private static Verdict verdict() {
    Pointer s = pointer(Side.SOURCE);
    Pointer t = pointer(Side.TARGET);
    return Verdict.of(
        "k",
        Status.MISMATCH,
        new EventRef(Side.SOURCE, "k", new Instant(1), s.sha256(), s),
        new EventRef(Side.TARGET, "k", new Instant(2), t.sha256(), t),
        null);
  }

  @Test
  public void deletedPayloadsRoundTrip() throws Exception {
    CoderProperties.coderDecodeEncodeEqual(
        ModelCoders.PayloadPairCoder.of(), new PayloadPair(verdict(), null, PAYLOAD));
    CoderProperties.coderDecodeEncodeEqual(
        ModelCoders.PayloadPairCoder.of(), new PayloadPair(verdict(), PAYLOAD, null));
    CoderProperties.coderDecodeEncodeEqual(
        ModelCoders.StoredPayloadCoder.of(), new StoredPayload(pointer(Side.SOURCE), null));
    CoderProperties.coderDecodeEncodeEqual(
        ModelCoders.StoredPayloadCoder.of(), new StoredPayload(pointer(Side.SOURCE), PAYLOAD));
  }

  /** The bytes of a pair with both payloads are those the coder wrote before deletions. */
  @Test
  public void aPairWithBothPayloadsIsEncodedAsBefore() throws Exception {
    Verdict v = verdict();
    ByteArrayOutputStream before = new ByteArrayOutputStream();
    ModelCoders.VerdictCoder.of().encode(v, before);
    ModelBytes.writeBytes(PAYLOAD, before);
    ModelBytes.writeBytes("[1]".getBytes(StandardCharsets.UTF_8), before);
    PayloadPair pair = new PayloadPair(v, PAYLOAD, "[1]".getBytes(StandardCharsets.UTF_8));
    ModelCoders.PayloadPairCoder coder = ModelCoders.PayloadPairCoder.of();
    assertArrayEquals(before.toByteArray(), CoderUtils.encodeToByteArray(coder, pair));
    assertEquals(pair, CoderUtils.decodeFromByteArray(coder, before.toByteArray()));
  }

  /** The kinds that say a payload was deleted are appended: the three before keep their codes. */
  @Test
  public void payloadDeletedKindsRoundTripAndTheOldKindsKeepTheirOrdinals() throws Exception {
    assertEquals(0, DifferenceKind.CHANGED.ordinal());
    assertEquals(1, DifferenceKind.ONLY_IN_SOURCE.ordinal());
    assertEquals(2, DifferenceKind.ONLY_IN_TARGET.ordinal());
    Pointer p = pointer(Side.SOURCE);
    DeltaRecord record =
        new DeltaRecord(
            "c".repeat(64),
            null,
            "k",
            Status.MISMATCH,
            List.of(
                new Difference("", DifferenceKind.SOURCE_PAYLOAD_DELETED, null, null),
                new Difference("", DifferenceKind.TARGET_PAYLOAD_DELETED, null, null)),
            p.sha256(),
            "b".repeat(64),
            new Instant(1),
            new Instant(2),
            p,
            pointer(Side.TARGET),
            new Instant(3),
            "run",
            null);
    CoderProperties.coderDecodeEncodeEqual(ModelCoders.DeltaRecordCoder.of(), record);
  }
}
