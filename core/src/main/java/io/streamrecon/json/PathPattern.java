package io.streamrecon.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;

/**
 * A JSON Pointer (RFC 6901) in which a segment {@code *} matches every member name or array index
 * at that level (docs/design.md#comparison-rules). Immutable; segments are kept unescaped.
 */
public final class PathPattern implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The wildcard segment. */
  public static final String ANY = "*";

  private final String text;
  private final String[] segments;

  private PathPattern(String text, String[] segments) {
    this.text = text;
    this.segments = segments;
  }

  /**
   * Compiles a pattern given for a setting.
   *
   * @throws IllegalArgumentException naming the setting when the text is not a JSON Pointer
   */
  public static PathPattern compile(String setting, String text) {
    JsonSupport.pointer(setting, text);
    String[] raw = text.substring(1).split("/", -1);
    String[] segments = new String[raw.length];
    for (int i = 0; i < raw.length; i++) {
      segments[i] = raw[i].replace("~1", "/").replace("~0", "~");
    }
    return new PathPattern(text, segments);
  }

  /** The pointer text as given. */
  public String text() {
    return text;
  }

  /** Number of segments. */
  public int depth() {
    return segments.length;
  }

  /** Number of wildcard segments. */
  public int wildcards() {
    int n = 0;
    for (String s : segments) {
      if (ANY.equals(s)) {
        n++;
      }
    }
    return n;
  }

  /** Whether a path of unescaped segments (array indexes as decimal text) matches. */
  public boolean matches(String[] path) {
    if (path.length != segments.length) {
      return false;
    }
    for (int i = 0; i < segments.length; i++) {
      if (!ANY.equals(segments[i]) && !segments[i].equals(path[i])) {
        return false;
      }
    }
    return true;
  }

  /**
   * The places in {@code root} that this pattern addresses and that hold a value, each as its
   * parent container and member name or index, plus the values bound to the wildcards in order.
   * Resolved against the tree as it is now; the caller may change the tree afterwards.
   */
  List<Slot> resolve(JsonNode root) {
    List<Slot> current = new ArrayList<>();
    current.add(new Slot(null, null, -1, root, new String[0]));
    for (String segment : segments) {
      List<Slot> next = new ArrayList<>();
      for (Slot slot : current) {
        JsonNode node = slot.value;
        boolean any = ANY.equals(segment);
        if (node instanceof ObjectNode object) {
          if (any) {
            for (Iterator<String> names = object.fieldNames(); names.hasNext(); ) {
              String name = names.next();
              next.add(new Slot(object, name, -1, object.get(name), bind(slot.bindings, name)));
            }
          } else if (object.has(segment)) {
            next.add(new Slot(object, segment, -1, object.get(segment), slot.bindings));
          }
        } else if (node instanceof ArrayNode array) {
          if (any) {
            for (int i = 0; i < array.size(); i++) {
              next.add(
                  new Slot(array, null, i, array.get(i), bind(slot.bindings, Integer.toString(i))));
            }
          } else {
            int index = index(segment);
            if (index >= 0 && index < array.size()) {
              next.add(new Slot(array, null, index, array.get(index), slot.bindings));
            }
          }
        }
      }
      current = next;
    }
    return current;
  }

  /** This pattern with its wildcards replaced, in order, by {@code bindings}. */
  String[] substitute(String[] bindings) {
    String[] out = segments.clone();
    int b = 0;
    for (int i = 0; i < out.length; i++) {
      if (ANY.equals(out[i])) {
        out[i] = b < bindings.length ? bindings[b++] : ANY;
      }
    }
    return out;
  }

  /** The array index a segment names, or -1 (RFC 6901: no leading zeros, no sign). */
  static int index(String segment) {
    if (segment.isEmpty() || segment.length() > 9) {
      return -1;
    }
    if (segment.length() > 1 && segment.charAt(0) == '0') {
      return -1;
    }
    for (int i = 0; i < segment.length(); i++) {
      char c = segment.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
    }
    return Integer.parseInt(segment);
  }

  private static String[] bind(String[] bindings, String value) {
    String[] out = Arrays.copyOf(bindings, bindings.length + 1);
    out[bindings.length] = value;
    return out;
  }

  /**
   * One addressed value: its parent (an object with {@code name}, or an array with {@code index}),
   * the value, and the wildcard bindings that led to it.
   */
  record Slot(JsonNode parent, String name, int index, JsonNode value, String[] bindings) {
    void set(JsonNode replacement) {
      if (parent instanceof ObjectNode object) {
        object.set(name, replacement);
      } else {
        ((ArrayNode) parent).set(index, replacement);
      }
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PathPattern p && text.equals(p.text);
  }

  @Override
  public int hashCode() {
    return text.hashCode();
  }

  @Override
  public String toString() {
    return text;
  }
}
