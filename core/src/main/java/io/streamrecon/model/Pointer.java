package io.streamrecon.model;

import java.util.Objects;

/**
 * Where a raw event's payload is stored (docs/design.md#tables-and-pointers): the {@code
 * raw_events} table version that added the data file, the data file path relative to the table
 * root, the row index in that file, and the fallback key (side, natural id, hash) used when the
 * file has been compacted away.
 */
public record Pointer(
    long tableVersion, String dataFile, long rowIndex, Side side, String naturalId, String sha256) {
  public Pointer {
    Objects.requireNonNull(dataFile, "dataFile");
    Objects.requireNonNull(side, "side");
    Objects.requireNonNull(naturalId, "naturalId");
    Objects.requireNonNull(sha256, "sha256");
  }

  /** {@code v<version>:<file>#<row>}, for logs and the {@code explain} command. */
  public String describe() {
    return "v" + tableVersion + ":" + dataFile + "#" + rowIndex;
  }
}
