package io.streamrecon.transforms.pairing;

import static io.streamrecon.transforms.pairing.PairFixtures.T0;
import static io.streamrecon.transforms.pairing.PairFixtures.hash;
import static io.streamrecon.transforms.pairing.PairFixtures.min;
import static io.streamrecon.transforms.pairing.PairFixtures.src;
import static io.streamrecon.transforms.pairing.PairFixtures.tgt;
import static org.junit.Assert.assertEquals;

import io.streamrecon.model.EventRef;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.Test;

public class SameTimeOrderTest {
  private static final String OLD = hash("old");
  private static final String NEW = hash("new");

  private static PairingEntry keeping(EventRef event) {
    return PairingEntry.openedBy(event, T0.plus(min(10)));
  }

  @Test
  public void theKeptSideMovesFirstSoBothSidesMeetOnTheNewVersion() {
    EventRef newSource = src("k", min(5), NEW);
    EventRef target = tgt("k", min(5), NEW);
    PairingEntry sourceKept = keeping(src("k", min(0), OLD));
    assertEquals(
        List.of(newSource, target),
        SameTimeOrder.sort(List.of(target, newSource), id -> sourceKept));

    EventRef newTarget = tgt("k", min(5), NEW);
    EventRef source = src("k", min(5), NEW);
    PairingEntry targetKept = keeping(tgt("k", min(0), OLD));
    assertEquals(
        List.of(newTarget, source),
        SameTimeOrder.sort(List.of(source, newTarget), id -> targetKept));
  }

  @Test
  public void withoutAnEntryOrWithBothSidesKeptSourceGoesFirst() {
    EventRef source = src("k", min(5), NEW);
    EventRef target = tgt("k", min(5), OLD);
    assertEquals(List.of(source, target), SameTimeOrder.sort(List.of(target, source), id -> null));
    PairingEntry paired = keeping(src("k", min(0), OLD)).with(tgt("k", min(1), OLD));
    assertEquals(
        List.of(source, target), SameTimeOrder.sort(List.of(target, source), id -> paired));
  }

  @Test
  public void theOrderIsTheSameWhateverTheArrivalOrder() {
    List<EventRef> events = new ArrayList<>();
    for (String id : List.of("a", "b", "c")) {
      events.add(src(id, min(5), hash(id + "1")));
      events.add(src(id, min(5), hash(id + "2")));
      events.add(tgt(id, min(5), hash(id + "1")));
      events.add(tgt(id, min(5), hash(id + "3")));
    }
    Map<String, PairingEntry> entries = Map.of("b", keeping(tgt("b", min(0), OLD)));
    List<EventRef> expected = SameTimeOrder.sort(events, entries::get);
    Random random = new Random(7);
    for (int i = 0; i < 20; i++) {
      List<EventRef> shuffled = new ArrayList<>(events);
      Collections.shuffle(shuffled, random);
      assertEquals(expected, SameTimeOrder.sort(shuffled, entries::get));
    }
    assertEquals("ids in order", "a", expected.get(0).naturalId());
    assertEquals("b keeps a target: its targets first", "b", expected.get(4).naturalId());
    assertEquals(io.streamrecon.model.Side.TARGET, expected.get(4).side());
  }
}
