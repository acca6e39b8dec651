package io.streamrecon.transforms.pairing;

import io.streamrecon.model.EventRef;
import io.streamrecon.model.Side;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Function;

/**
 * The order in which a bounded pairing applies events of one natural id that share an event time
 * (docs/design.md#pairing), so that the verdicts and counts do not depend on the order a runner
 * hands such events over.
 *
 * <p>Ids are taken in natural-id order. Within an id, when its open entry keeps an event of one
 * side only, that side's events go first: a new version of the kept side replaces it before the
 * other side is compared, so a pair whose both sides moved to one version at one instant gives one
 * verdict against the new version rather than a verdict against the old one that another then
 * supersedes. Otherwise source events go first. Ties within a side are broken by hash and then by
 * pointer, which makes the order total.
 */
final class SameTimeOrder {
  private static final Comparator<EventRef> WITHIN_SIDE =
      Comparator.comparing(EventRef::sha256)
          .thenComparing(e -> e.pointer().dataFile())
          .thenComparingLong(e -> e.pointer().rowIndex())
          .thenComparingLong(e -> e.pointer().tableVersion());

  private SameTimeOrder() {}

  /**
   * {@code events} (one event time, any ids) in the order to apply them, given each id's open entry
   * before any of them ({@code null} for none).
   */
  static List<EventRef> sort(List<EventRef> events, Function<String, PairingEntry> openEntry) {
    List<EventRef> sorted = new ArrayList<>(events);
    sorted.sort(Comparator.comparing(EventRef::naturalId));
    List<EventRef> ordered = new ArrayList<>(sorted.size());
    int from = 0;
    while (from < sorted.size()) {
      String naturalId = sorted.get(from).naturalId();
      int to = from;
      while (to < sorted.size() && sorted.get(to).naturalId().equals(naturalId)) {
        to++;
      }
      List<EventRef> ofId = new ArrayList<>(sorted.subList(from, to));
      if (ofId.size() > 1) {
        Side first = firstSide(openEntry.apply(naturalId));
        ofId.sort(
            Comparator.comparing((EventRef e) -> e.side() == first ? 0 : 1)
                .thenComparing(WITHIN_SIDE));
      }
      ordered.addAll(ofId);
      from = to;
    }
    return ordered;
  }

  private static Side firstSide(PairingEntry entry) {
    if (entry != null && entry.keptCount() == 1) {
      return entry.source() != null ? Side.SOURCE : Side.TARGET;
    }
    return Side.SOURCE;
  }
}
