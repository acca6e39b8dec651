package io.streamrecon.transforms.pairing;

import static io.streamrecon.transforms.pairing.PairFixtures.T0;
import static io.streamrecon.transforms.pairing.PairFixtures.TIMEOUT;
import static io.streamrecon.transforms.pairing.PairFixtures.addAll;
import static io.streamrecon.transforms.pairing.PairFixtures.at;
import static io.streamrecon.transforms.pairing.PairFixtures.counter;
import static io.streamrecon.transforms.pairing.PairFixtures.event;
import static io.streamrecon.transforms.pairing.PairFixtures.hash;
import static io.streamrecon.transforms.pairing.PairFixtures.min;
import static io.streamrecon.transforms.pairing.PairFixtures.sec;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.streamrecon.model.EventRef;
import io.streamrecon.model.Side;
import io.streamrecon.model.Status;
import io.streamrecon.model.Verdict;
import io.streamrecon.transforms.ModelCoders.EventRefCoder;
import io.streamrecon.transforms.ModelCoders.VerdictCoder;
import io.streamrecon.transforms.pairing.PairFixtures.Key;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.beam.runners.direct.DirectOptions;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.windowing.AfterWatermark;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.TimestampedValue;
import org.apache.beam.sdk.values.TypeDescriptor;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.Rule;
import org.junit.Test;

/**
 * A 200-key scenario with every verdict kind: arrival-order independence (docs/design.md#pairing),
 * batch versus streaming, and the counters adding up (docs/design.md#nothing-lost).
 */
public class PairEventsScenarioTest {
  private static final int KEYS = 200;
  private static final int PERMUTATIONS = 20;

  @Rule public final transient TestPipeline p = TestPipeline.create();

  /** What happens to one natural id. */
  enum Kind {
    MATCH,
    MISMATCH,
    ONLY_SOURCE,
    /** Only the target, redelivered once. */
    ONLY_TARGET,
    /** Both sides, further apart than the timeout: two MISSINGs. */
    FAR_APART,
    /** Redeliveries on both sides, one with another event time: still one MATCH. */
    DUPLICATES,
    /** Two source versions, the target agrees with the newer: finally a MATCH. */
    SOURCE_VERSIONS,
    /** Two target versions, the source agrees with the newer: finally a MATCH. */
    TARGET_VERSIONS;

    /** Kinds with at most one version per side: the whole verdict set is order-independent. */
    boolean singleVersion() {
      return this != SOURCE_VERSIONS && this != TARGET_VERSIONS;
    }
  }

  static Kind kindOf(int key) {
    return Kind.values()[key % Kind.values().length];
  }

  static String id(String prefix, int key) {
    return prefix + "k" + key;
  }

  static List<EventRef> events(String prefix, int key) {
    String id = id(prefix, key);
    Instant base = T0.plus(sec(37L * key));
    String h1 = hash(key + "/1");
    String h2 = hash(key + "/2");
    return switch (kindOf(key)) {
      case MATCH -> List.of(s(id, base, h1), t(id, base.plus(sec(30)), h1));
      case MISMATCH -> List.of(s(id, base, h1), t(id, base.plus(sec(45)), h2));
      case ONLY_SOURCE -> List.of(s(id, base, h1));
      case ONLY_TARGET -> List.of(t(id, base, h1), t(id, base, h1));
      case FAR_APART -> List.of(s(id, base, h1), t(id, base.plus(TIMEOUT).plus(min(1)), h1));
      case DUPLICATES ->
          List.of(
              s(id, base, h1),
              s(id, base, h1),
              s(id, base.plus(sec(5)), h1),
              t(id, base.plus(sec(20)), h1),
              t(id, base.plus(sec(20)), h1));
      case SOURCE_VERSIONS ->
          List.of(s(id, base, h1), s(id, base.plus(min(1)), h2), t(id, base.plus(min(2)), h2));
      case TARGET_VERSIONS ->
          List.of(t(id, base, h1), t(id, base.plus(min(1)), h2), s(id, base.plus(min(2)), h2));
    };
  }

  private static EventRef s(String id, Instant time, String hash) {
    return event(Side.SOURCE, id, time, hash);
  }

  private static EventRef t(String id, Instant time, String hash) {
    return event(Side.TARGET, id, time, hash);
  }

  /**
   * The expected verdicts of a key: all of them for single-version kinds, the final ones (those no
   * other verdict supersedes) for the others.
   */
  static Set<Key> expected(String prefix, int key) {
    String id = id(prefix, key);
    String h1 = hash(key + "/1");
    String h2 = hash(key + "/2");
    return switch (kindOf(key)) {
      case MATCH, DUPLICATES -> Set.of(new Key(id, Status.MATCH, h1, h1));
      case MISMATCH -> Set.of(new Key(id, Status.MISMATCH, h1, h2));
      case ONLY_SOURCE -> Set.of(new Key(id, Status.MISSING_IN_TARGET, h1, null));
      case ONLY_TARGET -> Set.of(new Key(id, Status.MISSING_IN_SOURCE, null, h1));
      case FAR_APART ->
          Set.of(
              new Key(id, Status.MISSING_IN_TARGET, h1, null),
              new Key(id, Status.MISSING_IN_SOURCE, null, h1));
      case SOURCE_VERSIONS, TARGET_VERSIONS -> Set.of(new Key(id, Status.MATCH, h2, h2));
    };
  }

  static List<EventRef> scenario(String prefix) {
    List<EventRef> all = new ArrayList<>();
    for (int key = 0; key < KEYS; key++) {
      all.addAll(events(prefix, key));
    }
    return all;
  }

  /**
   * What is wrong with the verdicts of one key, compared with {@link #expected}; empty if nothing.
   * For multi-version kinds the intermediate verdicts may differ by arrival order, but they must be
   * superseded by the final one, and every {@code supersedes} must name an emitted verdict.
   */
  static List<String> problems(String id, Iterable<Verdict> verdicts) {
    String prefix = id.substring(0, id.lastIndexOf('k'));
    int key = Integer.parseInt(id.substring(id.lastIndexOf('k') + 1));
    Kind kind = kindOf(key);
    List<Verdict> mine = new ArrayList<>();
    verdicts.forEach(mine::add);
    Set<String> ids = new HashSet<>();
    Set<String> superseded = new HashSet<>();
    for (Verdict v : mine) {
      ids.add(v.verdictId());
      if (v.supersedes() != null) {
        superseded.add(v.supersedes());
      }
    }
    Set<Key> actual = new HashSet<>();
    for (Verdict v : mine) {
      if (kind.singleVersion() || !superseded.contains(v.verdictId())) {
        actual.add(Key.of(v));
      }
    }
    List<String> problems = new ArrayList<>();
    if (!ids.containsAll(superseded)) {
      problems.add(id + " supersedes an unknown verdict: " + mine);
    }
    if (!actual.equals(expected(prefix, key))) {
      problems.add(kind + " " + id + ": expected " + expected(prefix, key) + ", got " + mine);
    }
    if (kind.singleVersion() && (mine.size() != actual.size() || !superseded.isEmpty())) {
      problems.add(kind + " " + id + ": repeated or superseding verdicts " + mine);
    }
    return problems;
  }

  /**
   * {@code "<prefix> ok"} if every key of {@code prefix} has the expected verdicts, else why not.
   */
  static String check(String prefix, Iterable<Verdict> verdicts) {
    Map<String, List<Verdict>> byId = new HashMap<>();
    for (Verdict v : verdicts) {
      byId.computeIfAbsent(v.naturalId(), k -> new ArrayList<>()).add(v);
    }
    List<String> problems = new ArrayList<>();
    for (int key = 0; key < KEYS; key++) {
      problems.addAll(problems(id(prefix, key), byId.getOrDefault(id(prefix, key), List.of())));
      byId.remove(id(prefix, key));
    }
    if (!byId.isEmpty()) {
      problems.add("unexpected natural ids " + byId.keySet());
    }
    return prefix + (problems.isEmpty() ? " ok" : " " + problems);
  }

  /**
   * Asserts {@link #check} passes for every prefix. Grouped by prefix rather than with one {@code
   * PAssert.satisfies} over all verdicts or by natural id: the DirectRunner copies a key's growing
   * bag on every incoming bundle (quadratic with one key and one bundle per timer firing) and runs
   * every step after a GroupByKey once per key (slow with thousands of keys).
   */
  private static void assertScenario(PCollectionTuple out, List<String> prefixes) {
    PCollection<String> results =
        allVerdicts(out)
            .apply(
                "ByPrefix",
                MapElements.into(
                        TypeDescriptors.kvs(
                            TypeDescriptors.strings(), TypeDescriptor.of(Verdict.class)))
                    .via(
                        (Verdict v) ->
                            KV.of(v.naturalId().substring(0, v.naturalId().lastIndexOf('k')), v)))
            .setCoder(KvCoder.of(StringUtf8Coder.of(), VerdictCoder.of()))
            .apply(
                "OnePane",
                Window.<KV<String, Verdict>>configure()
                    .triggering(AfterWatermark.pastEndOfWindow())
                    .discardingFiredPanes()
                    .withAllowedLateness(Duration.ZERO))
            .apply("GroupByPrefix", GroupByKey.create())
            .apply(
                "Check",
                MapElements.into(TypeDescriptors.strings())
                    .via((KV<String, Iterable<Verdict>> kv) -> check(kv.getKey(), kv.getValue())));
    List<String> allOk = new ArrayList<>();
    prefixes.forEach(prefix -> allOk.add(prefix + " ok"));
    PAssert.that(results).containsInAnyOrder(allOk);
  }

  private static PCollection<Verdict> allVerdicts(PCollectionTuple out) {
    return PCollectionList.of(out.get(PairEvents.MISMATCHES))
        .and(out.get(PairEvents.VERDICTS))
        .apply("AllVerdicts", Flatten.pCollections())
        .setCoder(VerdictCoder.of());
  }

  /**
   * 20 random arrival orders (fixed seeds) of the same 200 keys, one key prefix per order, in one
   * pipeline: each prefix must give the expected verdicts.
   */
  @Test
  public void verdictsDoNotDependOnArrivalOrder() {
    List<String> prefixes = new ArrayList<>();
    List<EventRef> arrivals = new ArrayList<>();
    for (int perm = 0; perm < PERMUTATIONS; perm++) {
      String prefix = "p" + perm + "-";
      prefixes.add(prefix);
      List<EventRef> order = new ArrayList<>(scenario(prefix));
      Collections.shuffle(order, new Random(1000 + perm));
      arrivals.addAll(order);
    }
    // Several bundles, so that a key's events may also arrive in different bundles.
    TestStream.Builder<EventRef> stream = TestStream.create(EventRefCoder.of());
    for (int from = 0; from < arrivals.size(); from += 500) {
      stream = addAll(stream, arrivals.subList(from, Math.min(arrivals.size(), from + 500)));
    }
    // 10,000 events: skip the DirectRunner's per-element clone checks (the coders have their own
    // tests, and the smaller pipelines here keep the checks on).
    DirectOptions direct = p.getOptions().as(DirectOptions.class);
    direct.setEnforceImmutability(false);
    direct.setEnforceEncodability(false);
    PCollectionTuple out =
        p.apply(stream.advanceWatermarkToInfinity()).apply("PairEvents", PairEvents.create());
    assertScenario(out, prefixes);
    PAssert.that(out.get(PairEvents.LATE)).empty();

    PipelineResult result = p.run();
    result.waitUntilFinish();
    assertCountersAddUp(result, arrivals.size());
  }

  /** The same events as a bounded, batch input give the same verdicts. */
  @Test
  public void batchGivesTheSameVerdicts() {
    List<TimestampedValue<EventRef>> arrivals = new ArrayList<>();
    scenario("b-").forEach(e -> arrivals.add(at(e)));
    PCollectionTuple out =
        p.apply(Create.timestamped(arrivals).withCoder(EventRefCoder.of()))
            .apply("PairEvents", PairEvents.create());
    assertScenario(out, List.of("b-"));
    p.run().waitUntilFinish();
  }

  /**
   * The 200 keys in their listed order, the watermark then moved past every entry, and late events
   * after it: every event is counted exactly once, and no entry is left open.
   */
  @Test
  public void countersAddUpAndNoEntryIsLeftOpen() {
    List<EventRef> onTime = scenario("");
    List<EventRef> late = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      late.add(event(Side.SOURCE, "late" + i, T0.plus(sec(i)), hash("late" + i)));
    }
    Instant afterAll = T0.plus(sec(37L * KEYS)).plus(TIMEOUT).plus(TIMEOUT).plus(min(10));
    TestStream<EventRef> stream =
        addAll(
                addAll(TestStream.create(EventRefCoder.of()), onTime).advanceWatermarkTo(afterAll),
                late)
            .advanceWatermarkToInfinity();
    PCollectionTuple out = p.apply(stream).apply("PairEvents", PairEvents.create());
    assertScenario(out, List.of(""));

    PipelineResult result = p.run();
    result.waitUntilFinish();
    assertCountersAddUp(result, onTime.size() + late.size());
    int perKind = KEYS / Kind.values().length;
    assertEquals(10, counter(result, PairEvents.METRIC_LATE));
    // ONLY_TARGET redelivers once, DUPLICATES three times, whatever the order.
    assertEquals(4L * perKind, counter(result, PairEvents.METRIC_DUPLICATE));
    assertEquals(2L * perKind, counter(result, PairEvents.METRIC_MISSING_IN_TARGET));
    assertEquals(2L * perKind, counter(result, PairEvents.METRIC_MISSING_IN_SOURCE));
  }

  private static void assertCountersAddUp(PipelineResult result, int eventsIn) {
    long late = counter(result, PairEvents.METRIC_LATE);
    long duplicate = counter(result, PairEvents.METRIC_DUPLICATE);
    long superseded = counter(result, PairEvents.METRIC_SUPERSEDED);
    long inVerdicts = counter(result, PairEvents.METRIC_EVENTS_IN_VERDICTS);
    assertEquals(
        "late "
            + late
            + " + duplicate "
            + duplicate
            + " + superseded "
            + superseded
            + " + events_in_verdicts "
            + inVerdicts,
        eventsIn,
        late + duplicate + superseded + inVerdicts);
    long opened = counter(result, PairEvents.METRIC_ENTRIES_OPENED);
    assertTrue("entries opened " + opened, opened > 0);
    assertEquals(opened, counter(result, PairEvents.METRIC_ENTRIES_CLOSED));
    long verdicts =
        counter(result, PairEvents.METRIC_MATCH)
            + counter(result, PairEvents.METRIC_MISMATCH)
            + counter(result, PairEvents.METRIC_MISSING_IN_TARGET)
            + counter(result, PairEvents.METRIC_MISSING_IN_SOURCE);
    assertTrue("verdicts " + verdicts, verdicts > 0);
  }
}
