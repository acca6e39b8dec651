package io.streamrecon.pipeline.run;

import static org.junit.Assert.assertEquals;

import io.streamrecon.model.Status;
import org.junit.Test;

public class VerdictTransitionsTest {
  @Test
  public void anUnchangedVerdictIsLabelledUnchanged() {
    assertEquals(Status.MATCH.name() + " unchanged", VerdictTransitions.label("MATCH", "MATCH"));
  }
}
