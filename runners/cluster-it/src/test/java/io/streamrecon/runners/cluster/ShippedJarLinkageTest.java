package io.streamrecon.runners.cluster;

import static org.junit.Assert.fail;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;
import org.junit.Test;

/**
 * Every class a shipped jar's code refers to is in the jar or on the class path the docs tell users
 * to run it on (a Spark 3.5 / Flink 1.19 distribution's jars, reproduced by runners/dist). The
 * JDK's {@code jdeps --missing-deps} lists each reference that resolves nowhere; this test holds
 * that list against two rules:
 *
 * <ul>
 *   <li>A missing class under {@code io.streamrecon.} (our code, or a library we relocated to
 *       {@code io.streamrecon.shaded.}) is always a defect unless {@code linkage-allowed.txt} names
 *       it with its reason: a relocated name whose classes were not bundled fails only when the
 *       code that links it runs, as Beam's checkpoint reader does on a streaming restore.
 *   <li>Any other missing package must be listed in {@code linkage-allowed.txt}, which holds the
 *       optional dependencies of bundled libraries that streamrecon never reaches (test helpers,
 *       GraalVM and Android hooks, compression codecs we do not use, ...). A package that newly
 *       goes missing fails until someone has looked at it and listed it with a reason.
 * </ul>
 *
 * <p>Run with {@code -Dstreamrecon.linkage.print=true} to print every missing package of each jar
 * with the classes that refer to it, for reviewing a change of dependencies.
 */
public class ShippedJarLinkageTest {
  /** {@code [version/]referrer.Class -> missing.Class not found}. */
  private static final Pattern MISSING =
      Pattern.compile("^\\s+(?:\\d+/)?(\\S+)\\s+->\\s+(\\S+)\\s+not found\\s*$");

  private static final String OURS = "io.streamrecon.";

  @Test
  public void sparkSubmitJarLinksOnTheSparkDistribution() throws Exception {
    check(Distribution.builtJar("spark", "-spark-submit.jar"), Distribution.distClassPath("spark"));
  }

  @Test
  public void flinkRunJarLinksOnTheFlinkDistribution() throws Exception {
    check(Distribution.builtJar("flink", "-flink-run.jar"), Distribution.distClassPath("flink"));
  }

  private static void check(Path jar, String classPath) throws IOException {
    Map<String, TreeSet<String>> missing = missingClasses(jar, classPath);
    Allowed allowed = Allowed.load();
    List<String> defects = new ArrayList<>();
    Map<String, TreeSet<String>> byPackage = new TreeMap<>();
    missing.forEach(
        (cls, referrers) -> {
          byPackage.computeIfAbsent(packageOf(cls), p -> new TreeSet<>()).add(cls);
          if (cls.startsWith(OURS)) {
            if (!allowed.classes().contains(cls)) {
              defects.add(
                  cls + " (relocated or ours, not in the jar), referred to by " + head(referrers));
            }
          } else if (!allowed.packages().contains(packageOf(cls))) {
            defects.add(
                cls
                    + " (package "
                    + packageOf(cls)
                    + " not in linkage-allowed.txt), "
                    + "referred to by "
                    + head(referrers));
          }
        });
    if (Boolean.getBoolean("streamrecon.linkage.print")) {
      System.out.println(jar.getFileName() + ": missing packages");
      byPackage.forEach((p, classes) -> System.out.println("  " + p + "  " + head(classes)));
    }
    if (!defects.isEmpty()) {
      fail(
          jar.getFileName()
              + " refers to "
              + defects.size()
              + " classes found neither in it nor on the distribution's class path:\n  "
              + String.join("\n  ", defects.subList(0, Math.min(40, defects.size()))));
    }
  }

  /** Missing class → the classes of the jar that refer to it, as jdeps reports them. */
  static Map<String, TreeSet<String>> missingClasses(Path jar, String classPath)
      throws IOException {
    ToolProvider jdeps =
        ToolProvider.findFirst("jdeps")
            .orElseThrow(() -> new AssertionError("no jdeps in this JDK"));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code =
        jdeps.run(
            new PrintWriter(out),
            new PrintWriter(err),
            "--multi-release",
            String.valueOf(Runtime.version().feature()),
            "-cp",
            expandWildcards(classPath),
            "--missing-deps",
            jar.toString());
    if (code != 0) {
      throw new AssertionError("jdeps exited " + code + ": " + err);
    }
    Map<String, TreeSet<String>> missing = new TreeMap<>();
    for (String line : out.toString().split("\n")) {
      Matcher m = MISSING.matcher(line);
      if (m.matches()) {
        missing.computeIfAbsent(m.group(2), c -> new TreeSet<>()).add(m.group(1));
      }
    }
    return missing;
  }

  /**
   * {@code dir/*} entries as the jars they stand for: the {@code java} and {@code jdeps} launchers
   * expand them, the in-process tool does not.
   */
  static String expandWildcards(String classPath) throws IOException {
    List<String> entries = new ArrayList<>();
    for (String e : classPath.split(java.io.File.pathSeparator)) {
      if (!e.endsWith("*")) {
        entries.add(e);
        continue;
      }
      try (java.util.stream.Stream<Path> jars = java.nio.file.Files.list(Path.of(e).getParent())) {
        jars.map(Path::toString).filter(n -> n.endsWith(".jar")).sorted().forEach(entries::add);
      }
    }
    return String.join(java.io.File.pathSeparator, entries);
  }

  private static String packageOf(String cls) {
    int dot = cls.lastIndexOf('.');
    return dot < 0 ? "" : cls.substring(0, dot);
  }

  private static String head(TreeSet<String> names) {
    List<String> first = names.stream().limit(3).toList();
    return String.join(", ", first)
        + (names.size() > 3 ? " and " + (names.size() - 3) + " more" : "");
  }

  /**
   * {@code linkage-allowed.txt}: one package (or, under {@code io.streamrecon.}, one class) a line,
   * each under a {@code #} comment that says why it may be missing.
   */
  record Allowed(TreeSet<String> packages, TreeSet<String> classes) {
    static Allowed load() throws IOException {
      TreeSet<String> packages = new TreeSet<>();
      TreeSet<String> classes = new TreeSet<>();
      try (InputStream in =
          ShippedJarLinkageTest.class.getResourceAsStream("/linkage-allowed.txt")) {
        if (in == null) {
          throw new AssertionError("linkage-allowed.txt is not on the test class path");
        }
        for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
          String entry = line.strip();
          if (entry.isEmpty() || entry.startsWith("#")) {
            continue;
          }
          (entry.startsWith(OURS) ? classes : packages).add(entry);
        }
      }
      return new Allowed(packages, classes);
    }
  }
}
