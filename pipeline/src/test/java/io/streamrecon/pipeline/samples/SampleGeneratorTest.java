package io.streamrecon.pipeline.samples;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

import io.streamrecon.pipeline.samples.SampleGenerator.Kind;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class SampleGeneratorTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  @Test
  public void sameSeedSameBytes() throws Exception {
    Path a = tmp.newFolder("a").toPath();
    Path b = tmp.newFolder("b").toPath();
    SampleGenerator.generate(7, 200).writeTo(a);
    SampleGenerator.generate(7, 200).writeTo(b);
    assertEquals(
        Files.readString(a.resolve("source.jsonl")), Files.readString(b.resolve("source.jsonl")));
    assertEquals(
        Files.readString(a.resolve("target.jsonl")), Files.readString(b.resolve("target.jsonl")));
    assertNotEquals(
        SampleGenerator.generate(8, 200).sourceLines(),
        SampleGenerator.generate(7, 200).sourceLines());
  }

  @Test
  public void coversEveryKindEvenWhenSmall() {
    SampleGenerator g = SampleGenerator.generate(1, 20);
    Set<Kind> kinds = EnumSet.noneOf(Kind.class);
    kinds.addAll(g.expectations().values());
    assertEquals(EnumSet.allOf(Kind.class), kinds);
    assertEquals(8, g.badLines());
    for (List<String> paths : g.mismatchPaths().values()) {
      assertTrue(paths.size() >= 1 && paths.size() <= 3);
    }
  }

  @Test
  public void bundledSamplesAreTheSeed42Output() throws Exception {
    Path samples = Path.of("..", "samples");
    SampleGenerator g = SampleGenerator.generate(42, 3000);
    assertEquals(
        g.sourceLines(),
        Files.readAllLines(samples.resolve("source.jsonl"), StandardCharsets.UTF_8));
    assertEquals(
        g.targetLines(),
        Files.readAllLines(samples.resolve("target.jsonl"), StandardCharsets.UTF_8));
  }

  @Test
  public void eventCountsFollowTheKinds() {
    SampleGenerator g = SampleGenerator.generate(3, 300);
    long singles =
        g.expectations().values().stream()
            .filter(k -> k == Kind.MISSING_IN_SOURCE || k == Kind.MISSING_IN_TARGET)
            .count();
    long pairs = g.expectations().size() - singles;
    int events = g.sourceLines().size() + g.targetLines().size() - g.badLines();
    assertTrue("every id has its events", events >= 2 * pairs + singles);
  }
}
