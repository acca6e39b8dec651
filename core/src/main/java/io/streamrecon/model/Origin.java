package io.streamrecon.model;

import java.util.Objects;

/**
 * Where an input record came from: a Kafka topic partition and offset, or a file and its line
 * number (1-based; {@code partition} is {@link #FILE_PARTITION} then).
 */
public record Origin(String stream, int partition, long offset) {
  /** The partition value used for file origins. */
  public static final int FILE_PARTITION = -1;

  public Origin {
    Objects.requireNonNull(stream, "stream");
  }

  /** A line of a JSON Lines file. */
  public static Origin fileLine(String file, long lineNumber) {
    return new Origin(file, FILE_PARTITION, lineNumber);
  }

  /** A Kafka record. */
  public static Origin kafka(String topic, int partition, long offset) {
    return new Origin(topic, partition, offset);
  }

  public boolean isFile() {
    return partition == FILE_PARTITION;
  }

  /** Human-readable form: {@code file:line} or {@code topic/partition@offset}. */
  public String describe() {
    return isFile() ? stream + ":" + offset : stream + "/" + partition + "@" + offset;
  }
}
