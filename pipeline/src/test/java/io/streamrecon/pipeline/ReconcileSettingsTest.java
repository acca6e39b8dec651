package io.streamrecon.pipeline;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.streamrecon.model.Side;
import io.streamrecon.transforms.deltalake.DeltaLakeIO;
import io.streamrecon.transforms.pairing.PairEvents;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.joda.time.Duration;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class ReconcileSettingsTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  private static ReconcileSettings settings(String... args) {
    return ReconcileSettings.from(PipelineOptionsFactory.fromArgs(args).as(ReconcileOptions.class));
  }

  @Test
  public void defaults() {
    ReconcileSettings s = settings("--source=a.jsonl", "--target=b.jsonl");
    assertEquals("a.jsonl", s.source().filePattern());
    assertFalse(s.source().isKafka());
    assertEquals("./warehouse", s.warehouse());
    assertEquals(List.of("/id"), s.keyFields());
    assertEquals("/eventTime", s.timeField());
    assertEquals(List.of(), s.ignoreFields());
    assertEquals(Duration.standardMinutes(10), s.timeout());
    assertEquals("the option's default is the pairing's", PairEvents.DEFAULT_TIMEOUT, s.timeout());
    assertEquals("allowed lateness defaults to the timeout", s.timeout(), s.allowedLateness());
    assertEquals(PairEvents.Expiry.EVENT_TIME, s.expiry());
    assertFalse(s.emitMatches());
    assertThat(s.runId(), startsWith("run-"));
    assertTrue(
        "the generated run id names a folder: " + s.runId(),
        io.streamrecon.deltalake.WarehouseIds.isValid(s.runId()));
    assertEquals(Duration.standardSeconds(5), s.commitInterval());
    assertEquals(Duration.standardSeconds(30), s.kafkaMaxOutOfOrderness());
    assertEquals(Duration.standardSeconds(30), s.kafkaIdleAfter());
    assertTrue(s.bounded());
    assertFalse(s.streaming());
    assertNull(s.kafkaMaxReadTime());
    assertEquals("auto-compaction is off by default", 0, s.autoCompactFiles());
  }

  @Test
  public void autoCompactTakesItsThresholdOnlyWhenOn() {
    assertEquals(50, settings("--source=a", "--target=b", "--autoCompact").autoCompactFiles());
    assertEquals(
        7,
        settings("--source=a", "--target=b", "--autoCompact=true", "--autoCompactFiles=7")
            .autoCompactFiles());
    assertEquals(
        0, settings("--source=a", "--target=b", "--autoCompactFiles=7").autoCompactFiles());
    assertError(
        "--autoCompactFiles=1 is out of range: 2 to 10000 small files per partition",
        "--source=a",
        "--target=b",
        "--autoCompact",
        "--autoCompactFiles=1");
  }

  @Test
  public void everyOption() {
    ReconcileSettings s =
        settings(
            "--source=kafka://broker1:9092,broker2:9093/orders.src",
            "--target=kafka://broker1:9092/orders_tgt",
            "--warehouse=/data/wh",
            "--keyField=/orderId, /line",
            "--timeField=",
            "--ignoreFields=/updatedAt,/meta/etag",
            "--timeout=PT1H30M",
            "--allowedLateness=2m",
            "--expiry=processing",
            "--processingGrace=45s",
            "--pairingBuckets=256",
            "--emitMatches=true",
            "--runId=nightly-1",
            "--commitInterval=500ms",
            "--kafkaProperties=security.protocol=SASL_SSL,sasl.mechanism=PLAIN",
            "--kafkaMaxOutOfOrderness=1m",
            "--kafkaReadCommitted=true",
            "--maxEventBytes=2048");
    assertEquals("broker1:9092,broker2:9093", s.source().bootstrapServers());
    assertEquals("orders.src", s.source().topic());
    assertEquals(List.of("/orderId", "/line"), s.keyFields());
    assertEquals("", s.timeField());
    assertEquals(List.of("/updatedAt", "/meta/etag"), s.ignoreFields());
    assertEquals(Duration.standardMinutes(90), s.timeout());
    assertEquals(Duration.standardMinutes(2), s.allowedLateness());
    assertEquals(PairEvents.Expiry.PROCESSING_TIME, s.expiry());
    assertEquals(Duration.standardSeconds(45), s.processingGrace());
    assertEquals(256, s.pairingBuckets());
    assertTrue(s.emitMatches());
    assertEquals("nightly-1", s.runId());
    assertEquals(Duration.millis(500), s.commitInterval());
    assertEquals(
        Map.of("security.protocol", "SASL_SSL", "sasl.mechanism", "PLAIN"), s.kafkaProperties());
    assertEquals(Duration.standardMinutes(1), s.kafkaMaxOutOfOrderness());
    assertTrue(s.kafkaReadCommitted());
    assertEquals(2048, s.maxEventBytes());
    assertFalse(s.bounded());
    assertTrue("unbounded Kafka runs in streaming mode", s.streaming());
  }

  @Test
  public void sparkStreamingExpiresOnEventTimeUnlessProcessingIsAsked() {
    ReconcileOptions o = kafkaRun();
    o.setRunner(FakeSparkRunner.class);
    assertTrue(ReconcileSettings.from(o).runner().polledWatermark());
    assertEquals(PairEvents.Expiry.EVENT_TIME, ReconcileSettings.from(o).expiry());
    o.setExpiry("processing");
    assertEquals(PairEvents.Expiry.PROCESSING_TIME, ReconcileSettings.from(o).expiry());
    o.setExpiry("");
    o.setKafkaMaxRecords(10);
    assertFalse(
        "bounded Spark runs are batch", ReconcileSettings.from(o).runner().polledWatermark());
    assertEquals(PairEvents.Expiry.EVENT_TIME, ReconcileSettings.from(o).expiry());
  }

  @Test
  public void sparkStreamingCommitsEachMicroBatchUnlessAnIntervalIsGiven() {
    ReconcileOptions o = kafkaRun();
    o.setRunner(FakeSparkRunner.class);
    assertEquals(DeltaLakeIO.COMMIT_EACH_MICRO_BATCH, ReconcileSettings.from(o).commitInterval());
    ReconcileOptions given = kafkaRun("--commitInterval=2s");
    given.setRunner(FakeSparkRunner.class);
    assertEquals(Duration.standardSeconds(2), ReconcileSettings.from(given).commitInterval());
    o.setKafkaMaxRecords(10);
    assertEquals(
        "a bounded Spark run keeps the default",
        Duration.standardSeconds(5),
        ReconcileSettings.from(o).commitInterval());
  }

  @Test
  public void rawEventsCommitEachMicroBatchOnSparkStreamingWithEventTimeExpiry() {
    ReconcileOptions spark = kafkaRun("--commitInterval=2s");
    spark.setRunner(FakeSparkRunner.class);
    ReconcileSettings s = ReconcileSettings.from(spark);
    assertEquals(Duration.standardSeconds(2), s.commitInterval());
    assertEquals(DeltaLakeIO.COMMIT_EACH_MICRO_BATCH, s.rawCommitInterval());

    spark.setExpiry("processing");
    assertEquals(
        "wall-clock expiry reads no watermark: the given interval stands",
        Duration.standardSeconds(2),
        ReconcileSettings.from(spark).rawCommitInterval());

    ReconcileOptions direct = kafkaRun("--commitInterval=2s");
    assertEquals(
        "a runner whose commit step holds the watermark keeps the given interval",
        Duration.standardSeconds(2),
        ReconcileSettings.from(direct).rawCommitInterval());
  }

  @Test
  public void kafkaPropertiesFileIsOverriddenInline() throws Exception {
    File f = tmp.newFile("consumer.properties");
    Files.writeString(
        f.toPath(),
        "security.protocol=SSL\nssl.truststore.location=/etc/ts.jks\ngroup.id=from-file\n",
        StandardCharsets.UTF_8);
    ReconcileSettings s =
        settings(
            "--source=a",
            "--target=b",
            "--kafkaPropertiesFile=" + f,
            "--kafkaProperties=group.id=inline,ssl.enabled.protocols=\"TLSv1.3, TLSv1.2\"");
    assertEquals("SSL", s.kafkaProperties().get("security.protocol"));
    assertEquals("/etc/ts.jks", s.kafkaProperties().get("ssl.truststore.location"));
    assertEquals("inline", s.kafkaProperties().get("group.id"));
    assertEquals("TLSv1.3, TLSv1.2", s.kafkaProperties().get("ssl.enabled.protocols"));
  }

  @Test
  public void errorsNameTheOptionAndTheRange() {
    assertError("--source is required", "--target=b");
    assertError(
        "--target=kafka://nohost/t is not a Kafka address",
        "--source=a",
        "--target=kafka://nohost/t");
    assertError(
        "--keyField: 'id' is not a JSON Pointer", "--source=a", "--target=b", "--keyField=id");
    assertError("--timeField: 'ts'", "--source=a", "--target=b", "--timeField=ts");
    assertError(
        "--timeout=0s is too short: must be at least 1ms",
        "--source=a",
        "--target=b",
        "--timeout=0s");
    assertError(
        "--allowedLateness=soon is not a duration",
        "--source=a",
        "--target=b",
        "--allowedLateness=soon");
    assertError(
        "--expiry=wall is not valid: event, processing",
        "--source=a",
        "--target=b",
        "--expiry=wall");
    assertError(
        "--pairingBuckets=0 is out of range: 1 to 65536",
        "--source=a",
        "--target=b",
        "--pairingBuckets=0");
    assertError(
        "--maxEventBytes=0 is out of range: 1 to 67108864",
        "--source=a",
        "--target=b",
        "--maxEventBytes=0");
    assertError("--runId=a b is not valid", "--source=a", "--target=b", "--runId=a b");
    for (String id : new String[] {"..", ".", "a:b", "a/b", "-a"}) {
      assertError(
          "--runId=" + id + " is not valid: " + io.streamrecon.deltalake.WarehouseIds.FORM,
          "--source=a",
          "--target=b",
          "--runId=" + id);
    }
    assertError(
        "--kafkaProperties: item 1 is not key=value",
        "--source=a",
        "--target=b",
        "--kafkaProperties=nonsense");
    assertError(
        "--kafkaProperties: sasl.jaas.config is a secret",
        "--source=a",
        "--target=b",
        "--kafkaProperties=sasl.jaas.config=x");
    assertError(
        "--kafkaPropertiesFile=/no/such/file: no such file",
        "--source=a",
        "--target=b",
        "--kafkaPropertiesFile=/no/such/file");
    assertError(
        "--kafkaMaxRecords=-1 must be 0", "--source=a", "--target=b", "--kafkaMaxRecords=-1");
  }

  @Test
  public void kafkaIdleAfterIsBetweenOneSecondAndOneHour() {
    assertEquals(
        Duration.standardMinutes(2),
        settings("--source=a", "--target=b", "--kafkaIdleAfter=2m").kafkaIdleAfter());
    assertError(
        "--kafkaIdleAfter=500ms is too short: must be at least 1s",
        "--source=a",
        "--target=b",
        "--kafkaIdleAfter=500ms");
    assertError(
        "--kafkaIdleAfter=2h is too long: must be at most 1h",
        "--source=a",
        "--target=b",
        "--kafkaIdleAfter=2h");
  }

  @Test
  public void appendLagsAreObservedUnlessDeclared() {
    ReconcileSettings s = settings("--source=a", "--target=b");
    assertNull(s.appendLag(Side.SOURCE));
    assertNull(s.appendLag(Side.TARGET));
    ReconcileSettings declared =
        settings("--source=a", "--target=b", "--targetLag=6h", "--sourceLag=0s");
    assertEquals(Duration.standardHours(6), declared.appendLag(Side.TARGET));
    assertEquals("0s is declared, not observed", Duration.ZERO, declared.appendLag(Side.SOURCE));
    assertEquals(
        Duration.standardDays(7),
        settings("--source=a", "--target=b", "--sourceLag=P7D").appendLag(Side.SOURCE));
  }

  @Test
  public void appendLagsAreZeroToSevenDays() {
    assertError(
        "--targetLag=8d is too long: must be 0s to 7d, or empty to observe the lag",
        "--source=a",
        "--target=b",
        "--targetLag=8d");
    assertError("--sourceLag=-1m is not a duration", "--source=a", "--target=b", "--sourceLag=-1m");
    assertError(
        "--sourceLag=soon is not a duration", "--source=a", "--target=b", "--sourceLag=soon");
  }

  @Test
  public void pairingBucketsDefaultTo64OnTheDirectRunnerAnd1024Elsewhere() {
    assertEquals(64, settings("--source=a", "--target=b").pairingBuckets());
    assertEquals(
        1024, settings("--source=a", "--target=b", "--pairingBuckets=1024").pairingBuckets());
    ReconcileOptions spark =
        PipelineOptionsFactory.fromArgs("--source=a", "--target=b").as(ReconcileOptions.class);
    spark.setRunner(FakeSparkRunner.class);
    assertEquals(1024, ReconcileSettings.from(spark).pairingBuckets());
  }

  @Test
  public void pairingBucketsDefaultTo4096OnSparkStreaming() {
    ReconcileOptions o = kafkaRun();
    o.setRunner(FakeSparkRunner.class);
    assertEquals(4096, ReconcileSettings.from(o).pairingBuckets());
    ReconcileOptions given = kafkaRun("--pairingBuckets=1024");
    given.setRunner(FakeSparkRunner.class);
    assertEquals(1024, ReconcileSettings.from(given).pairingBuckets());
  }

  /** Options of an unbounded run from two Kafka topics, plus {@code extra}. */
  private static ReconcileOptions kafkaRun(String... extra) {
    List<String> args =
        new ArrayList<>(
            List.of("--source=kafka://localhost:9092/a", "--target=kafka://localhost:9092/b"));
    args.addAll(List.of(extra));
    return PipelineOptionsFactory.fromArgs(args.toArray(String[]::new)).as(ReconcileOptions.class);
  }

  private static void assertError(String expected, String... args) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> settings(args));
    assertThat(e.getMessage(), containsString(expected));
  }
}
