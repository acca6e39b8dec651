package io.streamrecon.json;

import static io.streamrecon.json.CanonicalJsonTest.parse;
import static io.streamrecon.json.ComparisonRulesTest.rules;
import static io.streamrecon.model.DifferenceKind.CHANGED;
import static io.streamrecon.model.DifferenceKind.ONLY_IN_SOURCE;
import static io.streamrecon.model.DifferenceKind.ONLY_IN_TARGET;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamrecon.model.Difference;
import io.streamrecon.model.Side;
import java.util.List;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.JUnit4;

/**
 * One example per rule of docs/design.md#comparison-rules: the diff under the rules, and the hashes
 * agreeing with it.
 */
@RunWith(JUnit4.class)
public class JsonDiffRulesTest {

  private static JsonDiff.Result diff(String rules, String source, String target) {
    JsonNode s = parse(source);
    JsonNode t = parse(target);
    String sBefore = s.toString();
    JsonDiff.Result result = JsonDiff.diff(s, t, rules(rules));
    assertEquals("the diff must not change its arguments", sBefore, s.toString());
    return result;
  }

  private static boolean sameHash(String rules, String source, String target) {
    ComparisonRules r = rules(rules);
    return r.sha256(parse(source), Side.SOURCE).equals(r.sha256(parse(target), Side.TARGET));
  }

  /** Asserts the diff and that equal hash holds exactly when it is empty (tolerance aside). */
  private static void check(String rules, String source, String target, Difference... expected) {
    assertEquals(List.of(expected), diff(rules, source, target).differences());
    assertEquals(expected.length == 0, sameHash(rules, source, target));
  }

  @Test
  public void renameComparesTheSourceValueAtTheTargetPathAndReportsTargetPaths() {
    String rules = "{\"rename\":{\"/customer/fullName\":\"/customer/name\"}}";
    check(rules, "{\"customer\":{\"fullName\":\"Ann\"}}", "{\"customer\":{\"name\":\"Ann\"}}");
    check(
        rules,
        "{\"customer\":{\"fullName\":\"Ann\"}}",
        "{\"customer\":{\"name\":\"Anne\"}}",
        new Difference("/customer/name", CHANGED, "\"Ann\"", "\"Anne\""));
    // Only the source is renamed: a target fullName stays where it is.
    check(
        rules,
        "{\"customer\":{\"name\":\"Ann\"}}",
        "{\"customer\":{\"fullName\":\"Ann\"}}",
        new Difference("/customer/fullName", ONLY_IN_TARGET, null, "\"Ann\""),
        new Difference("/customer/name", ONLY_IN_SOURCE, "\"Ann\"", null));
  }

  @Test
  public void renameWithWildcardsAndIntoMissingParents() {
    check(
        "{\"rename\":{\"/items/*/cost\":\"/items/*/price\",\"/zip\":\"/address/zip\"}}",
        "{\"items\":[{\"cost\":1},{\"cost\":2}],\"zip\":\"1000\"}",
        "{\"items\":[{\"price\":1},{\"price\":2.0}],\"address\":{\"zip\":\"1000\"}}");
  }

  @Test
  public void renamesDoNotChain() {
    check("{\"rename\":{\"/a\":\"/b\",\"/b\":\"/c\"}}", "{\"a\":1,\"b\":2}", "{\"b\":1,\"c\":2}");
  }

  @Test
  public void ignoreRemovesFromBothSidesWithWildcards() {
    check(
        "{\"ignore\":[\"/meta/ingestedAt\",\"/items/*/updatedAt\"]}",
        "{\"meta\":{\"ingestedAt\":1},\"items\":[{\"a\":1,\"updatedAt\":5}]}",
        "{\"meta\":{\"ingestedAt\":2},\"items\":[{\"a\":1,\"updatedAt\":6}]}");
  }

  @Test
  public void ignoreAppliesAfterRename() {
    check(
        "{\"rename\":{\"/old\":\"/new\"},\"ignore\":[\"/new\"]}",
        "{\"old\":1,\"k\":1}",
        "{\"new\":2,\"k\":1}");
  }

  @Test
  public void differencesReportValuesAsReceivedIgnoredMembersIncluded() {
    check(
        "{\"ignore\":[\"/o/ts\"],\"normalize\":{\"/o/e\":[\"lowercase\"]}}",
        "{\"o\":{\"ts\":1,\"e\":\"A@X\"}}",
        "{\"o\":[1]}",
        new Difference("/o", CHANGED, "{\"e\":\"A@X\",\"ts\":1}", "[1]"));
  }

  @Test
  public void normalizeAppliesStepsToStringsOnly() {
    String rules =
        "{\"normalize\":{\"/email\":[\"trim\",\"lowercase\"],\"/name\":[\"collapseSpaces\"]}}";
    check(
        rules,
        "{\"email\":\"  Ann@Example.COM \",\"name\":\"Ann \\t  Lee\"}",
        "{\"email\":\"ann@example.com\",\"name\":\"Ann Lee\"}");
    check(
        rules,
        "{\"email\":\"Ann@Example.COM\",\"name\":\"AnnLee\"}",
        "{\"email\":\"bob@example.com\",\"name\":\"Ann Lee\"}",
        new Difference("/email", CHANGED, "\"Ann@Example.COM\"", "\"bob@example.com\""),
        new Difference("/name", CHANGED, "\"AnnLee\"", "\"Ann Lee\""));
    check(
        rules,
        "{\"email\":5}",
        "{\"email\":\"5\"}",
        new Difference("/email", CHANGED, "5", "\"5\""));
    // Locale-independent: dotted capital I lower-cases the same everywhere.
    check(rules, "{\"email\":\"TITLE\"}", "{\"email\":\"title\"}");
  }

  @Test
  public void lenientTypesEqualStringsSpellingANumber() {
    String rules = "{\"lenientTypes\":[\"/id\",\"/items/*/qty\"]}";
    check(
        rules,
        "{\"id\":42,\"items\":[{\"qty\":\"2\"}]}",
        "{\"id\":\"42.0\",\"items\":[{\"qty\":2}]}");
    check(
        rules, "{\"id\":42}", "{\"id\":\" 42\"}", new Difference("/id", CHANGED, "42", "\" 42\""));
    check(
        rules,
        "{\"other\":42}",
        "{\"other\":\"42\"}",
        new Difference("/other", CHANGED, "42", "\"42\""));
  }

  @Test
  public void instantsEqualIsoTextAndEpochMillis() {
    String rules = "{\"instants\":[\"/createdAt\"]}";
    check(rules, "{\"createdAt\":1767225600000}", "{\"createdAt\":\"2026-01-01T00:00:00Z\"}");
    check(
        rules,
        "{\"createdAt\":\"2026-01-01T02:00:00+02:00\"}",
        "{\"createdAt\":\"2026-01-01T00:00:00.000Z\"}");
    check(
        rules,
        "{\"createdAt\":1767225600001}",
        "{\"createdAt\":\"2026-01-01T00:00:00Z\"}",
        new Difference("/createdAt", CHANGED, "1767225600001", "\"2026-01-01T00:00:00Z\""));
    check(
        rules,
        "{\"createdAt\":\"yesterday\"}",
        "{\"createdAt\":\"2026-01-01T00:00:00Z\"}",
        new Difference("/createdAt", CHANGED, "\"yesterday\"", "\"2026-01-01T00:00:00Z\""));
  }

  @Test
  public void unorderedByCanonicalFormReportsEachSidesIndex() {
    String rules = "{\"unordered\":{\"/tags\":null}}";
    check(rules, "{\"tags\":[\"a\",\"b\",\"a\"]}", "{\"tags\":[\"a\",\"a\",\"b\"]}");
    check(
        rules,
        "{\"tags\":[\"x\",\"a\",\"b\"]}",
        "{\"tags\":[\"b\",\"a\",\"a\"]}",
        new Difference("/tags/0", ONLY_IN_SOURCE, "\"x\"", null),
        new Difference("/tags/2", ONLY_IN_TARGET, null, "\"a\""));
  }

  @Test
  public void unorderedByKeyComparesMatchedElementsFieldByField() {
    String rules = "{\"unordered\":{\"/items\":\"/sku\"}}";
    check(
        rules,
        "{\"items\":[{\"sku\":\"A\",\"q\":1},{\"sku\":\"B\",\"q\":2}]}",
        "{\"items\":[{\"sku\":\"B\",\"q\":2},{\"sku\":\"A\",\"q\":1}]}");
    check(
        rules,
        "{\"items\":[{\"sku\":\"A\",\"q\":1},{\"sku\":\"B\",\"q\":2},{\"sku\":\"C\"}]}",
        "{\"items\":[{\"sku\":\"D\"},{\"sku\":\"B\",\"q\":3},{\"sku\":\"A\",\"q\":1}]}",
        new Difference("/items/0", ONLY_IN_TARGET, null, "{\"sku\":\"D\"}"),
        new Difference("/items/1/q", CHANGED, "2", "3"),
        new Difference("/items/2", ONLY_IN_SOURCE, "{\"sku\":\"C\"}", null));
  }

  @Test
  public void unorderedKeyMissingOrRepeatedFallsBackToCanonicalForm() {
    String rules = "{\"unordered\":{\"/items\":\"/sku\"}}";
    check(
        rules,
        "{\"items\":[{\"sku\":\"A\",\"q\":1},{\"sku\":\"A\",\"q\":2},{\"q\":3}]}",
        "{\"items\":[{\"q\":3},{\"sku\":\"A\",\"q\":2},{\"sku\":\"A\",\"q\":1}]}");
    check(
        rules,
        "{\"items\":[{\"sku\":\"A\",\"q\":1},{\"sku\":\"A\",\"q\":2}]}",
        "{\"items\":[{\"sku\":\"A\",\"q\":2},{\"sku\":\"A\",\"q\":5}]}",
        new Difference("/items/0", ONLY_IN_SOURCE, "{\"q\":1,\"sku\":\"A\"}", null),
        new Difference("/items/1", ONLY_IN_TARGET, null, "{\"q\":5,\"sku\":\"A\"}"));
  }

  @Test
  public void nestedUnorderedArraysAndNormalisedElements() {
    check(
        "{\"unordered\":{\"/items\":null,\"/items/*/tags\":null},"
            + "\"normalize\":{\"/items/*/tags/*\":[\"lowercase\"]}}",
        "{\"items\":[{\"tags\":[\"B\",\"a\"]},{\"tags\":[\"c\"]}]}",
        "{\"items\":[{\"tags\":[\"C\"]},{\"tags\":[\"A\",\"b\"]}]}");
  }

  @Test
  public void toleranceEqualsNumbersWithinBoundsButIsNotHashed() {
    String rules =
        "{\"tolerance\":{\"/amount\":{\"abs\":0.01},\"/items/*/price\":{\"rel\":0.001}}}";
    JsonDiff.Result within =
        diff(
            rules,
            "{\"amount\":10.00,\"items\":[{\"price\":1000}]}",
            "{\"amount\":10.01,\"items\":[{\"price\":1000.9}]}");
    assertEquals(List.of(), within.differences());
    assertEquals(2, within.withinTolerance());
    assertNotEquals(
        "tolerance cannot be hashed",
        rules(rules).sha256(parse("{\"amount\":10.00}"), Side.SOURCE),
        rules(rules).sha256(parse("{\"amount\":10.01}"), Side.TARGET));
    JsonDiff.Result outside =
        diff(rules, "{\"amount\":10.00,\"other\":1}", "{\"amount\":10.02,\"other\":1.001}");
    assertEquals(
        List.of(
            new Difference("/amount", CHANGED, "10", "10.02"),
            new Difference("/other", CHANGED, "1", "1.001")),
        outside.differences());
    assertEquals(0, outside.withinTolerance());
    // Only between two numbers.
    assertEquals(
        List.of(new Difference("/amount", CHANGED, "10", "\"10\"")),
        diff(rules, "{\"amount\":10}", "{\"amount\":\"10\"}").differences());
  }

  @Test
  public void toleranceAppliesToLenientNumbersAndInsideKeyMatchedElements() {
    JsonDiff.Result r =
        diff(
            "{\"lenientTypes\":[\"/items/*/price\"],\"unordered\":{\"/items\":\"/sku\"},"
                + "\"tolerance\":{\"/items/*/price\":{\"abs\":0.05}}}",
            "{\"items\":[{\"sku\":1,\"price\":\"9.99\"},{\"sku\":2,\"price\":5}]}",
            "{\"items\":[{\"sku\":2,\"price\":5.01},{\"sku\":1,\"price\":10}]}");
    assertEquals(List.of(), r.differences());
    assertEquals(2, r.withinTolerance());
  }

  @Test
  public void noRulesDiffIsThePlainDiff() {
    String s = "{\"a\":[1,2],\"b\":\"X\"}";
    String t = "{\"a\":[2,1],\"b\":\"x\"}";
    assertEquals(
        JsonDiff.diff(parse(s), parse(t)),
        JsonDiff.diff(parse(s), parse(t), ComparisonRules.none()).differences());
    assertEquals(JsonDiff.diff(parse(s), parse(t)), diff("{}", s, t).differences());
  }
}
