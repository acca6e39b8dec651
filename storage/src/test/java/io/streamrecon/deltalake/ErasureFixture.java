package io.streamrecon.deltalake;

import io.streamrecon.model.DeadLetter;
import io.streamrecon.model.DeltaRecord;
import io.streamrecon.model.Difference;
import io.streamrecon.model.DifferenceKind;
import io.streamrecon.model.Event;
import io.streamrecon.model.EventRef;
import io.streamrecon.model.LateEvent;
import io.streamrecon.model.Origin;
import io.streamrecon.model.Side;
import io.streamrecon.model.Status;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;

/**
 * A warehouse with all four tables, for erasure tests: {@code ids} natural ids {@code s-00000}...
 * with a source and a target event each, written over {@code commits} commits (so many files per
 * partition), a MISMATCH with difference values per id, a late event and a dead letter (bad event
 * time, so its id can be read) for every tenth id, and a dead letter that is not JSON.
 */
final class ErasureFixture {
  private ErasureFixture() {}

  static final Configuration CONF = new Configuration();

  static String id(int i) {
    return String.format("s-%05d", i);
  }

  static void write(String warehouse, int ids, int commits) throws Exception {
    int perCommit = ids / commits;
    List<EventRef> refs = new ArrayList<>();
    for (int c = 0; c < commits; c++) {
      List<Event> batch = new ArrayList<>();
      for (int i = c * perCommit; i < (c + 1) * perCommit; i++) {
        for (Side side : Side.values()) {
          batch.add(
              TestEvents.event(
                  side,
                  id(i),
                  TestEvents.T0.plus(i * 1000L),
                  "{\"id\":\"" + id(i) + "\",\"secret\":\"" + side + "-secret-" + i + "\"}"));
        }
      }
      refs.addAll(RawEventsFixture.commit(warehouse, "app", c, batch));
    }
    List<DeltaRecord> deltas = new ArrayList<>();
    List<LateEvent> late = new ArrayList<>();
    List<DeadLetter> dead = new ArrayList<>();
    for (int i = 0; i < commits * perCommit; i++) {
      EventRef source = find(refs, Side.SOURCE, id(i));
      EventRef target = find(refs, Side.TARGET, id(i));
      deltas.add(
          new DeltaRecord(
              String.format("%064x", i),
              null,
              id(i),
              Status.MISMATCH,
              List.of(
                  new Difference(
                      "/secret",
                      DifferenceKind.CHANGED,
                      "\"SOURCE-secret-" + i + "\"",
                      "\"TARGET-secret-" + i + "\"")),
              source.sha256(),
              target.sha256(),
              source.eventTime(),
              target.eventTime(),
              source.pointer(),
              target.pointer(),
              TestEvents.T0.plus(3_600_000),
              "run-1",
              null));
      if (i % 10 == 0) {
        late.add(new LateEvent(source, TestEvents.T0.plus(7_200_000)));
        dead.add(
            new DeadLetter(
                Side.TARGET,
                ("{\"id\":\""
                        + id(i)
                        + "\",\"eventTime\":\"yesterday\",\"secret\":\"dl-"
                        + i
                        + "\"}")
                    .getBytes(StandardCharsets.UTF_8),
                "eventTime is not a time",
                "ParseEvents",
                Origin.kafka("topic-TARGET", 1, 1000 + i),
                TestEvents.T0));
      }
    }
    dead.add(
        new DeadLetter(
            Side.SOURCE,
            ("{\"id\":\"" + id(0) + "\", broken").getBytes(StandardCharsets.UTF_8),
            "not JSON",
            "ParseEvents",
            Origin.kafka("topic-SOURCE", 1, 5000),
            TestEvents.T0));
    commit(warehouse, TableLayouts.DELTAS, deltas);
    commit(warehouse, TableLayouts.LATE_EVENTS, late);
    commit(warehouse, TableLayouts.DEAD_LETTERS, dead);
  }

  private static EventRef find(List<EventRef> refs, Side side, String id) {
    return refs.stream()
        .filter(r -> r.side() == side && r.naturalId().equals(id))
        .findFirst()
        .orElseThrow();
  }

  private static <T> void commit(String warehouse, TableLayout<T> layout, List<T> rows)
      throws Exception {
    List<DataFile> files;
    try (DataFileWriter<T> w =
        new DataFileWriter<>(
            CONF, DeltaLakeCommitter.tablePath(warehouse, layout.name), layout, "run-1")) {
      for (T row : rows) {
        w.write(row, TestEvents.T0);
      }
      files = w.finish();
    }
    new DeltaLakeCommitter(CONF, warehouse, layout).commit("app", 0, files);
  }
}
