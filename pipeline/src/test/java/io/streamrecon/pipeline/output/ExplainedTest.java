package io.streamrecon.pipeline.output;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.not;
import static org.junit.Assert.assertEquals;

import io.streamrecon.model.DeltaRecord;
import io.streamrecon.model.Pointer;
import io.streamrecon.model.Side;
import io.streamrecon.model.Status;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import org.joda.time.Instant;
import org.junit.Test;

/** Which pointers of a natural id's verdicts {@code explain} reports as expired or deleted. */
public class ExplainedTest {
  private static Pointer pointer(Side side, String date, char hash) {
    return new Pointer(
        1,
        "side=" + side + "/event_date=" + date + "/part-00000.snappy.parquet",
        0,
        side,
        "k",
        String.valueOf(hash).repeat(64));
  }

  private static DeltaRecord record(Pointer source, Pointer target) {
    return new DeltaRecord(
        "c".repeat(64),
        null,
        "k",
        Status.MISMATCH,
        List.of(),
        source.sha256(),
        target.sha256(),
        new Instant(1),
        new Instant(2),
        source,
        target,
        new Instant(3),
        "run",
        null);
  }

  @Test
  public void aPointerIntoADateRetentionRemovedExpiresAnyOtherGonePointerWasDeleted() {
    Pointer expired = pointer(Side.SOURCE, "2024-03-01", 'a');
    Pointer deleted = pointer(Side.TARGET, "2024-03-05", 'b');
    Pointer stored = pointer(Side.SOURCE, "2024-03-05", 'c');
    List<DeltaRecord> deltas = List.of(record(expired, deleted), record(stored, deleted));
    List<Map<String, Object>> rows = List.of(Map.of("side", "SOURCE", "sha256", stored.sha256()));

    Map<Pointer, Explained.Gone> gone =
        Explained.gonePointers(deltas, rows, LocalDate.parse("2024-03-02"));

    assertEquals(Map.of(expired, Explained.Gone.EXPIRED, deleted, Explained.Gone.DELETED), gone);
    String line = Explained.goneLine(deleted, Explained.Gone.DELETED);
    assertThat(line, containsString(deleted.describe()));
    assertThat(line, containsString("deleted"));
    assertThat(line, not(containsString("expired")));
    assertEquals("one line", -1, line.indexOf('\n'));
    assertThat(
        Explained.goneLine(expired, Explained.Gone.EXPIRED),
        containsString("expired, no longer stored in raw_events (removed by retention)"));
  }

  @Test
  public void withNoDateStoredEveryGonePointerExpired() {
    Pointer source = pointer(Side.SOURCE, "2024-03-05", 'a');
    Pointer target = pointer(Side.TARGET, "2024-03-05", 'b');
    assertEquals(
        Map.of(source, Explained.Gone.EXPIRED, target, Explained.Gone.EXPIRED),
        Explained.gonePointers(List.of(record(source, target)), List.of(), null));
  }
}
