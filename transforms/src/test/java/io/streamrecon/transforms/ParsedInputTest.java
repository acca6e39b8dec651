package io.streamrecon.transforms;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import io.streamrecon.model.DeadLetter;
import io.streamrecon.model.Event;
import io.streamrecon.model.Origin;
import io.streamrecon.model.ParsedInput;
import io.streamrecon.model.Side;
import java.nio.charset.StandardCharsets;
import org.apache.beam.sdk.coders.CoderException;
import org.apache.beam.sdk.testing.CoderProperties;
import org.apache.beam.sdk.util.CoderUtils;
import org.joda.time.Instant;
import org.junit.Test;

/** A ParsedInput is one of two things, and its coder keeps which and all of it. */
public class ParsedInputTest {
  private static final Event EVENT =
      new Event(
          Side.TARGET,
          "ord-1",
          new Instant(1_700_000_000_000L),
          "a".repeat(64),
          "{\"id\":\"ord-1\"}".getBytes(StandardCharsets.UTF_8),
          Origin.fileLine("t.jsonl", 3));
  private static final DeadLetter DEAD_LETTER =
      new DeadLetter(
          Side.SOURCE,
          new byte[] {'{', (byte) 0xE9},
          "not valid UTF-8",
          "ParseEvents",
          Origin.fileLine("s.jsonl", 9),
          new Instant(5));

  @Test
  public void holdsExactlyOneOfEventAndDeadLetter() {
    assertEquals(
        "a ParsedInput holds exactly one of an event and a dead letter, got neither",
        assertThrows(IllegalArgumentException.class, () -> new ParsedInput(null, null))
            .getMessage());
    assertEquals(
        "a ParsedInput holds exactly one of an event and a dead letter, got both",
        assertThrows(IllegalArgumentException.class, () -> new ParsedInput(EVENT, DEAD_LETTER))
            .getMessage());
  }

  @Test
  public void coderRoundTripsBothKinds() throws Exception {
    CoderProperties.coderDecodeEncodeEqual(
        ModelCoders.ParsedInputCoder.of(), ParsedInput.of(EVENT));
    CoderProperties.coderDecodeEncodeEqual(
        ModelCoders.ParsedInputCoder.of(), ParsedInput.of(DEAD_LETTER));
    CoderProperties.coderDeterministic(
        ModelCoders.ParsedInputCoder.of(), ParsedInput.of(EVENT), ParsedInput.of(EVENT));
  }

  @Test
  public void coderRejectsAnUnknownTag() {
    CoderException e =
        assertThrows(
            CoderException.class,
            () ->
                CoderUtils.decodeFromByteArray(ModelCoders.ParsedInputCoder.of(), new byte[] {7}));
    assertEquals("not a ParsedInput: tag 7", e.getMessage());
  }
}
