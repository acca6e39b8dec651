package io.streamrecon.bench;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.streamrecon.json.EventParser;
import io.streamrecon.json.ParseConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Map;
import org.apache.spark.sql.streaming.SourceProgress;
import org.apache.spark.sql.streaming.StreamingQueryStatus;
import org.junit.Test;
import picocli.CommandLine;

/** The Kafka peer's pure parts: its command line and the idle rule; no Spark, no broker. */
public class PeerStreamTest {
  private static final long T = 1_780_000_000_000L;

  private static PeerStream parse(String... args) {
    PeerStream p = new PeerStream();
    new CommandLine(p).parseArgs(args);
    return p;
  }

  @Test
  public void acceptsTheSoaksCommandLine() {
    PeerStream p =
        parse(
            "--source=kafka://127.0.0.1:9092/soak-src",
            "--target=kafka://127.0.0.1:9092/soak-tgt",
            "--warehouse=/tmp/w",
            "--kafkaProperties=group.id=soak-1",
            "--timeout=60s",
            "--progressInterval=10s",
            "--pairingBuckets=1024",
            "--sparkMaster=local[2]",
            "--emitMatches=true");
    PeerStream.Settings s = p.settings();
    assertEquals("soak-src", s.source().topic());
    assertEquals("127.0.0.1:9092", s.target().bootstrapServers());
    assertEquals(Map.of("group.id", "soak-1"), s.kafka());
    assertEquals(60_000, s.timeoutMillis());
    assertEquals(30_000, s.delayMillis()); // streamrecon's --kafkaMaxOutOfOrderness default
    assertEquals(30_000, s.idleAfterMillis());
    assertEquals(0, s.triggerMillis()); // Spark's default trigger
    assertTrue(p.emitMatches);
    assertEquals(Path.of("/tmp/w"), p.warehouse);
    assertFalse(
        parse("--source=kafka://h:1/a", "--target=kafka://h:1/b", "--warehouse=w").emitMatches);
  }

  @Test
  public void rejectsUnknownOptionsAndFileInputs() {
    StringWriter err = new StringWriter();
    CommandLine cl = new CommandLine(new PeerStream()).setErr(new PrintWriter(err));
    int code =
        cl.execute(
            "--source=kafka://h:1/a", "--target=kafka://h:1/b", "--warehouse=w", "--runner=X");
    assertEquals(2, code);
    assertThat(err.toString(), containsString("Unknown option: '--runner=X'"));

    PeerStream files = parse("--source=a.jsonl", "--target=kafka://h:1/b", "--warehouse=w");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, files::settings);
    assertThat(e.getMessage(), containsString("kafka://host:port/topic"));
  }

  @Test
  public void aSideSeenEmptyForIdleAfterGetsHeartbeatsStampedWhenItWasSeenEmpty() {
    PeerStream.IdleRule rule = new PeerStream.IdleRule(30_000, 5_000, T);
    assertEquals(-1, rule.heartbeat()); // never seen empty
    rule.observed(T + 29_999, false);
    assertEquals(-1, rule.heartbeat());
    rule.observed(T + 30_000, false);
    assertEquals(T + 30_000, rule.heartbeat());
    assertTrue(rule.firstBeatOfSpell());
    assertEquals(-1, rule.heartbeat()); // nothing seen since
    rule.observed(T + 34_999, false);
    assertEquals(-1, rule.heartbeat()); // one per interval of observation time
    rule.observed(T + 35_000, false);
    assertEquals(T + 35_000, rule.heartbeat());
    assertFalse(rule.firstBeatOfSpell());

    // Records again: no heartbeat until seen empty for idleAfter since then.
    rule.observed(T + 36_000, true);
    rule.observed(T + 65_999, false);
    assertEquals(-1, rule.heartbeat());
    rule.observed(T + 66_000, false);
    assertEquals(T + 66_000, rule.heartbeat());
    assertTrue(rule.firstBeatOfSpell());
  }

  @Test
  public void aLongBatchThatReadRecordsIsNoSignOfAnEmptyBacklogUntilItEnds() {
    // Start-up at T; the first batch starts at T + 1 s, reads records and takes 40 s: no empty
    // observation in between, so no heartbeat, however long it takes.
    PeerStream.IdleRule rule = new PeerStream.IdleRule(30_000, 5_000, T);
    rule.observed(T + 1_000, true);
    assertEquals(-1, rule.heartbeat());
    // The next batch (started when the first ended) reads none of this side's records: nothing
    // was appended for 40 s, the side is idle, and the heartbeat carries that batch's start.
    rule.observed(T + 41_000, false);
    assertEquals(T + 41_000, rule.heartbeat());
  }

  @Test
  public void onlyAQueryPastItsStartThatFoundNothingIsWaitingForData() {
    assertFalse(
        PeerStream.waitingForData(new StreamingQueryStatus("Initializing sources", false, false)));
    assertTrue(
        PeerStream.waitingForData(
            new StreamingQueryStatus("Waiting for data to arrive", false, false)));
    assertTrue(
        PeerStream.waitingForData(
            new StreamingQueryStatus("Waiting for next trigger", false, false)));
    assertFalse(
        PeerStream.waitingForData(
            new StreamingQueryStatus("Waiting for next trigger", true, false)));
    assertFalse(
        PeerStream.waitingForData(new StreamingQueryStatus("Processing new data", false, true)));
  }

  @Test
  public void aKafkaSourceReadRecordsWhenItsOffsetsMovedWhateverItsRowCount() {
    String a = "{\"soak-src\":{\"0\":10,\"1\":7}}";
    String b = "{\"soak-src\":{\"0\":12,\"1\":7}}";
    assertTrue(PeerStream.readRecords(source(a, b, 0))); // rows not reported, offsets moved
    assertTrue(PeerStream.readRecords(source(a, a, 3)));
    assertFalse(PeerStream.readRecords(source(a, a, 0)));
    assertTrue(PeerStream.readRecords(source(null, a, 0))); // the first batch
  }

  private static SourceProgress source(String start, String end, long rows) {
    return new SourceProgress(
        "KafkaV2[Subscribe[soak-src]]", start, end, end, rows, 0, 0, java.util.Map.of());
  }

  @Test
  public void aHeartbeatIsAMarkerWithItsEventTime() throws Exception {
    PeerRows.InEvent e =
        PeerSteps.parse(
            new EventParser(ParseConfig.defaults()),
            PeerStream.HEARTBEAT,
            PeerStream.heartbeatLine(T));
    assertTrue(PeerSteps.isMarker(e.getSide()));
    assertEquals(T, e.getEventTime().getTime());
    assertEquals(null, e.getPayload());
    assertFalse(PeerSteps.isMarker("SOURCE"));
  }
}
