package io.streamrecon.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.streamrecon.json.ComparisonRules.Normaliser;
import io.streamrecon.json.ComparisonRules.Normalize;
import io.streamrecon.json.ComparisonRules.Rename;
import io.streamrecon.json.ComparisonRules.Unordered;
import io.streamrecon.json.PathPattern.Slot;
import java.math.BigDecimal;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Applies every rule but tolerance to a parsed document in place (the order is documented on {@link
 * ComparisonRules}). Rules are resolved by their patterns, so the work is proportional to what the
 * rules address, not to the document, except for sorting unordered arrays.
 *
 * <p>With a {@link Tracking}, it also remembers where each value of the normalised tree came from
 * in the document as received, so that a diff can report values before any rule, and which arrays
 * are unordered.
 */
final class RulesNormalizer {
  private static final Pattern JSON_NUMBER =
      Pattern.compile("-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]+)?");

  private RulesNormalizer() {}

  /**
   * Where the values of a normalised copy came from. Keys are containers of the copy (always fresh
   * objects, never shared), so identity maps are safe.
   */
  static final class Tracking {
    final Map<JsonNode, JsonNode> origin = new IdentityHashMap<>();
    final Map<ArrayNode, List<Integer>> indexes = new IdentityHashMap<>();
    final Map<ObjectNode, Map<String, JsonNode>> moved = new IdentityHashMap<>();
    final Map<ArrayNode, Unordered> unordered = new IdentityHashMap<>();

    /** The value as received of a member of a copied container, or null if it had none. */
    JsonNode originalMember(JsonNode parent, String name) {
      if (parent instanceof ObjectNode object) {
        Map<String, JsonNode> m = moved.get(object);
        if (m != null && m.containsKey(name)) {
          return m.get(name);
        }
      }
      JsonNode o = origin.get(parent);
      return o == null ? null : o.get(name);
    }

    /** The value as received of an element of a copied array. */
    JsonNode originalElement(ArrayNode parent, int index) {
      JsonNode o = origin.get(parent);
      return o == null ? null : o.get(originalIndex(parent, index));
    }

    /** The index an element of a copied array had in the document as received. */
    int originalIndex(ArrayNode parent, int index) {
      List<Integer> map = indexes.get(parent);
      return map == null ? index : map.get(index);
    }
  }

  /** A deep copy of {@code original}, normalised, with its {@link Tracking}. */
  record Tracked(JsonNode root, Tracking tracking) {}

  static Tracked tracked(JsonNode original, ComparisonRules rules, boolean source) {
    Tracking tracking = new Tracking();
    JsonNode copy = copy(original, tracking);
    normalize(copy, rules, source, tracking);
    return new Tracked(copy, tracking);
  }

  /** Copies a tree iteratively, recording for each copied container its original. */
  private static JsonNode copy(JsonNode original, Tracking tracking) {
    if (!original.isContainerNode()) {
      return original;
    }
    JsonNode rootCopy = emptyLike(original, tracking);
    Deque<JsonNode[]> work = new ArrayDeque<>();
    work.push(new JsonNode[] {original, rootCopy});
    while (!work.isEmpty()) {
      JsonNode[] pair = work.pop();
      JsonNode from = pair[0];
      if (from instanceof ObjectNode object) {
        ObjectNode to = (ObjectNode) pair[1];
        for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
          Map.Entry<String, JsonNode> e = it.next();
          JsonNode child = e.getValue();
          if (child.isContainerNode()) {
            JsonNode c = emptyLike(child, tracking);
            to.set(e.getKey(), c);
            work.push(new JsonNode[] {child, c});
          } else {
            to.set(e.getKey(), child);
          }
        }
      } else {
        ArrayNode to = (ArrayNode) pair[1];
        List<Integer> map = new ArrayList<>(from.size());
        for (int i = 0; i < from.size(); i++) {
          JsonNode child = from.get(i);
          map.add(i);
          if (child.isContainerNode()) {
            JsonNode c = emptyLike(child, tracking);
            to.add(c);
            work.push(new JsonNode[] {child, c});
          } else {
            to.add(child);
          }
        }
        tracking.indexes.put(to, map);
      }
    }
    return rootCopy;
  }

  private static JsonNode emptyLike(JsonNode original, Tracking tracking) {
    JsonNode copy =
        original.isObject()
            ? JsonNodeFactory.instance.objectNode()
            : JsonNodeFactory.instance.arrayNode(original.size());
    tracking.origin.put(copy, original);
    return copy;
  }

  /** Normalises {@code root} in place; {@code tracking} may be null. */
  static void normalize(JsonNode root, ComparisonRules rules, boolean source, Tracking tracking) {
    if (source && !rules.rename().isEmpty()) {
      rename(root, rules.rename(), tracking);
    }
    ignore(root, rules.ignore(), tracking);
    for (Normalize n : rules.normalize()) {
      for (Slot slot : n.path().resolve(root)) {
        if (slot.value().isTextual()) {
          String s = slot.value().textValue();
          String t = s;
          for (Normaliser step : n.steps()) {
            t = step.apply(t);
          }
          if (!t.equals(s)) {
            slot.set(TextNode.valueOf(t));
          }
        }
      }
    }
    for (PathPattern p : rules.lenientTypes()) {
      for (Slot slot : p.resolve(root)) {
        JsonNode number = lenientNumber(slot.value());
        if (number != null) {
          slot.set(number);
        }
      }
    }
    for (PathPattern p : rules.instants()) {
      for (Slot slot : p.resolve(root)) {
        if (slot.value().isTextual()) {
          Long millis = EventTimes.isoMillis(slot.value().textValue());
          if (millis != null) {
            slot.set(LongNode.valueOf(millis));
          }
        }
      }
    }
    for (Unordered u : rules.unordered()) {
      for (Slot slot : u.path().resolve(root)) {
        if (slot.value() instanceof ArrayNode array) {
          sort(array, tracking);
          if (tracking != null) {
            tracking.unordered.put(array, u);
          }
        }
      }
    }
  }

  /** The number a string's whole text spells, or null. */
  static JsonNode lenientNumber(JsonNode value) {
    if (!value.isTextual()) {
      return null;
    }
    String text = value.textValue();
    if (text.length() > JsonSupport.MAX_NUMBER_LENGTH || !JSON_NUMBER.matcher(text).matches()) {
      return null;
    }
    try {
      return DecimalNode.valueOf(new BigDecimal(text));
    } catch (NumberFormatException | ArithmeticException e) {
      return null; // an exponent beyond BigDecimal's range: keep the text
    }
  }

  private static void rename(JsonNode root, List<Rename> renames, Tracking tracking) {
    record Move(Slot from, String[] to, JsonNode original) {}
    List<Move> moves = new ArrayList<>();
    for (Rename r : renames) {
      for (Slot slot : r.from().resolve(root)) {
        if (slot.parent() instanceof ObjectNode) {
          JsonNode original =
              tracking == null ? null : tracking.originalMember(slot.parent(), slot.name());
          moves.add(new Move(slot, r.to().substitute(slot.bindings()), original));
        }
      }
    }
    // Detach every source value first, so one rename's target never feeds another's source.
    for (Move m : moves) {
      ((ObjectNode) m.from.parent()).remove(m.from.name());
    }
    for (Move m : moves) {
      ObjectNode parent = parentFor(root, m.to);
      if (parent == null) {
        // The target path runs through a scalar or an array: keep the value where it was.
        ((ObjectNode) m.from.parent()).set(m.from.name(), m.from.value());
        continue;
      }
      String name = m.to[m.to.length - 1];
      parent.set(name, m.from.value());
      if (tracking != null) {
        tracking.moved.computeIfAbsent(parent, k -> new HashMap<>()).put(name, m.original);
      }
    }
  }

  /** The object that holds the last segment of {@code path}, created as needed, or null. */
  private static ObjectNode parentFor(JsonNode root, String[] path) {
    JsonNode current = root;
    for (int i = 0; i < path.length - 1; i++) {
      String segment = path[i];
      JsonNode next;
      if (current instanceof ObjectNode object) {
        next = object.get(segment);
        if (next == null) {
          next = object.putObject(segment);
        }
      } else if (current instanceof ArrayNode array) {
        int index = PathPattern.index(segment);
        next = index >= 0 && index < array.size() ? array.get(index) : null;
      } else {
        next = null;
      }
      if (next == null || !next.isContainerNode()) {
        return null;
      }
      current = next;
    }
    return current instanceof ObjectNode object ? object : null;
  }

  private static void ignore(JsonNode root, List<PathPattern> ignore, Tracking tracking) {
    if (ignore.isEmpty()) {
      return;
    }
    // Resolve every pattern against the unchanged tree, then remove, so order does not matter.
    Map<ObjectNode, List<String>> members = new IdentityHashMap<>();
    Map<ArrayNode, TreeSet<Integer>> elements = new IdentityHashMap<>();
    for (PathPattern p : ignore) {
      for (Slot slot : p.resolve(root)) {
        if (slot.parent() instanceof ObjectNode object) {
          members.computeIfAbsent(object, k -> new ArrayList<>()).add(slot.name());
        } else if (slot.parent() instanceof ArrayNode array) {
          elements.computeIfAbsent(array, k -> new TreeSet<>()).add(slot.index());
        }
      }
    }
    members.forEach(ObjectNode::remove);
    elements.forEach(
        (array, indexes) -> {
          List<Integer> map = tracking == null ? null : tracking.indexes.get(array);
          for (Iterator<Integer> it = indexes.descendingIterator(); it.hasNext(); ) {
            int index = it.next();
            array.remove(index);
            if (map != null) {
              map.remove(index);
            }
          }
        });
  }

  /** Sorts an array by the canonical form of its elements (stable), keeping the index map. */
  private static void sort(ArrayNode array, Tracking tracking) {
    int n = array.size();
    if (n < 2) {
      return;
    }
    String[] forms = new String[n];
    Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) {
      forms[i] = CanonicalJson.canonicalForm(array.get(i));
      order[i] = i;
    }
    java.util.Arrays.sort(order, (a, b) -> CanonicalJson.compareCodePoints(forms[a], forms[b]));
    List<JsonNode> elements = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      elements.add(array.get(order[i]));
    }
    array.removeAll();
    array.addAll(elements);
    List<Integer> map = tracking == null ? null : tracking.indexes.get(array);
    if (map != null) {
      List<Integer> sorted = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        sorted.add(map.get(order[i]));
      }
      map.clear();
      map.addAll(sorted);
    }
  }
}
