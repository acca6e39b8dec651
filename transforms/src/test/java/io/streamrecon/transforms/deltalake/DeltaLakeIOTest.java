package io.streamrecon.transforms.deltalake;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.lessThan;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.streamrecon.deltalake.DeltaLakeCommit;
import io.streamrecon.deltalake.DeltaLakeTables;
import io.streamrecon.deltalake.RawEventsFixture;
import io.streamrecon.deltalake.TableLayouts;
import io.streamrecon.deltalake.TestEvents;
import io.streamrecon.deltalake.WarehouseTables;
import io.streamrecon.model.DeadLetter;
import io.streamrecon.model.DeltaRecord;
import io.streamrecon.model.Difference;
import io.streamrecon.model.DifferenceKind;
import io.streamrecon.model.Event;
import io.streamrecon.model.EventRef;
import io.streamrecon.model.LateEvent;
import io.streamrecon.model.Origin;
import io.streamrecon.model.ParsedInput;
import io.streamrecon.model.PayloadPair;
import io.streamrecon.model.Pointer;
import io.streamrecon.model.Side;
import io.streamrecon.model.Status;
import io.streamrecon.model.StoredPayload;
import io.streamrecon.model.Verdict;
import io.streamrecon.transforms.ModelCoders;
import io.streamrecon.transforms.ModelCoders.DeadLetterCoder;
import io.streamrecon.transforms.ModelCoders.DeltaRecordCoder;
import io.streamrecon.transforms.ModelCoders.EventCoder;
import io.streamrecon.transforms.ModelCoders.EventRefCoder;
import io.streamrecon.transforms.ModelCoders.LateEventCoder;
import io.streamrecon.transforms.ModelCoders.PointerCoder;
import io.streamrecon.transforms.ModelCoders.VerdictCoder;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.coders.ListCoder;
import org.apache.beam.sdk.metrics.MetricNameFilter;
import org.apache.beam.sdk.metrics.MetricQueryResults;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.MetricsFilter;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.Filter;
import org.apache.beam.sdk.transforms.FlatMapElements;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.TimestampedValue;
import org.apache.beam.sdk.values.TypeDescriptor;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class DeltaLakeIOTest {
  @Rule public final transient TestPipeline p = TestPipeline.create();
  @Rule public final transient TemporaryFolder tmp = new TemporaryFolder();

  private static List<TimestampedValue<Event>> timestamped(List<Event> events) {
    return events.stream().map(e -> TimestampedValue.of(e, e.eventTime())).toList();
  }

  /**
   * A counter's committed value. Not the attempted one: the DirectRunner reports a bundle's
   * attempted ("physical") metrics only after it has handed the bundle's result over ({@code
   * DirectTransformExecutor.run} commits them in its {@code finally}, after {@code finishBundle}
   * and {@code handleResult}), so for the last bundle of a pipeline they may arrive after {@code
   * waitUntilFinish()} returned. Counters incremented in {@code @FinishBundle} (all of the lookup
   * counters) then read 0. Committed metrics travel with the bundle's result and are complete when
   * the pipeline is.
   */
  static long counter(PipelineResult result, String name) {
    MetricQueryResults metrics =
        result
            .metrics()
            .queryMetrics(
                MetricsFilter.builder()
                    .addNameFilter(MetricNameFilter.named(DeltaLakeIO.NAMESPACE, name))
                    .build());
    long sum = 0;
    for (MetricResult<Long> c : metrics.getCounters()) {
      sum += c.getCommitted();
    }
    return sum;
  }

  /** Element and its timestamp, to check output timestamps with PAssert. */
  static final class WithTimestamp extends DoFn<EventRef, String> {
    @ProcessElement
    public void process(
        @Element EventRef ref, @Timestamp Instant timestamp, OutputReceiver<String> out) {
      out.output(ref.side() + "/" + ref.naturalId() + "@" + timestamp.getMillis());
    }
  }

  // ------------------------------------------------------------------ writeRawEvents

  @Test
  public void batchWriteEmitsPointersToCommittedRowsAtEventTime() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    List<Event> events = new ArrayList<>(TestEvents.events(Side.SOURCE, "s", 30, TestEvents.T0));
    // The target events cross midnight (UTC): two event_date partitions.
    Instant beforeMidnight = Instant.parse("2024-03-01T23:59:45.000Z");
    events.addAll(TestEvents.events(Side.TARGET, "t", 30, beforeMidnight));

    PCollection<EventRef> refs =
        p.apply(Create.timestamped(timestamped(events)).withCoder(EventCoder.of()))
            .apply(DeltaLakeIO.writeRawEvents().withWarehouse(warehouse).withRunId("run-1"));
    PAssert.that(refs.apply("Timestamps", ParDo.of(new WithTimestamp())))
        .containsInAnyOrder(
            events.stream()
                .map(e -> e.side() + "/" + e.naturalId() + "@" + e.eventTime().getMillis())
                .toList());
    PAssert.that(
            refs.apply(
                "Versions",
                MapElements.into(TypeDescriptors.longs()).via(r -> r.pointer().tableVersion())))
        .satisfies(
            versions -> {
              versions.forEach(v -> assertEquals("one commit in batch", 0L, (long) v));
              return null;
            });
    // Every pointer, emitted after its commit, leads to its own event's payload.
    PAssert.that(
            refs.apply(
                    "Pointers",
                    MapElements.into(TypeDescriptor.of(Pointer.class)).via(EventRef::pointer))
                .setCoder(PointerCoder.of())
                .apply(DeltaLakeIO.lookup().withWarehouse(warehouse))
                .apply(
                    "Describe",
                    MapElements.into(TypeDescriptors.strings()).via(DeltaLakeIOTest::describe)))
        .containsInAnyOrder(
            events.stream()
                .map(
                    e ->
                        "side="
                            + e.side()
                            + "/event_date="
                            + TableLayouts.utcDate(e.eventTime())
                            + " "
                            + e.naturalId()
                            + "="
                            + new String(e.payload(), StandardCharsets.UTF_8))
                .toList());
    p.run().waitUntilFinish();

    List<Map<String, Object>> rows =
        DeltaLakeTables.readRows(warehouse, WarehouseTables.RAW_EVENTS);
    assertEquals(60, rows.size());
    assertEquals(
        Set.of("SOURCE 2024-03-01", "TARGET 2024-03-01", "TARGET 2024-03-02"),
        rows.stream()
            .map(r -> r.get("side") + " " + r.get("event_date"))
            .collect(Collectors.toSet()));
    Map<String, Event> byId = events.stream().collect(Collectors.toMap(Event::naturalId, e -> e));
    for (Map<String, Object> row : rows) {
      Event e = byId.get((String) row.get("natural_id"));
      assertEquals(e.side().name(), row.get("side"));
      assertEquals(TableLayouts.utcDate(e.eventTime()), row.get("event_date"));
      assertEquals(e.eventTime(), row.get("event_time"));
      assertEquals(e.sha256(), row.get("sha256"));
      assertEquals(new String(e.payload(), StandardCharsets.UTF_8), row.get("payload"));
      assertEquals(e.origin().stream(), row.get("origin_stream"));
      assertEquals(0, row.get("origin_partition"));
      assertEquals(e.origin().offset(), row.get("origin_offset"));
      assertEquals("run-1", row.get("run_id"));
    }
  }

  /**
   * The writer of parsed inputs stores the events as {@code writeRawEvents()} does (pointers to
   * their rows, at event time) and passes every dead letter on unchanged, none of them stored.
   */
  @Test
  public void fromParsedInputsStoresTheEventsAndPassesTheDeadLettersOn() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    List<Event> events = TestEvents.events(Side.SOURCE, "s", 20, TestEvents.T0);
    List<DeadLetter> deadLetters = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      deadLetters.add(
          new DeadLetter(
              Side.TARGET,
              ("{bad " + i).getBytes(StandardCharsets.UTF_8),
              "truncated JSON",
              "ParseEvents",
              Origin.fileLine("t.jsonl", i + 1),
              TestEvents.T0));
    }
    List<TimestampedValue<ParsedInput>> outcomes = new ArrayList<>();
    for (Event e : events) {
      outcomes.add(TimestampedValue.of(ParsedInput.of(e), e.eventTime()));
    }
    for (DeadLetter d : deadLetters) {
      outcomes.add(TimestampedValue.of(ParsedInput.of(d), TestEvents.T0.plus(60_000)));
    }

    PCollectionTuple written =
        p.apply(Create.timestamped(outcomes).withCoder(ModelCoders.ParsedInputCoder.of()))
            .apply(
                DeltaLakeIO.writeRawEvents()
                    .withWarehouse(warehouse)
                    .withRunId("run-1")
                    .fromParsedInputs());
    PCollection<EventRef> refs = written.get(DeltaLakeIO.FromParsedInputs.EVENT_REFS);
    PAssert.that(refs.apply("Timestamps", ParDo.of(new WithTimestamp())))
        .containsInAnyOrder(
            events.stream()
                .map(e -> e.side() + "/" + e.naturalId() + "@" + e.eventTime().getMillis())
                .toList());
    PAssert.that(
            refs.apply(
                    "Pointers",
                    MapElements.into(TypeDescriptor.of(Pointer.class)).via(EventRef::pointer))
                .setCoder(PointerCoder.of())
                .apply(DeltaLakeIO.lookup().withWarehouse(warehouse))
                .apply(
                    "Payloads",
                    MapElements.into(TypeDescriptors.strings())
                        .via(
                            s ->
                                s.pointer().naturalId()
                                    + "="
                                    + new String(s.payload(), StandardCharsets.UTF_8))))
        .containsInAnyOrder(
            events.stream()
                .map(e -> e.naturalId() + "=" + new String(e.payload(), StandardCharsets.UTF_8))
                .toList());
    PAssert.that(written.get(DeltaLakeIO.FromParsedInputs.DEAD_LETTERS))
        .containsInAnyOrder(deadLetters);
    p.run().waitUntilFinish();

    List<Map<String, Object>> rows =
        DeltaLakeTables.readRows(warehouse, WarehouseTables.RAW_EVENTS);
    assertEquals(
        events.stream().map(Event::naturalId).collect(Collectors.toSet()),
        rows.stream().map(r -> (String) r.get("natural_id")).collect(Collectors.toSet()));
    assertEquals(events.size(), rows.size());
  }

  /**
   * A restarted job (same writer id) replays a pane with another composition: records stored by the
   * first attempt are not stored again, are counted, and their pointers lead to the stored row.
   */
  @Test
  public void aReplayedPaneOfTheSameWriterStoresEachRecordOnce() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    List<Event> events = TestEvents.events(Side.SOURCE, "r", 40, TestEvents.T0);

    org.apache.beam.sdk.Pipeline first = org.apache.beam.sdk.Pipeline.create();
    first
        .apply(
            "Events",
            Create.timestamped(timestamped(events.subList(0, 25))).withCoder(EventCoder.of()))
        .apply(
            DeltaLakeIO.writeRawEvents()
                .withWarehouse(warehouse)
                .withRunId("run-1")
                .withWriterId("job-7"));
    first.run().waitUntilFinish();
    assertEquals(25, DeltaLakeTables.readRows(warehouse, WarehouseTables.RAW_EVENTS).size());

    // The replay: another run id (a new process), the same writer id, records 10..39.
    PCollection<EventRef> refs =
        p.apply(
                "Events",
                Create.timestamped(timestamped(events.subList(10, 40))).withCoder(EventCoder.of()))
            .apply(
                DeltaLakeIO.writeRawEvents()
                    .withWarehouse(warehouse)
                    .withRunId("run-2")
                    .withWriterId("job-7"));
    HashMap<String, Long> expectedVersion = new HashMap<>();
    for (int i = 10; i < 40; i++) {
      expectedVersion.put(events.get(i).naturalId(), i < 25 ? 0L : 1L);
    }
    PAssert.that(
            refs.apply(
                "Where",
                MapElements.into(TypeDescriptors.strings())
                    .via(r -> r.naturalId() + "@v" + r.pointer().tableVersion())))
        .containsInAnyOrder(
            expectedVersion.entrySet().stream()
                .map(e -> e.getKey() + "@v" + e.getValue())
                .toList());
    PAssert.that(
            refs.apply(
                    "Pointers",
                    MapElements.into(TypeDescriptor.of(Pointer.class)).via(EventRef::pointer))
                .setCoder(PointerCoder.of())
                .apply(DeltaLakeIO.lookup().withWarehouse(warehouse))
                .apply(
                    "Payloads",
                    MapElements.into(TypeDescriptors.strings())
                        .via(
                            sp ->
                                sp.pointer().naturalId()
                                    + "="
                                    + new String(sp.payload(), StandardCharsets.UTF_8))))
        .containsInAnyOrder(
            events.subList(10, 40).stream()
                .map(e -> e.naturalId() + "=" + new String(e.payload(), StandardCharsets.UTF_8))
                .toList());
    PipelineResult result = p.run();
    result.waitUntilFinish();

    assertEquals(
        15, counter(result, CommitFiles.recognisedCounterName(WarehouseTables.RAW_EVENTS)));
    List<Map<String, Object>> rows =
        DeltaLakeTables.readRows(warehouse, WarehouseTables.RAW_EVENTS);
    assertEquals(40, rows.size());
    assertEquals(40, rows.stream().map(r -> r.get("origin_offset")).distinct().count());
  }

  /** The DoFn class of the step whose full name ends with {@code name}. */
  private static Class<?> fnOfStep(org.apache.beam.sdk.Pipeline pipeline, String name) {
    List<Class<?>> fns = new ArrayList<>();
    pipeline.traverseTopologically(
        new org.apache.beam.sdk.Pipeline.PipelineVisitor.Defaults() {
          @Override
          public void visitPrimitiveTransform(
              org.apache.beam.sdk.runners.TransformHierarchy.Node node) {
            if (node.getFullName().contains("/" + name + "/")
                && node.getTransform() instanceof ParDo.MultiOutput<?, ?> parDo) {
              fns.add(parDo.getFn().getClass());
            }
          }
        });
    assertEquals(name + " steps", 1, fns.size());
    return fns.get(0);
  }

  @Test
  public void pointersOfABoundedInputAreExpandedSplittablySoSparkStreamsThem() {
    String warehouse = tmp.getRoot().getPath();
    org.apache.beam.sdk.Pipeline bounded = org.apache.beam.sdk.Pipeline.create();
    bounded
        .apply(
            Create.timestamped(timestamped(TestEvents.events(Side.SOURCE, "b", 2, TestEvents.T0)))
                .withCoder(EventCoder.of()))
        .apply(DeltaLakeIO.writeRawEvents().withWarehouse(warehouse).withRunId("run-1"));
    assertEquals(CommitFiles.SplittableExpandPointersFn.class, fnOfStep(bounded, "ExpandPointers"));

    org.apache.beam.sdk.Pipeline unbounded = org.apache.beam.sdk.Pipeline.create();
    unbounded
        .apply(TestStream.create(EventCoder.of()).advanceWatermarkToInfinity())
        .apply(DeltaLakeIO.writeRawEvents().withWarehouse(warehouse).withRunId("run-1"));
    assertEquals(CommitFiles.ExpandPointersFn.class, fnOfStep(unbounded, "ExpandPointers"));
  }

  @Test
  public void theCommitStepRequiresStableInputOnlyWhenAsked() {
    String warehouse = tmp.getRoot().getPath();
    org.apache.beam.sdk.transforms.reflect.DoFnSignature plain =
        org.apache.beam.sdk.transforms.reflect.DoFnSignatures.getSignature(
            CommitFiles.CommitRawEventsFn.class);
    org.apache.beam.sdk.transforms.reflect.DoFnSignature stable =
        org.apache.beam.sdk.transforms.reflect.DoFnSignatures.getSignature(
            CommitFiles.StableCommitRawEventsFn.class);
    org.apache.beam.sdk.transforms.reflect.DoFnSignature stableOther =
        org.apache.beam.sdk.transforms.reflect.DoFnSignatures.getSignature(
            CommitFiles.StableCommitFn.class);
    assertTrue(!plain.processElement().requiresStableInput());
    assertTrue(stable.processElement().requiresStableInput());
    assertTrue(stableOther.processElement().requiresStableInput());
    // The writer picks the stable variant when asked; the app id carries the writer id, not a UUID.
    org.apache.beam.sdk.Pipeline pipeline = org.apache.beam.sdk.Pipeline.create();
    pipeline
        .apply(Create.empty(EventCoder.of()))
        .apply(
            DeltaLakeIO.writeRawEvents()
                .withWarehouse(warehouse)
                .withRunId("r")
                .withWriterId("job-1")
                .withStableInput(true));
    List<String> fns = new ArrayList<>();
    pipeline.traverseTopologically(
        new org.apache.beam.sdk.Pipeline.PipelineVisitor.Defaults() {
          @Override
          public void visitPrimitiveTransform(
              org.apache.beam.sdk.runners.TransformHierarchy.Node node) {
            if (node.getTransform() instanceof ParDo.MultiOutput<?, ?> pardo) {
              fns.add(pardo.getFn().getClass().getSimpleName());
              if (pardo.getFn() instanceof CommitFiles.CommitRawEventsFn fn) {
                fns.add(fn.appId());
              }
            }
          }
        });
    assertTrue(fns.toString(), fns.contains("StableCommitRawEventsFn"));
    assertTrue(
        fns.toString(), fns.stream().anyMatch(f -> f.startsWith("streamrecon/job-1/raw_events/")));
  }

  /** The partition directory of a looked-up pointer, its natural id and the payload found. */
  private static String describe(StoredPayload stored) {
    String file = stored.pointer().dataFile();
    return file.substring(0, file.lastIndexOf('/'))
        + " "
        + stored.pointer().naturalId()
        + "="
        + new String(stored.payload(), StandardCharsets.UTF_8);
  }

  @Test
  public void streamingWriteCommitsPerIntervalAndKeepsLateEvents() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    List<Event> first = TestEvents.events(Side.SOURCE, "a", 5, TestEvents.T0);
    List<Event> second =
        TestEvents.events(Side.SOURCE, "b", 5, TestEvents.T0.plus(Duration.standardMinutes(10)));
    // Far behind the watermark by the time it arrives.
    Event late =
        TestEvents.event(
            Side.TARGET,
            "late-1",
            TestEvents.T0.minus(Duration.standardHours(1)),
            "{\"late\":true}");

    TestStream<Event> stream =
        TestStream.create(EventCoder.of())
            .advanceWatermarkTo(TestEvents.T0)
            .addElements(
                timestamped(first).get(0),
                timestamped(first).subList(1, 5).toArray(new TimestampedValue[0]))
            .advanceProcessingTime(Duration.standardSeconds(6))
            .advanceWatermarkTo(TestEvents.T0.plus(Duration.standardMinutes(10)))
            .addElements(
                timestamped(second).get(0),
                timestamped(second).subList(1, 5).toArray(new TimestampedValue[0]))
            .addElements(TimestampedValue.of(late, late.eventTime()))
            .advanceProcessingTime(Duration.standardSeconds(6))
            .advanceWatermarkToInfinity();

    PCollection<EventRef> refs =
        p.apply(stream)
            .apply(
                DeltaLakeIO.writeRawEvents()
                    .withWarehouse(warehouse)
                    .withRunId("run-s")
                    .withCommitInterval(Duration.standardSeconds(5)));
    // Only serializable values in the assertions: id -> expected commit, id -> event time.
    HashMap<String, Long> expectedVersion = new HashMap<>();
    HashMap<String, Long> eventMillis = new HashMap<>();
    first.forEach(e -> expectedVersion.put(e.naturalId(), 0L));
    second.forEach(e -> expectedVersion.put(e.naturalId(), 1L));
    expectedVersion.put(late.naturalId(), 1L);
    for (Event e : first) {
      eventMillis.put(e.naturalId(), e.eventTime().getMillis());
    }
    for (Event e : second) {
      eventMillis.put(e.naturalId(), e.eventTime().getMillis());
    }
    long secondWatermark = TestEvents.T0.plus(Duration.standardMinutes(10)).getMillis();
    PAssert.that(
            refs.apply(
                "Where",
                MapElements.into(TypeDescriptors.strings())
                    .via(r -> r.naturalId() + "@v" + r.pointer().tableVersion())))
        .containsInAnyOrder(
            expectedVersion.entrySet().stream()
                .map(e -> e.getKey() + "@v" + e.getValue())
                .toList());
    PAssert.that(refs.apply("Timestamps", ParDo.of(new WithTimestamp())))
        .satisfies(
            stamped -> {
              int n = 0;
              for (String s : stamped) {
                n++;
                String id = s.substring(s.indexOf('/') + 1, s.indexOf('@'));
                long ts = Long.parseLong(s.substring(s.indexOf('@') + 1));
                if (id.equals("late-1")) {
                  // Moved forward to the pane: no earlier than what the pane held back.
                  assertTrue(ts >= secondWatermark);
                } else {
                  assertEquals(id, (long) eventMillis.get(id), ts);
                }
              }
              assertEquals(11, n);
              return null;
            });
    p.run().waitUntilFinish();

    assertEquals(1, DeltaLakeTables.tableVersion(warehouse, WarehouseTables.RAW_EVENTS));
    assertEquals(11, DeltaLakeTables.readRows(warehouse, WarehouseTables.RAW_EVENTS).size());
    assertEquals(1, DeltaLakeTables.findRawEvents(warehouse, "late-1").size());
  }

  @Test
  public void pendingPointerEntryIsUnder100Bytes() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    String id20 = "order-0000000000-042";
    assertEquals(20, id20.length());
    List<EventRef> refs =
        RawEventsFixture.commit(
            warehouse,
            "app",
            0,
            List.of(
                TestEvents.event(Side.SOURCE, id20, TestEvents.T0, "{\"id\":\"" + id20 + "\"}")));
    // A realistic table version and row index, not the smallest varints.
    EventRef ref = refs.get(0);
    Pointer big =
        new Pointer(123_456, ref.pointer().dataFile(), 99_999, ref.side(), id20, ref.sha256());
    EventRef entry = new EventRef(ref.side(), id20, ref.eventTime(), ref.sha256(), big);

    ByteArrayOutputStream out = new ByteArrayOutputStream();
    EventRefCoder.encodeWithoutKey(entry, out);
    assertThat(out.size(), lessThan(100));
    ByteArrayOutputStream withKey = new ByteArrayOutputStream();
    EventRefCoder.of().encode(entry, withKey);
    assertThat(withKey.size(), lessThan(100));
    System.out.println(
        "pending entry: " + out.size() + " bytes without key, " + withKey.size() + " with key");
  }

  // ------------------------------------------------------------------ lookup and fetch

  @Test
  public void lookupOpensEachFileOncePerBundle() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    List<Event> events = TestEvents.events(Side.SOURCE, "s", 25, TestEvents.T0);
    List<Event> targets = TestEvents.events(Side.TARGET, "t", 25, TestEvents.T0);
    List<Event> all = new ArrayList<>(events);
    all.addAll(targets);
    List<EventRef> refs = RawEventsFixture.commit(warehouse, "app", 0, all);
    List<Pointer> pointers = refs.stream().map(EventRef::pointer).toList();

    // One element holding all pointers, expanded in one bundle.
    PCollection<StoredPayload> payloads =
        p.apply(Create.of(List.of(pointers)).withCoder(ListCoder.of(PointerCoder.of())))
            .apply(
                "Expand",
                FlatMapElements.into(TypeDescriptor.of(Pointer.class)).via((List<Pointer> l) -> l))
            .setCoder(PointerCoder.of())
            .apply(DeltaLakeIO.lookup().withWarehouse(warehouse));
    Map<String, String> expected = new HashMap<>();
    for (Event e : all) {
      expected.put(e.naturalId(), new String(e.payload(), StandardCharsets.UTF_8));
    }
    PAssert.that(
            payloads.apply(
                MapElements.into(TypeDescriptors.strings())
                    .via(
                        s ->
                            s.pointer().naturalId()
                                + "="
                                + new String(s.payload(), StandardCharsets.UTF_8))))
        .containsInAnyOrder(
            expected.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList());
    PipelineResult result = p.run();
    result.waitUntilFinish();

    assertEquals("one open per data file", 2, counter(result, "lookup_file_opens"));
    assertEquals(50, counter(result, "lookup_rows_read"));
    assertEquals(0, counter(result, "lookup_fallbacks"));
  }

  @Test
  public void lookupFallsBackWhenTheFileWasCompactedAway() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    List<Event> events = TestEvents.events(Side.SOURCE, "s", 10, TestEvents.T0);
    List<EventRef> refs = RawEventsFixture.commit(warehouse, "app", 0, events);
    RawEventsFixture.commit(
        warehouse, "app", 1, TestEvents.events(Side.SOURCE, "z", 10, TestEvents.T0));
    List<Event> reordered = new ArrayList<>(events);
    Collections.reverse(reordered);
    RawEventsFixture.compact(warehouse, List.of(refs.get(0).pointer().dataFile()), reordered);

    Pointer stale = refs.get(2).pointer();
    PCollection<StoredPayload> payloads =
        p.apply(Create.of(stale).withCoder(PointerCoder.of()))
            .apply(DeltaLakeIO.lookup().withWarehouse(warehouse));
    PAssert.that(payloads).containsInAnyOrder(new StoredPayload(stale, events.get(2).payload()));
    assertTrue(
        "the pointer's file is gone",
        !new java.io.File(warehouse + "/raw_events/" + stale.dataFile()).exists());
    PipelineResult result = p.run();
    result.waitUntilFinish();
    assertEquals(1, counter(result, "lookup_fallbacks"));
    assertEquals(1, counter(result, "lookup_fallback_files_skipped"));
    assertEquals(1, counter(result, "lookup_file_opens"));
  }

  private static Verdict verdict(EventRef source, EventRef target) {
    Status status = source.sha256().equals(target.sha256()) ? Status.MATCH : Status.MISMATCH;
    return Verdict.of(source.naturalId(), status, source, target, null);
  }

  /** Same natural ids on both sides; odd ones differ. */
  private static List<Verdict> verdicts(String warehouse, int n) throws Exception {
    List<Event> source = new ArrayList<>();
    List<Event> target = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String id = "k-" + i;
      source.add(TestEvents.event(Side.SOURCE, id, TestEvents.T0.plus(i), "{\"v\":" + i + "}"));
      target.add(
          TestEvents.event(
              Side.TARGET, id, TestEvents.T0.plus(i), "{\"v\":" + (i % 2 == 0 ? i : -i) + "}"));
    }
    List<Event> all = new ArrayList<>(source);
    all.addAll(target);
    Map<String, EventRef> refs = new HashMap<>();
    for (EventRef r : RawEventsFixture.commit(warehouse, "app", 0, all)) {
      refs.put(r.side() + r.naturalId(), r);
    }
    List<Verdict> verdicts = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      verdicts.add(verdict(refs.get("SOURCE" + "k-" + i), refs.get("TARGET" + "k-" + i)));
    }
    return verdicts;
  }

  @Test
  public void fetchPayloadsReadsBothSidesWithOneOpenPerFile() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    List<Verdict> mismatches =
        verdicts(warehouse, 20).stream().filter(v -> v.status() == Status.MISMATCH).toList();
    assertEquals(10, mismatches.size());

    PCollection<PayloadPair> pairs =
        oneBundle(mismatches).apply(DeltaLakeIO.fetchPayloads().withWarehouse(warehouse));
    assertBothPayloads(pairs, mismatches);
    PipelineResult result = p.run();
    result.waitUntilFinish();
    assertEquals("the SOURCE file and the TARGET file", 2, counter(result, "lookup_file_opens"));
    assertEquals(20, counter(result, "lookup_rows_read"));
  }

  @Test
  public void fetchPayloadsReadsEarlyOnceItHoldsItsBound() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    List<Verdict> mismatches =
        verdicts(warehouse, 20).stream().filter(v -> v.status() == Status.MISMATCH).toList();
    assertEquals(10, mismatches.size());

    // One bundle of 10 (as above), read every 3 elements instead of once at its end: a bundle
    // that is a whole Spark partition no longer holds all its payloads at once.
    PCollection<PayloadPair> pairs =
        oneBundle(mismatches)
            .apply("Fetch", ParDo.of(new ReadPayloads.FetchFn(warehouse, 3)))
            .setCoder(io.streamrecon.transforms.ModelCoders.PayloadPairCoder.of());
    assertBothPayloads(pairs, mismatches);
    PipelineResult result = p.run();
    result.waitUntilFinish();
    assertEquals(
        "4 reads (3, 3, 3, then 1 at the bundle's end) of 2 files",
        8,
        counter(result, "lookup_file_opens"));
    assertEquals(20, counter(result, "lookup_rows_read"));
  }

  /** The verdicts as one bundle (one element expanded), as a runner hands a partition over. */
  private PCollection<Verdict> oneBundle(List<Verdict> verdicts) {
    return p.apply(Create.of(List.of(verdicts)).withCoder(ListCoder.of(VerdictCoder.of())))
        .apply(
            "Expand",
            FlatMapElements.into(TypeDescriptor.of(Verdict.class)).via((List<Verdict> l) -> l))
        .setCoder(VerdictCoder.of());
  }

  /** Each pair carries its verdict's source payload {"v":i} and target payload {"v":-i}. */
  private static void assertBothPayloads(PCollection<PayloadPair> pairs, List<Verdict> mismatches) {
    PAssert.that(
            pairs.apply(
                MapElements.into(TypeDescriptors.strings())
                    .via(
                        pp ->
                            pp.verdict().naturalId()
                                + " "
                                + new String(pp.sourcePayload(), StandardCharsets.UTF_8)
                                + " "
                                + new String(pp.targetPayload(), StandardCharsets.UTF_8))))
        .containsInAnyOrder(
            mismatches.stream()
                .map(
                    v -> {
                      int i = Integer.parseInt(v.naturalId().substring(2));
                      return v.naturalId() + " {\"v\":" + i + "} {\"v\":" + (-i) + "}";
                    })
                .toList());
  }

  @Test
  public void matchesCauseNoLookups() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    List<Verdict> matches =
        verdicts(warehouse, 20).stream().filter(v -> v.status() == Status.MATCH).toList();
    assertEquals(10, matches.size());

    // As the pipeline wires it: only MISMATCH verdicts go to the fetch.
    PCollection<PayloadPair> pairs =
        p.apply(Create.of(matches).withCoder(VerdictCoder.of()))
            .apply(Filter.by(v -> v.status() == Status.MISMATCH))
            .apply(DeltaLakeIO.fetchPayloads().withWarehouse(warehouse));
    PAssert.that(pairs).empty();
    PipelineResult result = p.run();
    result.waitUntilFinish();
    assertEquals(0, counter(result, "lookup_file_opens"));
    assertEquals(0, counter(result, "lookup_rows_read"));
  }

  // ------------------------------------------------------------------ the other tables

  @Test
  public void deltasDeadLettersAndLateEventsRoundTrip() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    Pointer sp =
        new Pointer(
            3,
            "side=SOURCE/event_date=2024-03-01/part-00000000-0000-0000-0000-000000000001.snappy.parquet",
            7,
            Side.SOURCE,
            "k1",
            "a".repeat(64));
    Pointer tp =
        new Pointer(
            4,
            "side=TARGET/event_date=2024-03-01/part-00000000-0000-0000-0000-000000000002.snappy.parquet",
            9,
            Side.TARGET,
            "k1",
            "b".repeat(64));
    DeltaRecord mismatch =
        new DeltaRecord(
            "c".repeat(64),
            "d".repeat(64),
            "k1",
            Status.MISMATCH,
            List.of(
                new Difference("/a", DifferenceKind.CHANGED, "1", "2"),
                new Difference("/b/0", DifferenceKind.ONLY_IN_SOURCE, "{\"x\":null}", null),
                new Difference("/c", DifferenceKind.ONLY_IN_TARGET, null, "\"t\"")),
            sp.sha256(),
            tp.sha256(),
            TestEvents.T0,
            TestEvents.T0.plus(1500),
            sp,
            tp,
            TestEvents.T0.plus(Duration.standardMinutes(1)),
            "run-1");
    Pointer only = new Pointer(5, sp.dataFile(), 1, Side.SOURCE, "k2", "e".repeat(64));
    DeltaRecord missing =
        new DeltaRecord(
            "f".repeat(64),
            null,
            "k2",
            Status.MISSING_IN_TARGET,
            List.of(),
            only.sha256(),
            null,
            TestEvents.T0,
            null,
            only,
            null,
            TestEvents.T0.plus(Duration.standardMinutes(11)),
            "run-1");
    DeadLetter text =
        new DeadLetter(
            Side.SOURCE,
            "{not json".getBytes(StandardCharsets.UTF_8),
            "Unexpected end",
            "ParseEvents",
            Origin.fileLine("in.jsonl", 12),
            TestEvents.T0);
    DeadLetter binary =
        new DeadLetter(
            Side.TARGET,
            new byte[] {(byte) 0xff, (byte) 0xfe, 0, 65},
            "not UTF-8",
            "ParseEvents",
            Origin.kafka("orders", 3, 1234),
            TestEvents.T0.plus(1));
    LateEvent lateEvent =
        new LateEvent(
            new EventRef(
                Side.TARGET,
                "k3",
                TestEvents.T0.minus(99_000),
                "9".repeat(64),
                new Pointer(6, tp.dataFile(), 11, Side.TARGET, "k3", "9".repeat(64))),
            TestEvents.T0);

    PCollection<DeltaLakeCommit> deltaCommits =
        p.apply("Deltas", Create.of(mismatch, missing).withCoder(DeltaRecordCoder.of()))
            .apply(
                "WriteDeltas",
                DeltaLakeIO.writeDeltas().withWarehouse(warehouse).withRunId("run-1"));
    p.apply("DeadLetters", Create.of(text, binary).withCoder(DeadLetterCoder.of()))
        .apply(
            "WriteDeadLetters",
            DeltaLakeIO.writeDeadLetters().withWarehouse(warehouse).withRunId("run-1"));
    p.apply("LateEvents", Create.of(lateEvent).withCoder(LateEventCoder.of()))
        .apply(
            "WriteLateEvents",
            DeltaLakeIO.writeLateEvents().withWarehouse(warehouse).withRunId("run-1"));
    PAssert.that(deltaCommits)
        .satisfies(
            commits -> {
              long rows = 0;
              int n = 0;
              for (DeltaLakeCommit c : commits) {
                n++;
                rows += c.rows();
                assertEquals(WarehouseTables.DELTAS, c.table());
                assertEquals(0, c.tableVersion());
                assertEquals(0, c.txnVersion());
                assertThat(c.appId(), containsString("run-1/deltas/"));
              }
              assertEquals(1, n);
              assertEquals(2, rows);
              return null;
            });
    p.run().waitUntilFinish();

    assertEquals(Set.of(mismatch, missing), new HashSet<>(DeltaLakeTables.readDeltas(warehouse)));
    assertEquals(Set.of(text, binary), new HashSet<>(DeltaLakeTables.readDeadLetters(warehouse)));
    assertEquals(List.of(lateEvent), DeltaLakeTables.readLateEvents(warehouse));

    Map<String, Object> binaryRow =
        DeltaLakeTables.readRows(warehouse, WarehouseTables.DEAD_LETTERS).stream()
            .filter(r -> "TARGET".equals(r.get("side")))
            .findFirst()
            .orElseThrow();
    assertEquals(TableLayouts.RAW_BASE64, binaryRow.get("raw_encoding"));
    assertEquals("//4AQQ==", binaryRow.get("raw"));
  }

  @Test
  public void streamingWritesOfOtherTablesUseOneTransactionVersionPerPane() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    DeadLetter a =
        new DeadLetter(
            Side.SOURCE,
            new byte[] {1},
            "e",
            "ParseEvents",
            Origin.kafka("t", 0, 1),
            TestEvents.T0);
    DeadLetter b =
        new DeadLetter(
            Side.SOURCE,
            new byte[] {2},
            "e",
            "ParseEvents",
            Origin.kafka("t", 0, 2),
            TestEvents.T0.plus(1));
    TestStream<DeadLetter> stream =
        TestStream.create(DeadLetterCoder.of())
            .addElements(TimestampedValue.of(a, TestEvents.T0))
            .advanceProcessingTime(Duration.standardSeconds(2))
            .addElements(TimestampedValue.of(b, TestEvents.T0.plus(1)))
            .advanceProcessingTime(Duration.standardSeconds(2))
            .advanceWatermarkToInfinity();
    PCollection<DeltaLakeCommit> commits =
        p.apply(stream)
            .apply(
                DeltaLakeIO.writeDeadLetters()
                    .withWarehouse(warehouse)
                    .withRunId("run-2")
                    .withCommitInterval(Duration.standardSeconds(1)));
    // txn version -> table version, files, rows
    PAssert.that(
            commits.apply(
                MapElements.into(TypeDescriptors.strings())
                    .via(
                        c ->
                            c.txnVersion()
                                + "->"
                                + c.tableVersion()
                                + " "
                                + c.files()
                                + " "
                                + c.rows())))
        .containsInAnyOrder("0->0 1 1", "1->1 1 1");
    p.run().waitUntilFinish();
    assertEquals(2, DeltaLakeTables.readDeadLetters(warehouse).size());
  }

  // ------------------------------------------------------------------ configuration

  @Test
  public void settingsAreValidatedWithTheirRange() {
    IllegalArgumentException interval =
        assertThrows(
            IllegalArgumentException.class,
            () -> DeltaLakeIO.writeRawEvents().withCommitInterval(Duration.millis(-1)));
    assertThat(
        interval.getMessage(),
        containsString("commitInterval must be between 0 (COMMIT_EACH_MICRO_BATCH) and"));
    // Zero is a commit at every trigger evaluation, for runners that evaluate once per batch.
    DeltaLakeIO.writeRawEvents().withCommitInterval(DeltaLakeIO.COMMIT_EACH_MICRO_BATCH);
    assertThrows(
        IllegalArgumentException.class,
        () -> DeltaLakeIO.writeDeltas().withCommitInterval(Duration.standardHours(2)));
    IllegalArgumentException runId =
        assertThrows(
            IllegalArgumentException.class, () -> DeltaLakeIO.writeDeltas().withRunId(" "));
    assertThat(runId.getMessage(), containsString("runId must be 1 to 128"));
    IllegalArgumentException warehouse =
        assertThrows(IllegalArgumentException.class, () -> DeltaLakeIO.lookup().withWarehouse(""));
    assertThat(warehouse.getMessage(), containsString("warehouse must be"));
  }

  @Test
  public void requiredSettingsAreCheckedAtExpansion() {
    PCollection<Event> events = p.apply(Create.empty(EventCoder.of()));
    IllegalStateException noRunId =
        assertThrows(
            IllegalStateException.class,
            () ->
                events.apply(DeltaLakeIO.writeRawEvents().withWarehouse(tmp.getRoot().getPath())));
    assertThat(noRunId.getMessage(), containsString("withRunId"));
    IllegalStateException noWarehouse =
        assertThrows(
            IllegalStateException.class,
            () -> p.apply("Pointers", Create.empty(PointerCoder.of())).apply(DeltaLakeIO.lookup()));
    assertThat(noWarehouse.getMessage(), containsString("withWarehouse"));
    p.enableAbandonedNodeEnforcement(false);
  }
}
