package io.streamrecon.deltalake;

import java.util.Objects;
import org.joda.time.Instant;

/**
 * What a row needs beyond its record: the run that writes it and the time it is written ({@code
 * ingest_time} of raw events).
 */
record RowContext(String runId, Instant writeTime) {
  RowContext {
    Objects.requireNonNull(runId, "runId");
    Objects.requireNonNull(writeTime, "writeTime");
  }
}
