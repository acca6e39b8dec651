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
