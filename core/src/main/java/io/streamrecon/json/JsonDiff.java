package io.streamrecon.json;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.streamrecon.model.Difference;
import io.streamrecon.model.DifferenceKind;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Field-by-field differences between a source and a target JSON value (docs/design.md#deltarecord),
 * in agreement with {@link CanonicalJson}: two values have the same canonical hash exactly when
 * their diff is empty.
 *
 * <ul>
 *   <li>Objects recurse member by member; a member on one side only is {@code ONLY_IN_SOURCE} or
 *       {@code ONLY_IN_TARGET}.
 *   <li>Arrays recurse index by index; elements past the shorter array are {@code ONLY_IN_SOURCE} /
 *       {@code ONLY_IN_TARGET}, one difference per element.
 *   <li>Where the two sides differ in type (object, array, scalar), or are scalars with different
 *       canonical text (so {@code 1} equals {@code 1.0} but not {@code "1"}), there is one {@code
 *       CHANGED} at that path.
 *   <li>Paths are JSON Pointers (RFC 6901, {@code ~} as {@code ~0}, {@code /} as {@code ~1}); the
 *       root is {@code ""}. Values are canonical JSON text, {@code null} for an absent side.
 *   <li>The list is sorted by path segment by segment; segments of digits compare as numbers (so
 *       {@code /a/2} comes before {@code /a/10}) and before other segments, which compare by code
 *       point; a path comes before its extensions.
 * </ul>
 *
 * <p>The walk keeps its own stack, so nesting depth costs heap, not Java stack.
 */
public final class JsonDiff {
  private JsonDiff() {}

  /**
   * The differences under comparison rules and how many number pairs were equal only within a
   * tolerance. An empty list with {@code withinTolerance > 0} is a pair that differs in hash but is
   * equal under the rules.
   */
  public record Result(List<Difference> differences, int withinTolerance) {
    public Result {
      differences = List.copyOf(differences);
    }
  }

  /** The sorted differences from {@code source} to {@code target}. */
  public static List<Difference> diff(JsonNode source, JsonNode target) {
    return diff(source, target, ComparisonRules.none()).differences();
  }

  /**
   * The sorted differences from {@code source} to {@code target} under {@code rules}
   * (docs/design.md#comparison-rules): both documents are normalised as {@link
   * ComparisonRules#sha256} does (copies; the arguments are not changed), then compared, unordered
   * arrays as multisets and numbers at toleranced paths within their tolerance. Paths are in the
   * target's shape (renamed members under their target names); an element of an unordered array is
   * named by its index in its own side's document, a difference inside a matched pair by the source
   * element's index. Values are those of each side's document as received, before any rule.
   */
  public static Result diff(JsonNode source, JsonNode target, ComparisonRules rules) {
    Origins s;
    Origins t;
    if (rules.id() == null && rules.isEmpty()) {
      s = new Origins(source, null);
      t = new Origins(target, null);
    } else {
      RulesNormalizer.Tracked ts = RulesNormalizer.tracked(source, rules, true);
      RulesNormalizer.Tracked tt = RulesNormalizer.tracked(target, rules, false);
      s = new Origins(ts.root(), ts.tracking());
      t = new Origins(tt.root(), tt.tracking());
    }
    int withinTolerance = 0;
    List<Found> found = new ArrayList<>();
    Deque<Task> work = new ArrayDeque<>();
    work.push(new Task(null, s.root, t.root, source, target));
    while (!work.isEmpty()) {
      Task task = work.pop();
      JsonNode sn = task.source;
      JsonNode tn = task.target;
      if (sn.isObject() && tn.isObject()) {
        for (Iterator<String> names = sn.fieldNames(); names.hasNext(); ) {
          String name = names.next();
          JsonNode sc = sn.get(name);
          JsonNode tc = tn.get(name);
          Path path = new Path(task.path, name);
          if (tc == null) {
            found.add(new Found(path, DifferenceKind.ONLY_IN_SOURCE, s.member(sn, name, sc), null));
          } else {
            work.push(new Task(path, sc, tc, s.member(sn, name, sc), t.member(tn, name, tc)));
          }
        }
        for (Iterator<String> names = tn.fieldNames(); names.hasNext(); ) {
          String name = names.next();
          if (!sn.has(name)) {
            found.add(
                new Found(
                    new Path(task.path, name),
                    DifferenceKind.ONLY_IN_TARGET,
                    null,
                    t.member(tn, name, tn.get(name))));
          }
        }
      } else if (sn.isArray() && tn.isArray()) {
        ComparisonRules.Unordered unordered = s.unordered((ArrayNode) sn);
        if (unordered == null) {
          unordered = t.unordered((ArrayNode) tn);
        }
        if (unordered != null) {
          multiset(task.path, (ArrayNode) sn, (ArrayNode) tn, unordered, s, t, found, work);
          continue;
        }
        ArrayNode sa = (ArrayNode) sn;
        ArrayNode ta = (ArrayNode) tn;
        int common = Math.min(sa.size(), ta.size());
        for (int i = 0; i < common; i++) {
          work.push(
              new Task(
                  new Path(task.path, i),
                  sa.get(i),
                  ta.get(i),
                  s.element(sa, i),
                  t.element(ta, i)));
        }
        for (int i = common; i < sa.size(); i++) {
          found.add(
              new Found(
                  new Path(task.path, i), DifferenceKind.ONLY_IN_SOURCE, s.element(sa, i), null));
        }
        for (int i = common; i < ta.size(); i++) {
          found.add(
              new Found(
                  new Path(task.path, i), DifferenceKind.ONLY_IN_TARGET, null, t.element(ta, i)));
        }
      } else if (sn.isContainerNode() || tn.isContainerNode()) {
        // Object against array, or container against scalar: one change, no recursion.
        found.add(
            new Found(task.path, DifferenceKind.CHANGED, task.sourceOriginal, task.targetOriginal));
      } else {
        String sText = CanonicalJson.canonicalForm(sn);
        String tText = CanonicalJson.canonicalForm(tn);
        if (!sText.equals(tText)) {
          ComparisonRules.Tolerance tolerance =
              sn.isNumber() && tn.isNumber() && !rules.tolerance().isEmpty()
                  ? rules.toleranceAt(Path.segments(task.path))
                  : null;
          if (tolerance != null
              && tolerance.within(CanonicalJson.decimalValue(sn), CanonicalJson.decimalValue(tn))) {
            withinTolerance++;
          } else {
            found.add(
                new Found(
                    task.path, DifferenceKind.CHANGED, task.sourceOriginal, task.targetOriginal));
          }
        }
      }
    }
    List<Keyed> keyed = new ArrayList<>(found.size());
    for (Found f : found) {
      keyed.add(new Keyed(Path.segments(f.path), f));
    }
    keyed.sort(Comparator.comparing(Keyed::segments, JsonDiff::comparePaths));
    List<Difference> result = new ArrayList<>(keyed.size());
    for (Keyed k : keyed) {
      result.add(
          new Difference(
              pointer(k.segments),
              k.found.kind,
              k.found.source == null ? null : CanonicalJson.canonicalForm(k.found.source),
              k.found.target == null ? null : CanonicalJson.canonicalForm(k.found.target)));
    }
    return new Result(result, withinTolerance);
  }

  /**
   * Compares two unordered arrays as multisets (docs/design.md#comparison-rules): by key first
   * where the key's value is present and unique in both arrays, then by canonical form for
   * everything left.
   */
  private static void multiset(
      Path path,
      ArrayNode sa,
      ArrayNode ta,
      ComparisonRules.Unordered rule,
      Origins s,
      Origins t,
      List<Found> found,
      Deque<Task> work) {
    int ns = sa.size();
    int nt = ta.size();
    String[] sForm = new String[ns];
    String[] tForm = new String[nt];
    for (int i = 0; i < ns; i++) {
      sForm[i] = CanonicalJson.canonicalForm(sa.get(i));
    }
    for (int j = 0; j < nt; j++) {
      tForm[j] = CanonicalJson.canonicalForm(ta.get(j));
    }
    boolean[] sDone = new boolean[ns];
    boolean[] tDone = new boolean[nt];
    if (rule.key() != null) {
      JsonPointer key = JsonPointer.compile(rule.key());
      String[] sKey = keys(sa, key);
      String[] tKey = keys(ta, key);
      Map<String, Integer> sCount = counts(sKey);
      Map<String, Integer> tCount = counts(tKey);
      Map<String, Integer> tByKey = new HashMap<>();
      for (int j = 0; j < nt; j++) {
        if (tKey[j] != null) {
          tByKey.put(tKey[j], j);
        }
      }
      for (int i = 0; i < ns; i++) {
        String k = sKey[i];
        if (k != null && sCount.get(k) == 1 && tCount.getOrDefault(k, 0) == 1) {
          int j = tByKey.get(k);
          sDone[i] = true;
          tDone[j] = true;
          if (!sForm[i].equals(tForm[j])) {
            work.push(
                new Task(
                    new Path(path, s.index(sa, i)),
                    sa.get(i),
                    ta.get(j),
                    s.element(sa, i),
                    t.element(ta, j)));
          }
        }
      }
    }
    Map<String, Deque<Integer>> tByForm = new HashMap<>();
    for (int j = 0; j < nt; j++) {
      if (!tDone[j]) {
        tByForm.computeIfAbsent(tForm[j], f -> new ArrayDeque<>()).add(j);
      }
    }
    for (int i = 0; i < ns; i++) {
      if (sDone[i]) {
        continue;
      }
      Deque<Integer> same = tByForm.get(sForm[i]);
      if (same != null && !same.isEmpty()) {
        tDone[same.poll()] = true;
      } else {
        found.add(
            new Found(
                new Path(path, s.index(sa, i)),
                DifferenceKind.ONLY_IN_SOURCE,
                s.element(sa, i),
                null));
      }
    }
    for (Deque<Integer> left : tByForm.values()) {
      for (int j : left) {
        found.add(
            new Found(
                new Path(path, t.index(ta, j)),
                DifferenceKind.ONLY_IN_TARGET,
                null,
                t.element(ta, j)));
      }
    }
  }

  /** Canonical form of each element's value at the key, null where it has none. */
  private static String[] keys(ArrayNode array, JsonPointer key) {
    String[] out = new String[array.size()];
    for (int i = 0; i < out.length; i++) {
      JsonNode v = array.get(i).at(key);
      out[i] = v.isMissingNode() ? null : CanonicalJson.canonicalForm(v);
    }
    return out;
  }

  private static Map<String, Integer> counts(String[] keys) {
    Map<String, Integer> counts = new HashMap<>();
    for (String k : keys) {
      if (k != null) {
        counts.merge(k, 1, Integer::sum);
      }
    }
    return counts;
  }

  /** One side's normalised tree and the way back to its values as received. */
  private static final class Origins {
    final JsonNode root;
    final RulesNormalizer.Tracking tracking;

    Origins(JsonNode root, RulesNormalizer.Tracking tracking) {
      this.root = root;
      this.tracking = tracking;
    }

    JsonNode member(JsonNode parent, String name, JsonNode normalised) {
      if (tracking == null) {
        return normalised;
      }
      JsonNode o = tracking.originalMember(parent, name);
      return o == null ? normalised : o;
    }

    JsonNode element(ArrayNode parent, int index) {
      if (tracking == null) {
        return parent.get(index);
      }
      JsonNode o = tracking.originalElement(parent, index);
      return o == null ? parent.get(index) : o;
    }

    int index(ArrayNode parent, int index) {
      return tracking == null ? index : tracking.originalIndex(parent, index);
    }

    ComparisonRules.Unordered unordered(ArrayNode array) {
      return tracking == null ? null : tracking.unordered.get(array);
    }
  }

  /** The JSON Pointer of unescaped segments. */
  static String pointer(String[] segments) {
    StringBuilder sb = new StringBuilder();
    for (String segment : segments) {
      sb.append('/').append(segment.replace("~", "~0").replace("/", "~1"));
    }
    return sb.toString();
  }

  /** Segment-wise path order; see the class comment. */
  static int comparePaths(String[] a, String[] b) {
    int common = Math.min(a.length, b.length);
    for (int i = 0; i < common; i++) {
      int c = compareSegments(a[i], b[i]);
      if (c != 0) {
        return c;
      }
    }
    return Integer.compare(a.length, b.length);
  }

  static int compareSegments(String a, String b) {
    boolean aNumeric = isDigits(a);
    boolean bNumeric = isDigits(b);
    if (aNumeric != bNumeric) {
      return aNumeric ? -1 : 1;
    }
    if (aNumeric) {
      // Compare as unbounded integers without parsing: fewer significant digits is smaller.
      String x = stripLeadingZeros(a);
      String y = stripLeadingZeros(b);
      int c = x.length() != y.length() ? Integer.compare(x.length(), y.length()) : x.compareTo(y);
      if (c != 0) {
        return c;
      }
      // Keys "01" and "1" are equal as numbers but distinct keys.
    }
    return CanonicalJson.compareCodePoints(a, b);
  }

  private static boolean isDigits(String s) {
    if (s.isEmpty()) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }

  private static String stripLeadingZeros(String digits) {
    int i = 0;
    while (i < digits.length() - 1 && digits.charAt(i) == '0') {
      i++;
    }
    return digits.substring(i);
  }

  /** A path as a linked list towards the root, so that deep documents do not copy prefixes. */
  private record Path(Path parent, String segment, int depth) {
    Path(Path parent, String segment) {
      this(parent, segment, parent == null ? 1 : parent.depth + 1);
    }

    Path(Path parent, int index) {
      this(parent, Integer.toString(index));
    }

    static String[] segments(Path path) {
      String[] segments = new String[path == null ? 0 : path.depth];
      for (Path p = path; p != null; p = p.parent) {
        segments[p.depth - 1] = p.segment;
      }
      return segments;
    }
  }

  private record Task(
      Path path,
      JsonNode source,
      JsonNode target,
      JsonNode sourceOriginal,
      JsonNode targetOriginal) {}

  private record Found(Path path, DifferenceKind kind, JsonNode source, JsonNode target) {}

  private record Keyed(String[] segments, Found found) {}
}
