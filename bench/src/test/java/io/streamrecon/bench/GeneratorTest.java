package io.streamrecon.bench;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.lessThanOrEqualTo;
import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class GeneratorTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  private static final ObjectMapper MAPPER = new ObjectMapper();

  /** Numbers compare by value, as the canonical form does (docs/design.md#canonical-hash). */
  private static final Comparator<JsonNode> BY_VALUE =
      (a, b) -> {
        if (a.isNumber() && b.isNumber()) {
          return a.decimalValue().compareTo(b.decimalValue());
        }
        return a.equals(b) ? 0 : 1;
      };

  private static GeneratorConfig small() {
    return GeneratorConfig.defaults()
        .withRecords(3000)
        .withShares(0.10, 0.05, 0.05, 0.02, 0.05, 0.05)
        .withPayloadBytes(300, 2000)
        .withTiming(Duration.ofMillis(20), Duration.ofSeconds(5), 300, Duration.ofSeconds(60));
  }

  @Test
  public void sameSeedWritesSameBytesAndOtherSeedDoesNot() throws IOException {
    Path a = tmp.newFolder("a").toPath();
    Path b = tmp.newFolder("b").toPath();
    Path c = tmp.newFolder("c").toPath();
    Expected ea = new Generator(small()).generate(a);
    Expected eb = new Generator(small()).generate(b);
    new Generator(small().withSeed(7)).generate(c);
    assertEquals(ea, eb);
    List<Path> fa = Generator.files(a.resolve("source"));
    assertEquals(ea.files(), fa.size());
    for (String side : List.of("source", "target")) {
      List<Path> files = Generator.files(a.resolve(side));
      for (Path f : files) {
        assertArrayEquals(
            f.toString(),
            Files.readAllBytes(f),
            Files.readAllBytes(b.resolve(side).resolve(f.getFileName())));
      }
    }
    assertFalse(
        java.util.Arrays.equals(
            Files.readAllBytes(fa.get(0)),
            Files.readAllBytes(c.resolve("source").resolve(fa.get(0).getFileName()))));
  }

  @Test
  public void expectedCountsAgreeWithTheLinesWritten() throws IOException {
    Path dir = tmp.newFolder("d").toPath();
    Expected e = new Generator(small()).generate(dir);
    assertEquals(e, Expected.read(dir.resolve("expected.json")));

    Map<String, List<JsonNode>> sources = read(dir.resolve("source"));
    Map<String, List<JsonNode>> targets = read(dir.resolve("target"));
    assertEquals(e.sourceEvents(), sources.values().stream().mapToLong(List::size).sum());
    assertEquals(e.targetEvents(), targets.values().stream().mapToLong(List::size).sum());

    // Recompute final verdicts independently: per id, latest version of each side, compared by
    // value.
    long match = 0, mismatch = 0, mit = 0, mis = 0, dups = 0, lateIds = 0;
    java.util.Set<String> ids = new java.util.TreeSet<>(sources.keySet());
    ids.addAll(targets.keySet());
    for (String id : ids) {
      JsonNode s = latest(sources.get(id));
      JsonNode t = latest(targets.get(id));
      dups += duplicates(sources.get(id)) + duplicates(targets.get(id));
      if (id.startsWith("late-")) {
        lateIds++;
      }
      if (s == null) {
        mis++;
      } else if (t == null) {
        mit++;
      } else if (s.equals(BY_VALUE, t)) {
        match++;
      } else {
        mismatch++;
      }
    }
    VerdictCounts batch = e.batch();
    assertEquals(batch.match(), match);
    assertEquals(batch.mismatch(), mismatch);
    assertEquals(batch.missingInTarget(), mit);
    assertEquals(batch.missingInSource(), mis);
    assertEquals(batch.duplicates(), dups);
    assertEquals(e.records(), batch.verdicts());
    assertEquals(e.streaming().late(), 2 * lateIds);
    assertEquals(batch.match() - lateIds, e.streaming().match());
    // Every share shows up in a data set of this size.
    for (long n : new long[] {mismatch, mit, mis, dups, lateIds, e.earlierVersions()}) {
      assertThat(n, greaterThan(0L));
    }
  }

  @Test
  public void streamingExpectationHoldsForAWatermarkedReader() throws IOException {
    // The bare contender reads file i of both sides as micro-batch i with the config's watermark
    // delay, as the Spark peer does: late records must be late there and nothing else.
    for (GeneratorConfig config :
        List.of(small(), small().withSkew(GeneratorConfig.Skew.ZIPF, 1.1, 300))) {
      Path dir = tmp.newFolder().toPath();
      Expected e = new Generator(config).generate(dir);
      assertThat(e.streaming().late(), greaterThan(0L));
      assertEquals(config.skew().toString(), e.streaming(), new BareContender(dir, e).run());
    }
  }

  @Test
  public void targetMatchesOnlyCanonically() throws IOException {
    Path dir = tmp.newFolder("m").toPath();
    new Generator(small().withShares(0, 0, 0, 0, 0, 0)).generate(dir);
    Map<String, List<JsonNode>> sources = read(dir.resolve("source"));
    Map<String, List<JsonNode>> targets = read(dir.resolve("target"));
    String id = sources.keySet().iterator().next();
    JsonNode s = sources.get(id).get(0);
    JsonNode t = targets.get(id).get(0);
    assertTrue(s.equals(BY_VALUE, t));
    assertNotEquals(s.toString(), t.toString());
  }

  @Test
  public void disorderIsBoundedAndFilesStayAlignedInEventTime() throws IOException {
    GeneratorConfig config = small();
    Path dir = tmp.newFolder("o").toPath();
    new Generator(config).generate(dir);
    long bound = config.disorder().toMillis() + config.versionSpread().toMillis();
    for (String side : List.of("source", "target")) {
      long maxSeen = 0;
      boolean reordered = false;
      for (Path f : Generator.files(dir.resolve(side))) {
        for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
          JsonNode n = MAPPER.readTree(line);
          if (n.get("id").asText().startsWith("late-")) {
            continue;
          }
          long t = Instant.parse(n.get("eventTime").asText()).toEpochMilli();
          if (maxSeen > 0) {
            assertThat(maxSeen - t, lessThanOrEqualTo(bound));
          }
          reordered |= t < maxSeen;
          maxSeen = Math.max(maxSeen, t);
        }
      }
      assertTrue("events are shuffled", reordered);
    }
  }

  @Test
  public void zipfSkewGivesHotIdsEpisodesBeyondTheTimeout() throws IOException {
    GeneratorConfig config =
        small().withSkew(GeneratorConfig.Skew.ZIPF, 1.1, 200).withShares(0.1, 0, 0, 0, 0, 0);
    Path dir = tmp.newFolder("z").toPath();
    Expected e = new Generator(config).generate(dir);
    Map<String, List<JsonNode>> sources = read(dir.resolve("source"));
    assertThat(e.distinctIds(), lessThanOrEqualTo(200L));
    List<JsonNode> hottest =
        sources.values().stream().max(Comparator.comparingInt(List::size)).orElseThrow();
    assertThat(hottest.size(), greaterThan(3000 / 20));
    List<Long> times = new ArrayList<>();
    for (JsonNode n : hottest) {
      times.add(Instant.parse(n.get("eventTime").asText()).toEpochMilli());
    }
    times.sort(null);
    for (int i = 1; i < times.size(); i++) {
      assertThat(times.get(i) - times.get(i - 1), greaterThan(config.timeout().toMillis()));
    }
  }

  @Test
  public void producesEveryLineToItsTopic() throws IOException {
    Path dir = tmp.newFolder("k").toPath();
    Expected e = new Generator(small().withRecords(200)).generate(dir);
    MockProducer<String, String> producer =
        new MockProducer<>(true, new StringSerializer(), new StringSerializer());
    long sent = Generator.produce(dir, producer, "src", "tgt");
    assertEquals(e.events(), sent);
    assertEquals(
        e.sourceEvents(), producer.history().stream().filter(r -> r.topic().equals("src")).count());
    String first = producer.history().get(0).value();
    assertEquals(MAPPER.readTree(first).get("id").asText(), producer.history().get(0).key());
  }

  private static Map<String, List<JsonNode>> read(Path sideDir) throws IOException {
    Map<String, List<JsonNode>> byId = new HashMap<>();
    for (Path f : Generator.files(sideDir)) {
      for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
        JsonNode n = MAPPER.readTree(line);
        byId.computeIfAbsent(n.get("id").asText(), k -> new ArrayList<>()).add(n);
      }
    }
    return byId;
  }

  private static JsonNode latest(List<JsonNode> events) {
    if (events == null) {
      return null;
    }
    return events.stream()
        .max(Comparator.comparing(n -> Instant.parse(n.get("eventTime").asText())))
        .orElseThrow();
  }

  private static long duplicates(List<JsonNode> events) {
    return events == null
        ? 0
        : events.size() - events.stream().map(JsonNode::toString).distinct().count();
  }
}
