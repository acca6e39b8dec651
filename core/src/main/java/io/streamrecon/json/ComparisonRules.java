package io.streamrecon.json;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamrecon.files.LocalFiles;
import io.streamrecon.model.Side;
import java.io.Serializable;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What "the same" means for two documents (docs/design.md#comparison-rules): the parsed, validated
 * {@code --rules} file. Immutable and serializable, so that DoFns can carry it.
 *
 * <p>Every rule except tolerance is a normalisation of each document before its canonical form is
 * hashed ({@link #sha256}); {@link JsonDiff#diff(JsonNode, JsonNode, ComparisonRules)} applies the
 * same normalisation and then tolerance, so that equal hashes mean an empty diff.
 *
 * <p>Normalisation order, each step resolved against the document as the previous step left it:
 * rename (source document only; all moves resolved first, so chains such as a→b, b→c do not
 * cascade), ignore, normalize, lenientTypes, instants, unordered (deepest paths first, so that an
 * unordered array inside an unordered array is sorted before its parent compares elements). Every
 * path except a rename's source path is therefore a path in the target's shape.
 */
public final class ComparisonRules implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The members a rules file may have. */
  public static final List<String> MEMBERS =
      List.of(
          "ignore", "rename", "unordered", "tolerance", "lenientTypes", "normalize", "instants");

  private static final ComparisonRules NONE =
      new ComparisonRules(
          null, null, List.of(), List.of(), List.of(), List.of(), List.of(), List.of(), List.of());

  /** A string normaliser of the {@code normalize} rule. */
  public enum Normaliser {
    /** Removes leading and trailing whitespace. */
    TRIM("trim"),
    /** Lower case, locale-independent. */
    LOWERCASE("lowercase"),
    /** Every run of whitespace becomes one space. */
    COLLAPSE_SPACES("collapseSpaces");

    private final String jsonName;

    Normaliser(String jsonName) {
      this.jsonName = jsonName;
    }

    /** The name used in rules files. */
    public String jsonName() {
      return jsonName;
    }

    String apply(String s) {
      return switch (this) {
        case TRIM -> s.strip();
        case LOWERCASE -> s.toLowerCase(Locale.ROOT);
        case COLLAPSE_SPACES -> collapse(s);
      };
    }

    private static String collapse(String s) {
      StringBuilder sb = new StringBuilder(s.length());
      boolean inRun = false;
      for (int i = 0; i < s.length(); i++) {
        char c = s.charAt(i);
        if (Character.isWhitespace(c)) {
          if (!inRun) {
            sb.append(' ');
          }
          inRun = true;
        } else {
          sb.append(c);
          inRun = false;
        }
      }
      return sb.toString();
    }
  }

  /** The source's value at {@code from} is compared with the target's at {@code to}. */
  public record Rename(PathPattern from, PathPattern to) implements Serializable {}

  /**
   * The array at {@code path} is a multiset; {@code key} is the JSON Pointer inside each element
   * that matches elements, or {@code null} to match by canonical form.
   */
  public record Unordered(PathPattern path, String key) implements Serializable {}

  /** Numbers at {@code path} are equal within {@code abs} or {@code rel} (either may be null). */
  public record Tolerance(PathPattern path, BigDecimal abs, BigDecimal rel)
      implements Serializable {
    /** Whether two numbers are equal under this tolerance. */
    public boolean within(BigDecimal s, BigDecimal t) {
      BigDecimal diff;
      if (Math.abs(s.scale()) > 10_000
          || Math.abs(t.scale()) > 10_000
          || s.precision() > 10_000
          || t.precision() > 10_000) {
        // Subtracting 1e999999999 and 1 would build a billion digits; doubles say enough there.
        double d = Math.abs(s.doubleValue() - t.doubleValue());
        double m = Math.max(Math.abs(s.doubleValue()), Math.abs(t.doubleValue()));
        return Double.isFinite(d)
            && ((abs != null && d <= abs.doubleValue())
                || (rel != null && d <= rel.doubleValue() * m));
      }
      diff = s.subtract(t).abs();
      if (abs != null && diff.compareTo(abs) <= 0) {
        return true;
      }
      return rel != null && diff.compareTo(rel.multiply(s.abs().max(t.abs()))) <= 0;
    }
  }

  /** Strings at {@code path} pass through {@code steps} in order. */
  public record Normalize(PathPattern path, List<Normaliser> steps) implements Serializable {}

  private final String id;
  private final String canonicalText;
  private final List<PathPattern> ignore;
  private final List<Rename> rename;
  private final List<Unordered> unordered;
  private final List<Tolerance> tolerance;
  private final List<PathPattern> lenientTypes;
  private final List<Normalize> normalize;
  private final List<PathPattern> instants;

  private ComparisonRules(
      String id,
      String canonicalText,
      List<PathPattern> ignore,
      List<Rename> rename,
      List<Unordered> unordered,
      List<Tolerance> tolerance,
      List<PathPattern> lenientTypes,
      List<Normalize> normalize,
      List<PathPattern> instants) {
    this.id = id;
    this.canonicalText = canonicalText;
    this.ignore = List.copyOf(ignore);
    this.rename = List.copyOf(rename);
    List<Unordered> deepestFirst = new ArrayList<>(unordered);
    deepestFirst.sort((a, b) -> Integer.compare(b.path().depth(), a.path().depth()));
    this.unordered = List.copyOf(deepestFirst);
    this.tolerance = List.copyOf(tolerance);
    this.lenientTypes = List.copyOf(lenientTypes);
    this.normalize = List.copyOf(normalize);
    this.instants = List.copyOf(instants);
  }

  /** No rules: plain canonical comparison (docs/design.md#canonical-hash), null {@link #id}. */
  public static ComparisonRules none() {
    return NONE;
  }

  /**
   * Reads and validates a rules file of at most {@link LocalFiles#SETTINGS_FILE_LIMIT} bytes.
   *
   * @throws IllegalArgumentException one line naming the file and the bad member, or why the file
   *     cannot be read
   */
  public static ComparisonRules fromFile(String file) {
    byte[] bytes = LocalFiles.readAtMost("--rules", file, LocalFiles.SETTINGS_FILE_LIMIT);
    try {
      return parse(bytes);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--rules=" + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * Parses and validates the JSON text of a rules file.
   *
   * @throws IllegalArgumentException one line naming the bad member
   */
  public static ComparisonRules parse(byte[] utf8) {
    JsonNode root;
    try {
      root = JsonSupport.parse(utf8);
    } catch (InvalidEventException e) {
      throw new IllegalArgumentException("not valid JSON: " + e.getMessage());
    }
    if (!root.isObject()) {
      throw new IllegalArgumentException(
          "a rules file is one JSON object with members " + String.join(", ", MEMBERS));
    }
    for (Iterator<String> names = root.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!MEMBERS.contains(name)) {
        throw new IllegalArgumentException(
            "unknown member \"" + name + "\"; expected one of " + String.join(", ", MEMBERS));
      }
    }
    List<PathPattern> ignore = pointerList(root, "ignore");
    List<Rename> rename = new ArrayList<>();
    for (Map.Entry<String, JsonNode> e : members(root, "rename")) {
      PathPattern from = pattern("rename", e.getKey());
      if (!e.getValue().isTextual()) {
        throw bad("rename", e.getKey(), "the target path must be a JSON Pointer string");
      }
      PathPattern to = PathPattern.compile("\"rename\" " + e.getKey(), e.getValue().textValue());
      if (from.wildcards() != to.wildcards()) {
        throw bad("rename", e.getKey(), "source and target paths must have the same number of '*'");
      }
      rename.add(new Rename(from, to));
    }
    List<Unordered> unordered = new ArrayList<>();
    for (Map.Entry<String, JsonNode> e : members(root, "unordered")) {
      PathPattern path = pattern("unordered", e.getKey());
      JsonNode key = e.getValue();
      if (key.isNull()) {
        unordered.add(new Unordered(path, null));
      } else if (key.isTextual()) {
        JsonSupport.pointer("\"unordered\" " + e.getKey(), key.textValue());
        unordered.add(new Unordered(path, key.textValue()));
      } else {
        throw bad("unordered", e.getKey(), "the value must be null or a JSON Pointer string");
      }
    }
    List<Tolerance> tolerance = new ArrayList<>();
    for (Map.Entry<String, JsonNode> e : members(root, "tolerance")) {
      PathPattern path = pattern("tolerance", e.getKey());
      JsonNode bounds = e.getValue();
      if (!bounds.isObject() || bounds.isEmpty()) {
        throw bad("tolerance", e.getKey(), "must be an object with \"abs\" and/or \"rel\"");
      }
      BigDecimal abs = null;
      BigDecimal rel = null;
      for (Iterator<String> names = bounds.fieldNames(); names.hasNext(); ) {
        String name = names.next();
        JsonNode v = bounds.get(name);
        if (!name.equals("abs") && !name.equals("rel")) {
          throw bad("tolerance", e.getKey(), "unknown member \"" + name + "\"; use abs or rel");
        }
        if (!v.isNumber()) {
          throw bad("tolerance", e.getKey(), name + " must be a number");
        }
        BigDecimal value = CanonicalJson.decimalValue(v);
        if (value.signum() < 0) {
          throw bad(
              "tolerance",
              e.getKey(),
              name + " must not be negative, got " + CanonicalJson.canonicalNumber(value));
        }
        if (name.equals("abs")) {
          abs = value;
        } else {
          rel = value;
        }
      }
      tolerance.add(new Tolerance(path, abs, rel));
    }
    List<PathPattern> lenient = pointerList(root, "lenientTypes");
    List<Normalize> normalize = new ArrayList<>();
    for (Map.Entry<String, JsonNode> e : members(root, "normalize")) {
      PathPattern path = pattern("normalize", e.getKey());
      JsonNode steps = e.getValue();
      if (!steps.isArray() || steps.isEmpty()) {
        throw bad("normalize", e.getKey(), "must be a non-empty array of normaliser names");
      }
      List<Normaliser> list = new ArrayList<>();
      for (JsonNode step : steps) {
        list.add(normaliser(e.getKey(), step));
      }
      normalize.add(new Normalize(path, list));
    }
    List<PathPattern> instants = pointerList(root, "instants");
    return new ComparisonRules(
        CanonicalJson.sha256(root),
        CanonicalJson.canonicalForm(root),
        ignore,
        rename,
        unordered,
        tolerance,
        lenient,
        normalize,
        instants);
  }

  /**
   * These rules with {@code --ignoreFields} added to {@code ignore}. The {@link #id} stays that of
   * the rules file: ignoreFields are a command-line setting, not part of the file.
   */
  public ComparisonRules withIgnoreFields(List<String> ignoreFields) {
    if (ignoreFields.isEmpty()) {
      return this;
    }
    List<PathPattern> all = new ArrayList<>(ignore);
    for (String field : ignoreFields) {
      PathPattern p = PathPattern.compile("ignoreFields", field);
      if (!all.contains(p)) {
        all.add(p);
      }
    }
    return new ComparisonRules(
        id, canonicalText, all, rename, unordered, tolerance, lenientTypes, normalize, instants);
  }

  /** SHA-256 of the rules file's canonical form; {@code null} without a rules file. */
  public String id() {
    return id;
  }

  /** The canonical JSON text of the rules file; {@code null} without a rules file. */
  public String canonicalText() {
    return canonicalText;
  }

  public List<PathPattern> ignore() {
    return ignore;
  }

  public List<Rename> rename() {
    return rename;
  }

  /** Deepest paths first. */
  public List<Unordered> unordered() {
    return unordered;
  }

  public List<Tolerance> tolerance() {
    return tolerance;
  }

  public List<PathPattern> lenientTypes() {
    return lenientTypes;
  }

  public List<Normalize> normalize() {
    return normalize;
  }

  public List<PathPattern> instants() {
    return instants;
  }

  /** True when no rule changes anything: documents compare as in docs/design.md#canonical-hash. */
  public boolean isEmpty() {
    return ignore.isEmpty() && !normalises() && tolerance.isEmpty();
  }

  /** True when some rule other than ignore changes documents before hashing. */
  boolean normalises() {
    return !rename.isEmpty()
        || !unordered.isEmpty()
        || !lenientTypes.isEmpty()
        || !normalize.isEmpty()
        || !instants.isEmpty();
  }

  /** The tolerance for a path, or {@code null}; the first matching rule wins. */
  public Tolerance toleranceAt(String[] path) {
    for (Tolerance t : tolerance) {
      if (t.path().matches(path)) {
        return t;
      }
    }
    return null;
  }

  /**
   * Normalises {@code root} in place under every rule but tolerance, as the document of {@code
   * side}, and returns the SHA-256 of its canonical form. The caller must own the tree.
   */
  public String sha256(JsonNode root, Side side) {
    return sha256(root, side, new CanonicalJson.Hasher());
  }

  /** {@link #sha256(JsonNode, Side)} with the caller's (one thread's) hasher. */
  String sha256(JsonNode root, Side side, CanonicalJson.Hasher hasher) {
    RulesNormalizer.normalize(root, this, side == Side.SOURCE, null);
    return hasher.sha256(root);
  }

  /** Human-readable lines, one per rule, for {@code explain}. */
  public List<String> describe() {
    List<String> lines = new ArrayList<>();
    for (Rename r : rename) {
      lines.add("rename " + r.from() + " (source) -> " + r.to() + " (target)");
    }
    for (PathPattern p : ignore) {
      lines.add("ignore " + p);
    }
    for (Normalize n : normalize) {
      List<String> names = new ArrayList<>();
      n.steps().forEach(s -> names.add(s.jsonName()));
      lines.add("normalize " + n.path() + " " + String.join(", ", names));
    }
    for (PathPattern p : lenientTypes) {
      lines.add("lenientTypes " + p + " (\"42\" = 42)");
    }
    for (PathPattern p : instants) {
      lines.add("instants " + p + " (ISO-8601 = epoch millis)");
    }
    for (Unordered u : unordered) {
      lines.add(
          "unordered "
              + u.path()
              + (u.key() == null ? " (by canonical form)" : " (matched by " + u.key() + ")"));
    }
    for (Tolerance t : tolerance) {
      lines.add(
          "tolerance "
              + t.path()
              + (t.abs() == null ? "" : " abs " + t.abs().toPlainString())
              + (t.rel() == null ? "" : " rel " + t.rel().toPlainString()));
    }
    return lines;
  }

  private static List<PathPattern> pointerList(JsonNode root, String member) {
    JsonNode list = root.get(member);
    List<PathPattern> out = new ArrayList<>();
    if (list == null) {
      return out;
    }
    if (!list.isArray()) {
      throw new IllegalArgumentException(
          "\"" + member + "\" must be an array of JSON Pointer strings");
    }
    for (JsonNode item : list) {
      if (!item.isTextual()) {
        throw new IllegalArgumentException(
            "\"" + member + "\" must be an array of JSON Pointer strings, found a non-string");
      }
      out.add(pattern(member, item.textValue()));
    }
    return out;
  }

  private static List<Map.Entry<String, JsonNode>> members(JsonNode root, String member) {
    JsonNode object = root.get(member);
    List<Map.Entry<String, JsonNode>> out = new ArrayList<>();
    if (object == null) {
      return out;
    }
    if (!object.isObject()) {
      throw new IllegalArgumentException(
          "\"" + member + "\" must be an object keyed by JSON Pointer");
    }
    object.fields().forEachRemaining(out::add);
    return out;
  }

  private static PathPattern pattern(String member, String text) {
    return PathPattern.compile("\"" + member + "\"", text);
  }

  private static Normaliser normaliser(String path, JsonNode step) {
    if (step.isTextual()) {
      for (Normaliser n : Normaliser.values()) {
        if (n.jsonName().equals(step.textValue())) {
          return n;
        }
      }
    }
    throw bad(
        "normalize",
        path,
        "unknown normaliser "
            + (step.isTextual() ? "\"" + step.textValue() + "\"" : step.toString())
            + "; expected trim, lowercase or collapseSpaces");
  }

  private static IllegalArgumentException bad(String member, String path, String problem) {
    return new IllegalArgumentException("\"" + member + "\" " + path + ": " + problem);
  }

  @Override
  public String toString() {
    return id == null ? "ComparisonRules[none]" : "ComparisonRules[" + id + "]";
  }
}
