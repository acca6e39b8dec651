package io.streamrecon.pipeline.samples;

import static org.junit.Assert.assertEquals;

import io.streamrecon.json.ComparisonRules;
import io.streamrecon.json.EventParser;
import io.streamrecon.json.JsonDiff;
import io.streamrecon.json.JsonSupport;
import io.streamrecon.json.ParseConfig;
import io.streamrecon.model.Origin;
import io.streamrecon.model.RawInput;
import io.streamrecon.model.Side;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.joda.time.Instant;
import org.junit.Test;

/**
 * The committed migration sample is what {@link RulesSample} generates, and under {@code
 * samples/rules.json} only the orders meant to differ do: each one as a hash mismatch with a
 * non-empty diff, the cent-off totals as hash mismatches with an empty diff (tolerance), and all
 * the others with equal hashes.
 */
public class RulesSampleTest {
  private static final Path SAMPLES = Path.of("..", "samples");
  static final long SEED = 7;
  static final int ORDERS = 400;

  @Test
  public void committedSampleIsTheGeneratedOne() throws Exception {
    RulesSample s = RulesSample.generate(SEED, ORDERS);
    assertEquals(
        s.legacyLines(),
        Files.readAllLines(SAMPLES.resolve("rules/legacy.jsonl"), StandardCharsets.UTF_8));
    assertEquals(
        s.replacementLines(),
        Files.readAllLines(SAMPLES.resolve("rules/replacement.jsonl"), StandardCharsets.UTF_8));
  }

  @Test
  public void onlyTheRealDifferencesRemainUnderTheRules() throws Exception {
    ComparisonRules rules = ComparisonRules.fromFile(SAMPLES.resolve("rules.json").toString());
    EventParser parser = new EventParser(ParseConfig.defaults(), rules);
    EventParser plain = new EventParser(ParseConfig.defaults());
    RulesSample s = RulesSample.generate(SEED, ORDERS);
    int hashEqual = 0;
    int withinTolerance = 0;
    int real = 0;
    int plainEqual = 0;
    for (int i = 0; i < ORDERS; i++) {
      byte[] l = s.legacyLines().get(i).getBytes(StandardCharsets.UTF_8);
      byte[] r = s.replacementLines().get(i).getBytes(StandardCharsets.UTF_8);
      String ls = parser.parse(raw(Side.SOURCE, l)).sha256();
      String rs = parser.parse(raw(Side.TARGET, r)).sha256();
      if (plain
          .parse(raw(Side.SOURCE, l))
          .sha256()
          .equals(plain.parse(raw(Side.TARGET, r)).sha256())) {
        plainEqual++;
      }
      JsonDiff.Result diff = JsonDiff.diff(JsonSupport.parse(l), JsonSupport.parse(r), rules);
      int order = i + 1;
      if (ls.equals(rs)) {
        hashEqual++;
        assertEquals(List.of(), diff.differences());
      } else if (diff.differences().isEmpty()) {
        withinTolerance++;
        assertEquals("order " + order, 0, order % RulesSample.CENT_OFF_EVERY);
      } else {
        real++;
        assertEquals(
            "order " + order + ": " + diff.differences(),
            0,
            order % RulesSample.REAL_DIFFERENCE_EVERY);
      }
    }
    assertEquals(0, plainEqual);
    assertEquals(ORDERS / RulesSample.REAL_DIFFERENCE_EVERY, real);
    assertEquals(ORDERS, hashEqual + withinTolerance + real);
  }

  private static RawInput raw(Side side, byte[] bytes) {
    return new RawInput(side, bytes, Origin.fileLine("x", 1), new Instant(0));
  }
}
