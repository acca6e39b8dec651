package io.streamrecon.transforms.deltalake;

import io.streamrecon.deltalake.DeltaLakeSnapshot.DeletionVector;
import io.streamrecon.model.Side;
import io.streamrecon.transforms.deltalake.ReadRawEvents.RawEventsFile;
import org.apache.beam.sdk.testing.CoderProperties;
import org.junit.Test;

/** A listed raw_events file keeps its deletion vector on its way to the worker that reads it. */
public class RawEventsFileCoderTest {
  private static final String PATH = "side=SOURCE/event_date=2024-03-01/part-0.snappy.parquet";

  @Test
  public void roundTripsWithAndWithoutADeletionVector() throws Exception {
    RawEventsFile.Coder coder = RawEventsFile.Coder.INSTANCE;
    CoderProperties.coderDecodeEncodeEqual(coder, new RawEventsFile(PATH, 7, Side.SOURCE, null));
    CoderProperties.coderDecodeEncodeEqual(
        coder,
        new RawEventsFile(
            PATH, 7, Side.TARGET, new DeletionVector("u", "ab^-aqEH.-t@S}K{vb[*k^", 1, 34, 2)));
    CoderProperties.coderDecodeEncodeEqual(
        coder,
        new RawEventsFile(
            PATH,
            7,
            Side.SOURCE,
            new DeletionVector("i", "wi5b=000010000siXQKl0rr9", null, 40, 3)));
  }
}
