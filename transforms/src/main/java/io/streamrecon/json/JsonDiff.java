package io.streamrecon.json;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamrecon.model.Difference;
import io.streamrecon.model.DifferenceKind;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;

/**
 * Field-by-field differences between a source and a target JSON value (SPEC §5), in agreement with
 * {@link CanonicalJson}: two values have the same canonical hash exactly when their diff is empty.
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

  /** The sorted differences from {@code source} to {@code target}. */
  public static List<Difference> diff(JsonNode source, JsonNode target) {
    List<Found> found = new ArrayList<>();
    Deque<Task> work = new ArrayDeque<>();
    work.push(new Task(null, source, target));
    while (!work.isEmpty()) {
      Task task = work.pop();
      JsonNode s = task.source;
      JsonNode t = task.target;
      if (s.isObject() && t.isObject()) {
        for (Iterator<String> names = s.fieldNames(); names.hasNext(); ) {
          String name = names.next();
          JsonNode other = t.get(name);
          Path path = new Path(task.path, name);
          if (other == null) {
            found.add(new Found(path, DifferenceKind.ONLY_IN_SOURCE, s.get(name), null));
          } else {
            work.push(new Task(path, s.get(name), other));
          }
        }
        for (Iterator<String> names = t.fieldNames(); names.hasNext(); ) {
          String name = names.next();
          if (!s.has(name)) {
            found.add(
                new Found(
                    new Path(task.path, name), DifferenceKind.ONLY_IN_TARGET, null, t.get(name)));
          }
        }
      } else if (s.isArray() && t.isArray()) {
        int common = Math.min(s.size(), t.size());
        for (int i = 0; i < common; i++) {
          work.push(new Task(new Path(task.path, i), s.get(i), t.get(i)));
        }
        for (int i = common; i < s.size(); i++) {
          found.add(
              new Found(new Path(task.path, i), DifferenceKind.ONLY_IN_SOURCE, s.get(i), null));
        }
        for (int i = common; i < t.size(); i++) {
          found.add(
              new Found(new Path(task.path, i), DifferenceKind.ONLY_IN_TARGET, null, t.get(i)));
        }
      } else if (s.isContainerNode() || t.isContainerNode()) {
        // Object against array, or container against scalar: one change, no recursion.
        found.add(new Found(task.path, DifferenceKind.CHANGED, s, t));
      } else {
        String sText = CanonicalJson.canonicalForm(s);
        String tText = CanonicalJson.canonicalForm(t);
        if (!sText.equals(tText)) {
          found.add(new Found(task.path, DifferenceKind.CHANGED, s, t));
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
    return result;
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

  private record Task(Path path, JsonNode source, JsonNode target) {}

  private record Found(Path path, DifferenceKind kind, JsonNode source, JsonNode target) {}

  private record Keyed(String[] segments, Found found) {}
}
