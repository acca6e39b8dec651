package io.streamrecon;

import static org.junit.Assert.fail;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The package cycles among a module's classes, compared with the ones the module is known to have
 * (docs/architecture.md, "Known cycles"). ArchUnit's own cycle rule can only ignore whole
 * dependencies, which would also hide a new cycle running through an ignored edge; enumerating the
 * elementary cycles of the package graph lets the layering tests fail on any cycle not listed, and
 * on a listed one that no longer exists, so the list shrinks as the cycles are removed.
 */
public final class PackageCycles {
  private PackageCycles() {}

  /**
   * Fails unless the package cycles among {@code classes} in {@code rootPackage} and its
   * subpackages are exactly {@code known}.
   *
   * @param known each cycle as the packages along it, starting with the alphabetically first (the
   *     edge from the last back to the first closes it): {@code List.of("a", "a.b")} is {@code a ->
   *     a.b -> a}
   */
  public static void assertOnlyKnownCycles(
      JavaClasses classes, String rootPackage, Set<List<String>> known) {
    Map<String, Map<String, Dependency>> edges = packageEdges(classes, rootPackage);
    Set<List<String>> found = elementaryCycles(edges);
    StringBuilder problems = new StringBuilder();
    for (List<String> cycle : found) {
      if (!known.contains(cycle)) {
        problems.append("New package cycle ").append(String.join(" -> ", cycle));
        problems.append(" -> ").append(cycle.get(0)).append(", for example:\n");
        for (int i = 0; i < cycle.size(); i++) {
          String to = cycle.get((i + 1) % cycle.size());
          problems.append("  ").append(edges.get(cycle.get(i)).get(to).getDescription());
          problems.append('\n');
        }
      }
    }
    for (List<String> cycle : known) {
      if (!found.contains(cycle)) {
        problems.append("Known package cycle ").append(String.join(" -> ", cycle));
        problems.append(" no longer exists: remove it from the known cycles\n");
      }
    }
    if (problems.length() > 0) {
      fail(problems.toString());
    }
  }

  /** Package to package, each edge with one class dependency that makes it, for the message. */
  private static Map<String, Map<String, Dependency>> packageEdges(
      JavaClasses classes, String rootPackage) {
    Map<String, Map<String, Dependency>> edges = new TreeMap<>();
    for (JavaClass origin : classes) {
      String from = origin.getPackageName();
      if (!inside(from, rootPackage)) {
        continue;
      }
      for (Dependency d : origin.getDirectDependenciesFromSelf()) {
        String to = d.getTargetClass().getBaseComponentType().getPackageName();
        if (inside(to, rootPackage) && !to.equals(from)) {
          edges.computeIfAbsent(from, k -> new TreeMap<>()).putIfAbsent(to, d);
        }
      }
    }
    return edges;
  }

  private static boolean inside(String pkg, String rootPackage) {
    return pkg.equals(rootPackage) || pkg.startsWith(rootPackage + ".");
  }

  /**
   * Every cycle that visits no package twice, each reported once: from its alphabetically first
   * package, through packages after that one only. The graphs are a module's dozen packages.
   */
  private static Set<List<String>> elementaryCycles(Map<String, Map<String, Dependency>> edges) {
    Set<List<String>> result = new LinkedHashSet<>();
    for (String start : new TreeSet<>(edges.keySet())) {
      List<String> path = new ArrayList<>();
      path.add(start);
      extend(edges, start, path, result);
    }
    return result;
  }

  private static void extend(
      Map<String, Map<String, Dependency>> edges,
      String start,
      List<String> path,
      Set<List<String>> result) {
    String last = path.get(path.size() - 1);
    for (String next : edges.getOrDefault(last, Map.of()).keySet()) {
      if (next.equals(start)) {
        result.add(List.copyOf(path));
      } else if (next.compareTo(start) > 0 && !path.contains(next)) {
        path.add(next);
        extend(edges, start, path, result);
        path.remove(path.size() - 1);
      }
    }
  }
}
