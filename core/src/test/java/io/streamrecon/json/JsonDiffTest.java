package io.streamrecon.json;

import static io.streamrecon.json.CanonicalJsonTest.parse;
import static io.streamrecon.model.DifferenceKind.CHANGED;
import static io.streamrecon.model.DifferenceKind.ONLY_IN_SOURCE;
import static io.streamrecon.model.DifferenceKind.ONLY_IN_TARGET;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamrecon.model.Difference;
import java.util.List;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.JUnit4;

@RunWith(JUnit4.class)
public class JsonDiffTest {

  private static List<Difference> diff(String source, String target) {
    return JsonDiff.diff(parse(source), parse(target));
  }

  @Test
  public void equalDocumentsHaveNoDifferences() {
    assertEquals(
        List.of(), diff("{\"a\":[1,{\"b\":null}]}", "{ \"a\" : [ 1.0 , { \"b\" : null } ] }"));
  }

  @Test
  public void changedScalar() {
    assertEquals(
        List.of(new Difference("/price", CHANGED, "10.5", "11")),
        diff("{\"id\":1,\"price\":10.50}", "{\"id\":1,\"price\":11.0}"));
  }

  @Test
  public void numbersCompareByValueStringsDoNot() {
    assertEquals(List.of(), diff("{\"n\":1,\"z\":-0}", "{\"n\":1e0,\"z\":0.0}"));
    assertEquals(
        List.of(new Difference("/n", CHANGED, "1", "\"1\"")), diff("{\"n\":1}", "{\"n\":\"1\"}"));
  }

  @Test
  public void memberOnOneSideOnly() {
    assertEquals(
        List.of(
            new Difference("/gone", ONLY_IN_SOURCE, "{\"a\":1,\"b\":2}", null),
            new Difference("/new", ONLY_IN_TARGET, null, "null")),
        diff("{\"gone\":{\"b\":2,\"a\":1}}", "{\"new\":null}"));
  }

  @Test
  public void nullIsAValueNotAbsence() {
    assertEquals(
        List.of(new Difference("/a", ONLY_IN_SOURCE, "null", null)), diff("{\"a\":null}", "{}"));
  }

  @Test
  public void recursesIntoNestedObjectsAndArrays() {
    assertEquals(
        List.of(
            new Difference("/order/lines/0/qty", CHANGED, "1", "2"),
            new Difference("/order/lines/1/sku", CHANGED, "\"B\"", "\"C\"")),
        diff(
            "{\"order\":{\"lines\":[{\"sku\":\"A\",\"qty\":1},{\"sku\":\"B\",\"qty\":1}]}}",
            "{\"order\":{\"lines\":[{\"sku\":\"A\",\"qty\":2},{\"sku\":\"C\",\"qty\":1}]}}"));
  }

  @Test
  public void longerSourceArrayGivesOneDifferencePerExtraElement() {
    assertEquals(
        List.of(
            new Difference("/a/1", CHANGED, "2", "9"),
            new Difference("/a/2", ONLY_IN_SOURCE, "3", null),
            new Difference("/a/3", ONLY_IN_SOURCE, "[4]", null)),
        diff("{\"a\":[1,2,3,[4]]}", "{\"a\":[1,9]}"));
  }

  @Test
  public void longerTargetArrayGivesOnlyInTarget() {
    assertEquals(
        List.of(
            new Difference("/a/0", ONLY_IN_TARGET, null, "{\"k\":1}"),
            new Difference("/a/1", ONLY_IN_TARGET, null, "\"x\"")),
        diff("{\"a\":[]}", "{\"a\":[{\"k\":1.0},\"x\"]}"));
  }

  @Test
  public void typeChangeIsOneChange() {
    assertEquals(
        List.of(new Difference("/a", CHANGED, "{\"b\":1}", "[1]")),
        diff("{\"a\":{\"b\":1}}", "{\"a\":[1]}"));
    assertEquals(
        List.of(new Difference("/a", CHANGED, "{}", "[]")), diff("{\"a\":{}}", "{\"a\":[]}"));
    assertEquals(
        List.of(new Difference("/a", CHANGED, "[1,2]", "\"[1,2]\"")),
        diff("{\"a\":[1,2]}", "{\"a\":\"[1,2]\"}"));
    assertEquals(
        List.of(new Difference("/a", CHANGED, "null", "{}")), diff("{\"a\":null}", "{\"a\":{}}"));
  }

  @Test
  public void rootChangeHasTheEmptyPath() {
    assertEquals(List.of(new Difference("", CHANGED, "{}", "[]")), diff("{}", "[]"));
    assertEquals(List.of(new Difference("", CHANGED, "1", "2")), diff("1", "2"));
  }

  @Test
  public void pathsEscapeTildeAndSlash() {
    // Sorted by the unescaped keys: "/" < "a/b" < "~1".
    assertEquals(
        List.of(
            new Difference("/~1", ONLY_IN_TARGET, null, "false"),
            new Difference("/a~1b/c~0d", CHANGED, "1", "2"),
            new Difference("/~01", ONLY_IN_SOURCE, "true", null)),
        diff("{\"a/b\":{\"c~d\":1},\"~1\":true}", "{\"a/b\":{\"c~d\":2},\"/\":false}"));
  }

  @Test
  public void pathsResolveBackToTheValues() {
    JsonNode source = parse("{\"a/b\":{\"c~d\":[0,{\"\":1}]},\"\uD83D\uDE00\":2}");
    JsonNode target = parse("{\"a/b\":{\"c~d\":[0,{\"\":3}]},\"\uD83D\uDE00\":4}");
    List<Difference> differences = JsonDiff.diff(source, target);
    assertEquals(2, differences.size());
    for (Difference d : differences) {
      assertEquals(d.source(), CanonicalJson.canonicalForm(source.at(d.path())));
      assertEquals(d.target(), CanonicalJson.canonicalForm(target.at(d.path())));
    }
  }

  @Test
  public void sortsNumericSegmentsNumerically() {
    StringBuilder source = new StringBuilder("[");
    StringBuilder target = new StringBuilder("[");
    for (int i = 0; i < 12; i++) {
      source.append(i == 0 ? "" : ",").append(i);
      target.append(i == 0 ? "" : ",").append(i + 100);
    }
    List<Difference> differences =
        diff(source.append("]").toString(), target.append("]").toString());
    assertEquals(12, differences.size());
    for (int i = 0; i < 12; i++) {
      assertEquals("/" + i, differences.get(i).path());
    }
  }

  @Test
  public void sortsPathsSegmentWise() {
    List<Difference> differences =
        diff(
            "{\"b\":1,\"a\":{\"10\":1,\"2\":1,\"x\":1},\"a-\":1,\"\uD83D\uDE00\":1,\"\uFFFD\":1}",
            "{\"b\":2,\"a\":{\"10\":2,\"2\":2,\"x\":2},\"a-\":2,\"\uD83D\uDE00\":2,\"\uFFFD\":2}");
    // "/a/..." before "/a-" although '/' (0x2F) > '-' (0x2D) as characters: segment-wise order.
    assertEquals(
        List.of("/a/2", "/a/10", "/a/x", "/a-", "/b", "/\uFFFD", "/\uD83D\uDE00"),
        differences.stream().map(Difference::path).toList());
  }

  @Test
  public void segmentOrderIsTotal() {
    assertTrue(JsonDiff.compareSegments("2", "10") < 0);
    assertTrue(JsonDiff.compareSegments("10", "a") < 0);
    assertTrue(JsonDiff.compareSegments("01", "1") < 0);
    assertTrue(JsonDiff.compareSegments("1", "01") > 0);
    assertTrue(JsonDiff.compareSegments("99999999999999999999", "100000000000000000000") < 0);
    assertEquals(0, JsonDiff.compareSegments("", ""));
    assertTrue(JsonDiff.compareSegments("", "0") > 0);
    assertTrue(JsonDiff.comparePaths(new String[] {"a"}, new String[] {"a", "b"}) < 0);
  }

  @Test
  public void diffsDocumentsAtTheParserDepthLimit() {
    int depth = JsonSupport.MAX_NESTING_DEPTH;
    String source = "{\"a\":".repeat(depth - 1) + "[1]" + "}".repeat(depth - 1);
    String target = "{\"a\":".repeat(depth - 1) + "[2]" + "}".repeat(depth - 1);
    List<Difference> differences = diff(source, target);
    assertEquals(1, differences.size());
    assertEquals("/a".repeat(depth - 1) + "/0", differences.get(0).path());
    String arrays = "[".repeat(depth - 1) + "1" + "]".repeat(depth - 1);
    assertEquals(List.of(), diff(arrays, arrays));
  }
}
