package io.streamrecon.deltalake;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.lessThan;
import static org.junit.Assert.assertEquals;

import io.streamrecon.model.Event;
import io.streamrecon.model.EventRef;
import io.streamrecon.model.Side;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class DeltaLakeLookupTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  /** The pruned lookup finds the same rows, at the same row indexes, as a full read. */
  @Test
  public void findsTheSameRowsAsAFullReadWithTheirRowIndexes() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    List<EventRef> refs = new ArrayList<>();
    for (int c = 0; c < 3; c++) {
      // Thousands of rows per file: several pages, so page skipping must keep row indexes right.
      List<Event> batch = new ArrayList<>(TestEvents.events(Side.SOURCE, "f" + c, 6000, TestEvents.T0));
      batch.addAll(TestEvents.events(Side.TARGET, "f" + c, 10, TestEvents.T0));
      refs.addAll(RawEventsFixture.commit(warehouse, "app", c, batch));
    }
    for (EventRef r : List.of(refs.get(0), refs.get(4321), refs.get(12_345), refs.get(refs.size() - 1))) {
      DeltaLakeLookup.Cost[] cost = new DeltaLakeLookup.Cost[1];
      List<Map<String, Object>> found = DeltaLakeLookup.findRawEvents(warehouse, r.naturalId(), cost);
      assertEquals(DeltaLakeTables.findRawEvents(warehouse, r.naturalId()), found);
      Map<String, Object> same =
          found.stream().filter(row -> row.get("side").equals(r.side().name())).findFirst().orElseThrow();
      assertEquals(r.pointer().dataFile(), same.get(DeltaLakeTables.DATA_FILE));
      assertEquals(r.pointer().rowIndex(), same.get(DeltaLakeTables.ROW_INDEX));
      assertThat(cost[0].filesOpened(), lessThan(cost[0].filesInSnapshot()));
    }
    assertEquals(List.of(), DeltaLakeLookup.findRawEvents(warehouse, "nope"));
  }
}
