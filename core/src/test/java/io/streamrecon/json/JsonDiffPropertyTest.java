package io.streamrecon.json;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.greaterThan;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.fail;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamrecon.model.Difference;
import io.streamrecon.model.DifferenceKind;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.JUnit4;

/**
 * Generated document pairs (fixed seed) check that the hash and the diff agree, against a third,
 * independent notion of equality computed on the generator's own model.
 *
 * <p>Each pair is one model rendered twice as JSON text, each time with its own key order,
 * whitespace, number spelling ({@code 1}, {@code 1.0}, {@code 1e0}, {@code 10E-1}, {@code -0}) and
 * string escaping, and with probability 3/4 a small mutation applied to the second model.
 */
@RunWith(JUnit4.class)
public class JsonDiffPropertyTest {
  private static final int PAIRS = 4000;

  private static final String[] KEYS = {
    "a",
    "b",
    "id",
    "10",
    "2",
    "",
    "a/b",
    "m~n",
    "~1",
    "/",
    "é",
    "\uD83D\uDE00",
    "\uFFFD",
    "\uE000",
    "key with space"
  };
  private static final String[] STRINGS = {
    "",
    "x",
    "1",
    "a\"b",
    "back\\slash",
    "tab\tline\n",
    "\u0001",
    "é",
    "\uD83D\uDE00",
    "\u2028",
    "true"
  };
  private static final BigDecimal[] NUMBERS = {
    new BigDecimal("0"),
    new BigDecimal("1"),
    new BigDecimal("-1"),
    new BigDecimal("10"),
    new BigDecimal("0.5"),
    new BigDecimal("1.25"),
    new BigDecimal("-7.125"),
    new BigDecimal("1e21"),
    new BigDecimal("1e-7"),
    new BigDecimal("123456789012345678901234567890"),
    new BigDecimal("1e400"),
    new BigDecimal("9007199254740993")
  };

  /** A number in the model: its value only. */
  private record Num(BigDecimal value) {}

  @Test
  public void hashEqualityAgreesWithEmptyDiffAndWithModelEquality() {
    Random random = new Random(20261129L);
    int equalPairs = 0;
    int differentPairs = 0;
    for (int i = 0; i < PAIRS; i++) {
      Object model = randomValue(random, 0, true);
      Object other = random.nextInt(4) == 0 ? deepCopy(model) : mutate(deepCopy(model), random);
      String textA = render(model, random);
      String textB = render(other, random);
      JsonNode a = parse(textA);
      JsonNode b = parse(textB);

      boolean sameHash = CanonicalJson.sha256(a).equals(CanonicalJson.sha256(b));
      List<Difference> ab = JsonDiff.diff(a, b);
      boolean expectedEqual = modelEquals(model, other);
      String context = "pair " + i + ":\n  " + textA + "\n  " + textB + "\n  " + ab;

      assertEquals("hash vs model, " + context, expectedEqual, sameHash);
      assertEquals("hash vs diff, " + context, sameHash, ab.isEmpty());
      assertEquals("diff(a,a), " + context, List.of(), JsonDiff.diff(a, a));
      assertEquals("diff(b,a) mirrors diff(a,b), " + context, mirror(ab), JsonDiff.diff(b, a));
      checkPathsResolve(a, b, ab, context);
      if (sameHash) {
        equalPairs++;
      } else {
        differentPairs++;
      }
    }
    // Both sides of the equivalence must have been exercised substantially.
    assertThat(equalPairs, greaterThan(PAIRS / 5));
    assertThat(differentPairs, greaterThan(PAIRS / 2));
  }

  // ------------------------------------------------------------------ under comparison rules

  private static final int RULE_PAIRS = 6000;
  private static final String[] RULE_KEYS = {"a", "b", "id", "sku", "tags", "t"};
  private static final String[] RULE_SEGMENTS = {"a", "b", "id", "sku", "tags", "t", "*", "*", "0"};
  private static final String[] RULE_STRINGS = {
    "A",
    "a",
    " a ",
    "a  b",
    "a\tb",
    "42",
    "42.0",
    "-1e2",
    " 7",
    "2026-01-01T00:00:00Z",
    "2026-01-01T01:00:00+01:00",
    "x"
  };
  private static final String[] RULE_NUMBERS = {"42", "-100", "1767225600000", "0.5", "1.004", "1"};

  /**
   * Under random rules (tolerance off), the hashes of the normalised documents are equal exactly
   * when the diff under the rules is empty; with tolerance on, equal hashes still give an empty
   * diff; every reported value is a value of that side's document as received
   * (docs/design.md#comparison-rules).
   */
  @Test
  public void underRandomRulesEqualHashIffEmptyDiff() {
    Random random = new Random(20261130L);
    int equal = 0;
    int different = 0;
    int withinTolerance = 0;
    com.fasterxml.jackson.databind.ObjectMapper mapper = JsonSupport.mapper();
    for (int i = 0; i < RULE_PAIRS; i++) {
      String rulesText = randomRules(random);
      ComparisonRules rules = ComparisonRules.parse(rulesText.getBytes(StandardCharsets.UTF_8));
      ComparisonRules noTolerance = withoutTolerance(rulesText);
      JsonNode source = ruleValue(random, 0, true);
      JsonNode target = source.deepCopy();
      if (random.nextBoolean()) {
        // Move values where the renames expect them in the target.
        RulesNormalizer.normalize(target, renamesOnly(rulesText), true, null);
      }
      perturb(target, random);
      if (random.nextInt(3) == 0) {
        target = parse(render(mutate(toModel(target), random), random));
      }
      String sText = source.toString();
      String tText = target.toString();
      String sHash = noTolerance.sha256(parse(sText), io.streamrecon.model.Side.SOURCE);
      String tHash = noTolerance.sha256(parse(tText), io.streamrecon.model.Side.TARGET);
      JsonDiff.Result strict = JsonDiff.diff(parse(sText), parse(tText), noTolerance);
      JsonDiff.Result tolerant = JsonDiff.diff(parse(sText), parse(tText), rules);
      String context =
          "pair "
              + i
              + ":\n  rules "
              + rulesText
              + "\n  "
              + sText
              + "\n  "
              + tText
              + "\n  "
              + strict.differences();
      boolean sameHash = sHash.equals(tHash);
      assertEquals(
          "hash vs diff under rules, " + context, sameHash, strict.differences().isEmpty());
      assertEquals(
          "rules hash = tolerance-free hash, " + context,
          sHash,
          rules.sha256(parse(sText), io.streamrecon.model.Side.SOURCE));
      if (sameHash) {
        assertEquals(
            "equal hash, empty diff with tolerance, " + context, List.of(), tolerant.differences());
        equal++;
      } else {
        different++;
        if (tolerant.differences().isEmpty()) {
          withinTolerance++;
        }
      }
      assertEquals(
          "diff(a,a) under rules, " + context,
          List.of(),
          JsonDiff.diff(parse(sText), parse(sText), withoutRenames(rulesText)).differences());
      java.util.Set<String> sValues = subtrees(parse(sText));
      java.util.Set<String> tValues = subtrees(parse(tText));
      for (Difference d : tolerant.differences()) {
        if (d.source() != null && !createdByRename(rules, d.path())) {
          assertEquals("source value as received, " + context, true, sValues.contains(d.source()));
        }
        if (d.target() != null) {
          assertEquals("target value as received, " + context, true, tValues.contains(d.target()));
        }
      }
    }
    assertThat(equal, greaterThan(RULE_PAIRS / 5));
    assertThat(different, greaterThan(RULE_PAIRS / 5));
    assertThat(withinTolerance, greaterThan(0));
  }

  /**
   * Whether a path is a parent that a rename created in the source (its target path ran through a
   * member the source did not have): it has no value as received, so its normalised value is shown.
   */
  private static boolean createdByRename(ComparisonRules rules, String path) {
    if (path.isEmpty()) {
      return false;
    }
    String[] segments = path.substring(1).split("/", -1);
    for (ComparisonRules.Rename r : rules.rename()) {
      String[] to = r.to().text().substring(1).split("/", -1);
      if (segments.length < to.length) {
        boolean prefix = true;
        for (int i = 0; i < segments.length; i++) {
          prefix &= to[i].equals("*") || to[i].equals(segments[i]);
        }
        if (prefix) {
          return true;
        }
      }
    }
    return false;
  }

  private static String randomRules(Random random) {
    StringBuilder sb = new StringBuilder("{");
    List<String> members = new ArrayList<>();
    if (random.nextInt(3) == 0) {
      members.add("\"ignore\":[\"" + randomPattern(random) + "\"]");
    }
    if (random.nextInt(3) == 0) {
      String from = randomPattern(random);
      StringBuilder to = new StringBuilder();
      for (String seg : from.substring(1).split("/")) {
        to.append('/').append(seg.equals("*") ? "*" : RULE_KEYS[random.nextInt(RULE_KEYS.length)]);
      }
      members.add("\"rename\":{\"" + from + "\":\"" + to + "\"}");
    }
    if (random.nextInt(2) == 0) {
      String key =
          switch (random.nextInt(3)) {
            case 0 -> "null";
            case 1 -> "\"/sku\"";
            default -> "\"/a\"";
          };
      String path = randomPattern(random);
      members.add(
          "\"unordered\":{\""
              + path
              + "\":"
              + key
              + (path.equals("/tags") ? "" : ",\"/tags\":null")
              + "}");
    }
    if (random.nextInt(2) == 0) {
      String path = randomPattern(random);
      members.add(
          "\"tolerance\":{\""
              + path
              + "\":{\"abs\":0.01}"
              + (path.equals("/b") ? "" : ",\"/b\":{\"rel\":0.01}")
              + "}");
    }
    if (random.nextInt(2) == 0) {
      members.add("\"lenientTypes\":[\"" + randomPattern(random) + "\",\"/id\"]");
    }
    if (random.nextInt(2) == 0) {
      String path = randomPattern(random);
      members.add(
          "\"normalize\":{\""
              + path
              + "\":[\"trim\",\"lowercase\"]"
              + (path.equals("/*/*") ? "" : ",\"/*/*\":[\"collapseSpaces\"]")
              + "}");
    }
    if (random.nextInt(3) == 0) {
      members.add("\"instants\":[\"" + randomPattern(random) + "\",\"/t\"]");
    }
    sb.append(String.join(",", members));
    return sb.append('}').toString();
  }

  private static String randomPattern(Random random) {
    StringBuilder sb = new StringBuilder();
    int depth = 1 + random.nextInt(3);
    for (int d = 0; d < depth; d++) {
      sb.append('/').append(RULE_SEGMENTS[random.nextInt(RULE_SEGMENTS.length)]);
    }
    return sb.toString();
  }

  private static ComparisonRules withoutTolerance(String rulesText) {
    JsonNode root = parse(rulesText);
    ((com.fasterxml.jackson.databind.node.ObjectNode) root).remove("tolerance");
    return ComparisonRules.parse(root.toString().getBytes(StandardCharsets.UTF_8));
  }

  private static ComparisonRules withoutRenames(String rulesText) {
    JsonNode root = parse(rulesText);
    ((com.fasterxml.jackson.databind.node.ObjectNode) root).remove("rename");
    return ComparisonRules.parse(root.toString().getBytes(StandardCharsets.UTF_8));
  }

  private static ComparisonRules renamesOnly(String rulesText) {
    JsonNode rename = parse(rulesText).get("rename");
    return ComparisonRules.parse(
        ("{\"rename\":" + (rename == null ? "{}" : rename.toString()) + "}")
            .getBytes(StandardCharsets.UTF_8));
  }

  private static JsonNode ruleValue(Random random, int depth, boolean root) {
    com.fasterxml.jackson.databind.node.JsonNodeFactory f =
        com.fasterxml.jackson.databind.node.JsonNodeFactory.instance;
    int kind = root ? 0 : random.nextInt(depth >= 3 ? 3 : 5);
    switch (kind) {
      case 0, 3 -> {
        com.fasterxml.jackson.databind.node.ObjectNode o = f.objectNode();
        int size = random.nextInt(root ? 5 : 4);
        for (int i = 0; i < size; i++) {
          o.set(RULE_KEYS[random.nextInt(RULE_KEYS.length)], ruleValue(random, depth + 1, false));
        }
        return o;
      }
      case 4 -> {
        com.fasterxml.jackson.databind.node.ArrayNode a = f.arrayNode();
        int size = random.nextInt(4);
        for (int i = 0; i < size; i++) {
          a.add(ruleValue(random, depth + 1, false));
        }
        return a;
      }
      case 1 -> {
        return f.numberNode(new BigDecimal(RULE_NUMBERS[random.nextInt(RULE_NUMBERS.length)]));
      }
      default -> {
        return random.nextInt(6) == 0
            ? f.nullNode()
            : f.textNode(RULE_STRINGS[random.nextInt(RULE_STRINGS.length)]);
      }
    }
  }

  /** Changes that some rule may or may not forgive: case, spaces, types, order, instants. */
  private static void perturb(JsonNode node, Random random) {
    if (node instanceof com.fasterxml.jackson.databind.node.ArrayNode array) {
      if (array.size() > 1 && random.nextInt(3) == 0) {
        List<JsonNode> elements = new ArrayList<>();
        array.forEach(elements::add);
        Collections.shuffle(elements, random);
        array.removeAll();
        array.addAll(elements);
      }
      for (int i = 0; i < array.size(); i++) {
        JsonNode changed = perturbScalar(array.get(i), random);
        if (changed != null) {
          array.set(i, changed);
        } else {
          perturb(array.get(i), random);
        }
      }
    } else if (node instanceof com.fasterxml.jackson.databind.node.ObjectNode object) {
      List<String> names = new ArrayList<>();
      object.fieldNames().forEachRemaining(names::add);
      for (String name : names) {
        JsonNode changed = perturbScalar(object.get(name), random);
        if (changed != null) {
          object.set(name, changed);
        } else {
          perturb(object.get(name), random);
        }
      }
    }
  }

  private static JsonNode perturbScalar(JsonNode v, Random random) {
    com.fasterxml.jackson.databind.node.JsonNodeFactory f =
        com.fasterxml.jackson.databind.node.JsonNodeFactory.instance;
    if (random.nextInt(4) != 0) {
      return null;
    }
    if (v.isTextual()) {
      String s = v.textValue();
      return switch (random.nextInt(4)) {
        case 0 -> f.textNode(s.toUpperCase(java.util.Locale.ROOT));
        case 1 -> f.textNode("  " + s + " ");
        case 2 -> s.equals("2026-01-01T00:00:00Z") ? f.numberNode(1767225600000L) : null;
        default -> f.textNode(s.replace(" ", "   "));
      };
    }
    if (v.isNumber()) {
      BigDecimal d = v.decimalValue();
      return switch (random.nextInt(3)) {
        case 0 -> f.textNode(d.toPlainString());
        case 1 -> f.numberNode(d.add(new BigDecimal("0.005")));
        default -> d.longValue() == 1767225600000L ? f.textNode("2026-01-01T00:00:00Z") : null;
      };
    }
    return null;
  }

  /** The generator model of a parsed tree, for {@link #mutate}. */
  private static Object toModel(JsonNode node) {
    if (node.isObject()) {
      Map<String, Object> map = new LinkedHashMap<>();
      node.fields().forEachRemaining(e -> map.put(e.getKey(), toModel(e.getValue())));
      return map;
    }
    if (node.isArray()) {
      List<Object> list = new ArrayList<>();
      node.forEach(e -> list.add(toModel(e)));
      return list;
    }
    if (node.isNumber()) {
      return new Num(node.decimalValue());
    }
    if (node.isTextual()) {
      return node.textValue();
    }
    return node.isBoolean() ? (Object) node.booleanValue() : null;
  }

  /** The canonical form of every value in a tree. */
  private static java.util.Set<String> subtrees(JsonNode root) {
    java.util.Set<String> out = new java.util.HashSet<>();
    java.util.Deque<JsonNode> work = new java.util.ArrayDeque<>();
    work.push(root);
    while (!work.isEmpty()) {
      JsonNode n = work.pop();
      out.add(CanonicalJson.canonicalForm(n));
      n.forEach(work::push);
    }
    return out;
  }

  private static JsonNode parse(String text) {
    try {
      return JsonSupport.parse(text.getBytes(StandardCharsets.UTF_8));
    } catch (InvalidEventException e) {
      throw new AssertionError("generated text does not parse: " + e.getMessage() + "\n" + text);
    }
  }

  private static List<Difference> mirror(List<Difference> differences) {
    List<Difference> mirrored = new ArrayList<>();
    for (Difference d : differences) {
      DifferenceKind kind =
          switch (d.kind()) {
            case CHANGED -> DifferenceKind.CHANGED;
            case ONLY_IN_SOURCE -> DifferenceKind.ONLY_IN_TARGET;
            case ONLY_IN_TARGET -> DifferenceKind.ONLY_IN_SOURCE;
            case SOURCE_PAYLOAD_DELETED -> DifferenceKind.TARGET_PAYLOAD_DELETED;
            case TARGET_PAYLOAD_DELETED -> DifferenceKind.SOURCE_PAYLOAD_DELETED;
          };
      mirrored.add(new Difference(d.path(), kind, d.target(), d.source()));
    }
    return mirrored;
  }

  /** Each path addresses exactly the values reported, and sorted order is strict. */
  private static void checkPathsResolve(
      JsonNode a, JsonNode b, List<Difference> differences, String context) {
    String previous = null;
    for (Difference d : differences) {
      JsonNode inA = a.at(d.path());
      JsonNode inB = b.at(d.path());
      if (d.kind() == DifferenceKind.ONLY_IN_TARGET) {
        assertEquals(context, true, inA.isMissingNode());
        assertNull(context, d.source());
      } else {
        assertEquals(context, d.source(), CanonicalJson.canonicalForm(inA));
      }
      if (d.kind() == DifferenceKind.ONLY_IN_SOURCE) {
        assertEquals(context, true, inB.isMissingNode());
        assertNull(context, d.target());
      } else {
        assertEquals(context, d.target(), CanonicalJson.canonicalForm(inB));
      }
      if (previous != null && previous.equals(d.path())) {
        fail("duplicate path " + d.path() + ", " + context);
      }
      previous = d.path();
    }
  }

  // ------------------------------------------------------------------ the model

  private static Object randomValue(Random random, int depth, boolean root) {
    int kind = root ? random.nextInt(10) < 8 ? 0 : 1 : random.nextInt(depth >= 3 ? 4 : 7);
    return switch (kind) {
      case 0, 4 -> {
        Map<String, Object> object = new LinkedHashMap<>();
        int size = random.nextInt(5);
        for (int i = 0; i < size; i++) {
          object.put(KEYS[random.nextInt(KEYS.length)], randomValue(random, depth + 1, false));
        }
        yield object;
      }
      case 1, 5 -> {
        List<Object> array = new ArrayList<>();
        int size = random.nextInt(4);
        for (int i = 0; i < size; i++) {
          array.add(randomValue(random, depth + 1, false));
        }
        yield array;
      }
      case 2 -> new Num(NUMBERS[random.nextInt(NUMBERS.length)]);
      case 3 -> STRINGS[random.nextInt(STRINGS.length)];
      default ->
          switch (random.nextInt(3)) {
            case 0 -> Boolean.TRUE;
            case 1 -> Boolean.FALSE;
            default -> null;
          };
    };
  }

  @SuppressWarnings("unchecked")
  private static Object deepCopy(Object value) {
    if (value instanceof Map<?, ?> map) {
      Map<String, Object> copy = new LinkedHashMap<>();
      map.forEach((k, v) -> copy.put((String) k, deepCopy(v)));
      return copy;
    }
    if (value instanceof List<?> list) {
      List<Object> copy = new ArrayList<>();
      list.forEach(v -> copy.add(deepCopy(v)));
      return copy;
    }
    return value;
  }

  /** One small change somewhere in the value; may by chance leave it equal. */
  @SuppressWarnings("unchecked")
  private static Object mutate(Object value, Random random) {
    // Walk down a random path, sometimes stopping early.
    List<Object> containers = new ArrayList<>();
    collectContainers(value, containers);
    if (containers.isEmpty() || random.nextInt(10) == 0) {
      return randomValue(random, 0, false);
    }
    Object target = containers.get(random.nextInt(containers.size()));
    if (target instanceof Map<?, ?> raw) {
      Map<String, Object> map = (Map<String, Object>) raw;
      List<String> keys = new ArrayList<>(map.keySet());
      int op = keys.isEmpty() ? 0 : random.nextInt(5);
      switch (op) {
        case 0 -> map.put(KEYS[random.nextInt(KEYS.length)], randomValue(random, 2, false));
        case 1 -> map.remove(keys.get(random.nextInt(keys.size())));
        case 2 -> map.put(keys.get(random.nextInt(keys.size())), randomValue(random, 2, false));
        case 3 -> {
          String key = keys.get(random.nextInt(keys.size()));
          map.put(key, flipType(map.get(key)));
        }
        default -> {
          String key = keys.get(random.nextInt(keys.size()));
          map.put(key, numberToString(map.get(key)));
        }
      }
    } else {
      List<Object> list = (List<Object>) target;
      int op = list.isEmpty() ? 0 : random.nextInt(5);
      switch (op) {
        case 0 -> list.add(randomValue(random, 2, false));
        case 1 -> list.remove(list.size() - 1);
        case 2 -> list.set(random.nextInt(list.size()), randomValue(random, 2, false));
        case 3 -> {
          int i = random.nextInt(list.size());
          list.set(i, flipType(list.get(i)));
        }
        default -> {
          if (list.size() > 1) {
            Collections.swap(list, 0, list.size() - 1);
          } else {
            list.set(0, numberToString(list.get(0)));
          }
        }
      }
    }
    return value;
  }

  private static void collectContainers(Object value, List<Object> out) {
    if (value instanceof Map<?, ?> map) {
      out.add(value);
      map.values().forEach(v -> collectContainers(v, out));
    } else if (value instanceof List<?> list) {
      out.add(value);
      list.forEach(v -> collectContainers(v, out));
    }
  }

  private static Object flipType(Object value) {
    if (value instanceof Map<?, ?> map) {
      return new ArrayList<>(map.values());
    }
    if (value instanceof List<?>) {
      return new LinkedHashMap<String, Object>();
    }
    return value == null ? new ArrayList<>() : null;
  }

  private static Object numberToString(Object value) {
    return value instanceof Num n ? n.value().toPlainString() : value;
  }

  /** Equality by meaning, computed without JSON: numbers by compareTo, objects unordered. */
  private static boolean modelEquals(Object x, Object y) {
    if (x instanceof Map<?, ?> mx && y instanceof Map<?, ?> my) {
      if (!mx.keySet().equals(my.keySet())) {
        return false;
      }
      for (Object key : mx.keySet()) {
        if (!modelEquals(mx.get(key), my.get(key))) {
          return false;
        }
      }
      return true;
    }
    if (x instanceof List<?> lx && y instanceof List<?> ly) {
      if (lx.size() != ly.size()) {
        return false;
      }
      for (int i = 0; i < lx.size(); i++) {
        if (!modelEquals(lx.get(i), ly.get(i))) {
          return false;
        }
      }
      return true;
    }
    if (x instanceof Num nx && y instanceof Num ny) {
      return nx.value().compareTo(ny.value()) == 0;
    }
    return x == null ? y == null : x.equals(y);
  }

  // ------------------------------------------------------------------ rendering

  private static String render(Object value, Random random) {
    StringBuilder sb = new StringBuilder();
    render(value, random, sb);
    return sb.toString();
  }

  private static void render(Object value, Random random, StringBuilder sb) {
    space(random, sb);
    if (value instanceof Map<?, ?> map) {
      List<Map.Entry<?, ?>> entries = new ArrayList<>(map.entrySet());
      Collections.shuffle(entries, random);
      sb.append('{');
      for (int i = 0; i < entries.size(); i++) {
        if (i > 0) {
          sb.append(',');
        }
        space(random, sb);
        renderString((String) entries.get(i).getKey(), random, sb);
        space(random, sb);
        sb.append(':');
        render(entries.get(i).getValue(), random, sb);
      }
      space(random, sb);
      sb.append('}');
    } else if (value instanceof List<?> list) {
      sb.append('[');
      for (int i = 0; i < list.size(); i++) {
        if (i > 0) {
          sb.append(',');
        }
        render(list.get(i), random, sb);
      }
      space(random, sb);
      sb.append(']');
    } else if (value instanceof Num n) {
      sb.append(renderNumber(n.value(), random));
    } else if (value instanceof String s) {
      renderString(s, random, sb);
    } else {
      sb.append(value == null ? "null" : value.toString());
    }
    space(random, sb);
  }

  private static void space(Random random, StringBuilder sb) {
    if (random.nextInt(4) == 0) {
      sb.append(" \t\n\r".charAt(random.nextInt(4)));
    }
  }

  /** The same value spelled one of many ways: 1, 1.0, 1.00, 1e0, 10E-1, 0.1e+1, -0 for zero. */
  static String renderNumber(BigDecimal value, Random random) {
    BigDecimal scaled = value.setScale(value.scale() + random.nextInt(3));
    String text =
        switch (random.nextInt(4)) {
          case 0 -> scaled.toPlainString();
          case 1 -> scaled.unscaledValue() + "e" + (-scaled.scale());
          case 2 ->
              scaled.unscaledValue()
                  + "E"
                  + (scaled.scale() <= 0 ? "+" : "-")
                  + Math.abs(scaled.scale());
          default -> {
            // One digit before the point: d.ddd e±x
            String digits = scaled.unscaledValue().abs().toString();
            long exponent = digits.length() - 1L - scaled.scale();
            String mantissa =
                digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
            yield (scaled.signum() < 0 ? "-" : "") + mantissa + "e" + exponent;
          }
        };
    if (value.signum() == 0 && random.nextBoolean()) {
      text = "-" + text;
    }
    return text;
  }

  private static void renderString(String s, Random random, StringBuilder sb) {
    sb.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)) {
        // A pair is escaped as a whole or not at all: half of it alone is not UTF-8 text.
        char low = s.charAt(++i);
        if (random.nextBoolean()) {
          sb.append(String.format("\\u%04x\\u%04X", (int) c, (int) low));
        } else {
          sb.append(c).append(low);
        }
      } else if (c == '"' || c == '\\') {
        sb.append('\\').append(c);
      } else if (c < 0x20
          || (c > 0x7e && random.nextBoolean())
          || (c == '/' && random.nextBoolean())) {
        if (c == '/') {
          sb.append("\\/");
        } else {
          sb.append(String.format(random.nextBoolean() ? "\\u%04x" : "\\u%04X", (int) c));
        }
      } else if (random.nextInt(8) == 0 && c < 0x7f) {
        sb.append(String.format("\\u%04x", (int) c));
      } else {
        sb.append(c);
      }
    }
    sb.append('"');
  }
}
