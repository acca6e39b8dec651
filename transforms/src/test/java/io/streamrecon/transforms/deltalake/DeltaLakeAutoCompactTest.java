package io.streamrecon.transforms.deltalake;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.lessThan;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import io.delta.standalone.DeltaLog;
import io.delta.standalone.actions.AddFile;
import io.streamrecon.deltalake.DeltaLakeCommitter;
import io.streamrecon.deltalake.DeltaLakeCompaction;
import io.streamrecon.deltalake.DeltaLakeEngine;
import io.streamrecon.deltalake.DeltaLakeMaintenance;
import io.streamrecon.deltalake.DeltaLakeTables;
import io.streamrecon.deltalake.RawEventsFixture;
import io.streamrecon.deltalake.TableLayouts;
import io.streamrecon.deltalake.TestEvents;
import io.streamrecon.deltalake.WarehouseTables;
import io.streamrecon.model.Event;
import io.streamrecon.model.EventRef;
import io.streamrecon.model.Side;
import io.streamrecon.model.StoredPayload;
import io.streamrecon.transforms.ModelCoders.EventCoder;
import io.streamrecon.transforms.ModelCoders.PointerCoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TimestampedValue;
import org.apache.beam.sdk.values.TypeDescriptor;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.apache.hadoop.conf.Configuration;
import org.joda.time.Duration;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** {@code withAutoCompact}: a streaming writer keeps its partitions' small files few. */
public class DeltaLakeAutoCompactTest {
  @Rule public final transient TestPipeline p = TestPipeline.create();
  @Rule public final transient TemporaryFolder tmp = new TemporaryFolder();

  private static final int PANES = 7;
  private static final int PER_PANE = 4;
  private static final int THRESHOLD = 3;

  /**
   * Seven commits of one small file each into one partition, threshold 3: the committer compacts
   * after every few commits, the table ends with fewer files than commits, every row is there
   * exactly once, and every pointer the writer emitted still reads its payload.
   */
  @Test
  public void smallFilesAreCompactedWhileStreamingAndNoRowIsLostOrDoubled() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    List<Event> all = new ArrayList<>();
    TestStream.Builder<Event> stream =
        TestStream.create(EventCoder.of()).advanceWatermarkTo(TestEvents.T0);
    for (int pane = 0; pane < PANES; pane++) {
      List<Event> events =
          TestEvents.events(Side.SOURCE, "p" + pane, PER_PANE, TestEvents.T0.plus(pane * 10_000L));
      all.addAll(events);
      for (Event e : events) {
        stream = stream.addElements(TimestampedValue.of(e, e.eventTime()));
      }
      // Past the commit interval: one commit per pane.
      stream = stream.advanceProcessingTime(Duration.standardSeconds(6));
    }
    PCollection<EventRef> refs =
        p.apply(stream.advanceWatermarkToInfinity())
            .apply(
                DeltaLakeIO.writeRawEvents()
                    .withWarehouse(warehouse)
                    .withRunId("run-auto")
                    .withCommitInterval(Duration.standardSeconds(5))
                    .withAutoCompact(THRESHOLD));
    PCollection<StoredPayload> payloads =
        refs.apply(
                "Pointers",
                MapElements.into(TypeDescriptor.of(io.streamrecon.model.Pointer.class))
                    .via(EventRef::pointer))
            .setCoder(PointerCoder.of())
            .apply(DeltaLakeIO.lookup().withWarehouse(warehouse));
    List<String> expected =
        all.stream()
            .map(e -> e.naturalId() + "=" + new String(e.payload(), StandardCharsets.UTF_8))
            .toList();
    PAssert.that(
            payloads.apply(
                "Read",
                MapElements.into(TypeDescriptors.strings())
                    .via(
                        s ->
                            s.pointer().naturalId()
                                + "="
                                + new String(s.payload(), StandardCharsets.UTF_8))))
        .containsInAnyOrder(expected);
    PipelineResult result = p.run();
    result.waitUntilFinish();

    long compacted = DeltaLakeIOTest.counter(result, "deltalake_auto_compacted_partitions");
    assertThat(compacted, greaterThan(0L));
    assertEquals(0, DeltaLakeIOTest.counter(result, "deltalake_auto_compaction_failures"));
    org.apache.hadoop.fs.Path root =
        DeltaLakeCommitter.tablePath(warehouse, WarehouseTables.RAW_EVENTS);
    List<AddFile> files = DeltaLog.forTable(new Configuration(), root).update().getAllFiles();
    // Never more small files than the threshold is left behind in the one partition.
    assertThat(files.size(), lessThan(THRESHOLD));
    // Every row exactly once: a lost row or a doubled one changes the multiset.
    Map<String, Long> ids =
        DeltaLakeTables.readRows(warehouse, WarehouseTables.RAW_EVENTS).stream()
            .collect(
                Collectors.groupingBy(r -> (String) r.get("natural_id"), Collectors.counting()));
    assertEquals(all.size(), ids.size());
    assertEquals(List.of(1L), ids.values().stream().distinct().toList());
    assertEquals(all.stream().map(Event::naturalId).collect(Collectors.toSet()), ids.keySet());
  }

  /**
   * A file four times the size of the small ones is of another size tier: auto-compaction merges
   * the small ones and leaves it alone, so a compacted file is not rewritten with every few new
   * files.
   */
  @Test
  public void autoCompactionMergesFilesOfOneSizeTierOnly() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    RawEventsFixture.commit(
        warehouse, "app", 0, TestEvents.events(Side.SOURCE, "big", 3000, TestEvents.T0));
    for (int c = 1; c <= 3; c++) {
      RawEventsFixture.commit(
          warehouse, "app", c, TestEvents.events(Side.SOURCE, "s" + c, 2, TestEvents.T0));
    }
    Configuration conf = new Configuration();
    org.apache.hadoop.fs.Path root =
        DeltaLakeCommitter.tablePath(warehouse, WarehouseTables.RAW_EVENTS);
    io.delta.kernel.engine.Engine engine = DeltaLakeEngine.create(conf);
    DeltaLog log = DeltaLog.forTable(conf, root);
    List<AddFile> before = log.update().getAllFiles();
    AddFile big = before.stream().max(java.util.Comparator.comparingLong(AddFile::getSize)).get();
    assertThat(
        DeltaLakeMaintenance.tier(big.getSize()),
        greaterThan(
            DeltaLakeMaintenance.tier(
                before.stream().mapToLong(AddFile::getSize).min().getAsLong())));

    DeltaLakeMaintenance.CompactResult r =
        DeltaLakeCompaction.autoCompact(
            conf,
            engine,
            root,
            TableLayouts.RAW_EVENTS,
            3,
            DeltaLakeMaintenance.DEFAULT_TARGET_FILE_SIZE,
            2);

    assertEquals(3, r.filesRemoved());
    List<String> after = log.update().getAllFiles().stream().map(AddFile::getPath).toList();
    assertEquals(2, after.size());
    assertThat(after, org.hamcrest.Matchers.hasItem(big.getPath()));
    assertEquals(3006, DeltaLakeTables.readRows(warehouse, WarehouseTables.RAW_EVENTS).size());
    // Below the threshold nothing happens.
    assertEquals(
        0,
        DeltaLakeCompaction.autoCompact(
                conf,
                engine,
                root,
                TableLayouts.RAW_EVENTS,
                3,
                DeltaLakeMaintenance.DEFAULT_TARGET_FILE_SIZE,
                2)
            .filesRemoved());
  }

  @Test
  public void theThresholdIsValidatedWithItsRange() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> DeltaLakeIO.writeDeltas().withAutoCompact(1));
    assertThat(e.getMessage(), containsString("0 (off) or 2 to 10000 files per partition, got 1"));
    assertThrows(
        IllegalArgumentException.class, () -> DeltaLakeIO.writeRawEvents().withAutoCompact(10_001));
  }
}
