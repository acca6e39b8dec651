package io.streamrecon.pipeline.cli;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.streamrecon.deltalake.DeltaLakeTables;
import io.streamrecon.json.EventParser;
import io.streamrecon.json.ParseConfig;
import io.streamrecon.model.DeltaRecord;
import io.streamrecon.model.Event;
import io.streamrecon.model.EventRef;
import io.streamrecon.model.LateEvent;
import io.streamrecon.model.Origin;
import io.streamrecon.model.RawInput;
import io.streamrecon.model.Side;
import io.streamrecon.model.Status;
import io.streamrecon.pipeline.ReconcileOptions;
import io.streamrecon.pipeline.ReconcilePipeline;
import io.streamrecon.pipeline.ReconcileSettings;
import io.streamrecon.pipeline.run.ReplayRun;
import io.streamrecon.transforms.ModelCoders;
import io.streamrecon.transforms.deltalake.DeltaLakeIO;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * An event that came too late for its partner in a live run (stored, written to late_events, its
 * pair never compared) is an ordinary event in a replay of its window: the pair is judged.
 */
public class ReplayLateEventTest {
  @Rule public final TemporaryFolder tmp = new TemporaryFolder();
  @Rule public org.junit.rules.Timeout timeout = org.junit.rules.Timeout.seconds(300);

  private static final Instant T0 = Instant.parse("2026-03-01T08:00:00Z");

  private static Event event(Side side, String id, Instant t, String amount, long line) {
    String json = "{\"id\":\"" + id + "\",\"eventTime\":\"" + t + "\",\"amount\":" + amount + "}";
    try {
      return new EventParser(ParseConfig.defaults())
          .parse(
              new RawInput(
                  side,
                  json.getBytes(StandardCharsets.UTF_8),
                  Origin.fileLine(side.name().toLowerCase() + ".jsonl", line),
                  t));
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @Test
  public void aLateEventIsPairedWhenItsWindowIsReplayed() throws Exception {
    Path wh = tmp.newFolder("wh").toPath();
    Instant t = T0.plus(Duration.standardMinutes(1));
    Event lateSource = event(Side.SOURCE, "k1", t, "10", 1);
    Event lateTarget = event(Side.TARGET, "k1", t.plus(Duration.standardSeconds(5)), "11", 1);
    Event bothSource = event(Side.SOURCE, "k2", t, "20", 2);
    Event bothTarget = event(Side.TARGET, "k2", t, "20", 2);
    TestStream<Event> stream =
        TestStream.create(ModelCoders.EventCoder.of())
            .advanceWatermarkTo(T0)
            .addElements(
                TimestampedValue.of(lateSource, lateSource.eventTime()),
                TimestampedValue.of(bothSource, bothSource.eventTime()),
                TimestampedValue.of(bothTarget, bothTarget.eventTime()))
            .advanceProcessingTime(Duration.standardSeconds(2))
            // Far past k1's entry and the allowed lateness: k1 expires as MISSING_IN_TARGET.
            .advanceWatermarkTo(T0.plus(Duration.standardHours(2)))
            .advanceProcessingTime(Duration.standardSeconds(2))
            .addElements(TimestampedValue.of(lateTarget, lateTarget.eventTime()))
            .advanceProcessingTime(Duration.standardSeconds(2))
            .advanceWatermarkToInfinity();

    ReconcileOptions options =
        PipelineOptionsFactory.fromArgs(
                "--source=s.jsonl",
                "--target=t.jsonl",
                "--warehouse=" + wh,
                "--runId=live",
                "--timeout=10m",
                "--commitInterval=1s",
                "--streaming=true")
            .as(ReconcileOptions.class);
    ReconcileSettings s = ReconcileSettings.from(options);
    ReconcilePipeline.WriterIdentity writer = ReconcilePipeline.WriterIdentity.perProcess("live");
    Pipeline p = Pipeline.create(options);
    PCollection<EventRef> stored =
        p.apply("Events", stream)
            .apply(
                "WriteRawEvents",
                ReconcilePipeline.writerSettings(DeltaLakeIO.writeRawEvents(), s, writer));
    ReconcilePipeline.judge(stored, s, writer);
    assertEquals(PipelineResult.State.DONE, p.run().waitUntilFinish());

    List<LateEvent> late = DeltaLakeTables.readLateEvents(wh.toString());
    assertEquals(late.toString(), 1, late.size());
    assertEquals("k1", late.get(0).event().naturalId());
    assertEquals(Map.of("k1", Status.MISSING_IN_TARGET), statuses(wh, "live"));

    ReplayRun.FinishedReplay replay =
        ReplayRun.run(
            ReplayCommand.parse(
                List.of(
                    "--warehouse=" + wh,
                    "--since=" + T0,
                    "--until=" + T0.plus(Duration.standardHours(1)),
                    "--replayId=replay-late")));
    assertTrue(replay.format(), replay.addsUp());
    assertEquals(0, replay.summary().get("late"));
    assertEquals(Map.of("k1", Status.MISMATCH), statuses(wh, "replay-late"));
    assertEquals(
        replay.transitions().toString(),
        Long.valueOf(1),
        replay.transitions().get("MISSING_IN_TARGET → MISMATCH"));
    assertEquals(Long.valueOf(1), replay.transitions().get("MATCH unchanged"));
    assertEquals(Map.of("live", 4L), replay.eventsPerRun());
  }

  private static Map<String, Status> statuses(Path wh, String runId) {
    Map<String, Status> result = new java.util.TreeMap<>();
    for (DeltaRecord d : DeltaLakeTables.readDeltas(wh.toString())) {
      if (d.runId().equals(runId)) {
        result.put(d.naturalId(), d.status());
      }
    }
    return result;
  }
}
