package io.streamrecon.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Path;

/**
 * What a correct reconciler must report for a generated data set, written by {@link Generator} next
 * to the files as {@code expected.json}.
 *
 * <p>Verdict counts are <em>final</em> verdicts: one per record, after a new version has superseded
 * an earlier verdict, which makes them independent of arrival order. {@code batch} is what a batch
 * run reports (nothing is late, so a late record's two events match); {@code streaming} is what a
 * watermark-driven run reports (the late record's two events are late and make no verdict).
 *
 * @param records business records generated
 * @param distinctIds distinct natural ids
 * @param sourceEvents lines written for the source side
 * @param targetEvents lines written for the target side
 * @param payloadBytes bytes of all lines of both sides (without newlines)
 * @param files JSON Lines files per side
 * @param duplicates events delivered a second time (same bytes)
 * @param earlierVersions events later replaced by a newer version of the same side
 * @param batch final verdict counts of a batch run
 * @param streaming final verdict counts of a streaming run with the config's watermark delay
 * @param config the generator config
 */
public record Expected(
    long records,
    long distinctIds,
    long sourceEvents,
    long targetEvents,
    long payloadBytes,
    int files,
    long duplicates,
    long earlierVersions,
    VerdictCounts batch,
    VerdictCounts streaming,
    GeneratorConfig config) {

  static final ObjectMapper MAPPER =
      new ObjectMapper()
          .findAndRegisterModules()
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
          .enable(SerializationFeature.INDENT_OUTPUT);

  /** Events of both sides. */
  public long events() {
    return sourceEvents + targetEvents;
  }

  /** Writes this as JSON. */
  public void write(Path file) throws IOException {
    MAPPER.writeValue(file.toFile(), this);
  }

  /** Reads what {@link #write} wrote. */
  public static Expected read(Path file) throws IOException {
    return MAPPER.readValue(file.toFile(), Expected.class);
  }
}
