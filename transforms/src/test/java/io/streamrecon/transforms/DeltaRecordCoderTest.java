package io.streamrecon.transforms;

import io.streamrecon.model.DeltaRecord;
import io.streamrecon.model.Difference;
import io.streamrecon.model.DifferenceKind;
import io.streamrecon.model.Pointer;
import io.streamrecon.model.Side;
import io.streamrecon.model.Status;
import java.util.List;
import org.apache.beam.sdk.testing.CoderProperties;
import org.joda.time.Instant;
import org.junit.Test;

/** The DeltaRecord coder keeps {@code rulesId}, null or not. */
public class DeltaRecordCoderTest {
  private static DeltaRecord record(String rulesId) {
    Pointer p = new Pointer(2, "f.parquet", 7, Side.SOURCE, "k", "a".repeat(64));
    return new DeltaRecord(
        "c".repeat(64),
        null,
        "k",
        Status.MISMATCH,
        List.of(new Difference("/a", DifferenceKind.CHANGED, "1", "2")),
        "a".repeat(64),
        "b".repeat(64),
        new Instant(1),
        new Instant(2),
        p,
        null,
        new Instant(3),
        "run",
        rulesId);
  }

  @Test
  public void roundTripsWithAndWithoutRulesId() throws Exception {
    CoderProperties.coderDecodeEncodeEqual(ModelCoders.DeltaRecordCoder.of(), record(null));
    CoderProperties.coderDecodeEncodeEqual(
        ModelCoders.DeltaRecordCoder.of(), record("d".repeat(64)));
  }
}
