package io.streamrecon.runners.cluster;

import static org.junit.Assert.assertTrue;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Where the deployable jars and the reproduced distribution class paths are (built by the package
 * phase of runners/spark, runners/flink and runners/dist/*), and how to run a child JVM on them.
 */
final class Distribution {
  private Distribution() {}

  /** Every process of the tests binds to loopback only. */
  static final String LOOPBACK = "127.0.0.1";

  /** A port that was free a moment ago (for daemons that must be told theirs in advance). */
  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  static Path runnersDir() {
    return Paths.get(System.getProperty("streamrecon.runners.dir", "..")).toAbsolutePath();
  }

  /** The one file in {@code dir} whose name ends with {@code suffix}. */
  static Path builtJar(String module, String suffix) throws IOException {
    Path dir = runnersDir().resolve(module).resolve("target");
    assertTrue(
        dir + " is missing: run `mvn verify` (the tests need the package phase)",
        Files.isDirectory(dir));
    try (Stream<Path> files = Files.list(dir)) {
      List<Path> found = files.filter(p -> p.getFileName().toString().endsWith(suffix)).toList();
      assertTrue("expected one *" + suffix + " in " + dir + ", found " + found, found.size() == 1);
      return found.get(0);
    }
  }

  /** The distribution's jars as a class path ({@code dir/*}). */
  static String distClassPath(String dist) {
    Path jars = runnersDir().resolve("dist").resolve(dist).resolve("target").resolve("jars");
    assertTrue(jars + " is missing: run `mvn verify`", Files.isDirectory(jars));
    return jars + File.separator + "*";
  }

  /** Class entries of a jar whose names start with one of {@code prefixes} (first 20 shown). */
  static List<String> classesUnder(Path jar, String... prefixes) throws IOException {
    TreeSet<String> hits = new TreeSet<>();
    try (ZipFile zip = new ZipFile(jar.toFile())) {
      Enumeration<? extends ZipEntry> entries = zip.entries();
      while (entries.hasMoreElements()) {
        String name = entries.nextElement().getName();
        if (!name.endsWith(".class")) {
          continue;
        }
        for (String p : prefixes) {
          if (name.startsWith(p)) {
            hits.add(name);
          }
        }
      }
    }
    return new ArrayList<>(hits);
  }

  /** The JVM flags Spark needs on Java 17 (the surefire argLine's). */
  static List<String> sparkJvmFlags() {
    String flags = System.getProperty("streamrecon.spark.jvm.flags", "").trim();
    return flags.isEmpty() ? List.of() : Arrays.asList(flags.split("\\s+"));
  }

  /**
   * {@code java <jvmOptions> <the JDK openings> -cp <classPath>}, as a list to which the main class
   * and its arguments are added. Every child JVM gets the openings: Spark needs them, and the
   * pipeline code in the jars (Kryo, Beam's coders) needs them on Flink too.
   */
  static List<String> jvm(String classPath, String... jvmOptions) {
    List<String> cmd = new ArrayList<>();
    cmd.add(java());
    cmd.addAll(Arrays.asList(jvmOptions));
    cmd.addAll(sparkJvmFlags());
    cmd.add("-cp");
    cmd.add(classPath);
    return cmd;
  }

  static String java() {
    return Paths.get(System.getProperty("java.home"), "bin", "java").toString();
  }

  /** A started child JVM; its output goes to files next to the warehouse. */
  static final class Child implements AutoCloseable {
    final Process process;
    final Path out;
    final Path err;

    Child(List<String> command, Path logDir, String name) throws IOException {
      this(command, logDir, name, Map.of());
    }

    Child(List<String> command, Path logDir, String name, Map<String, String> env)
        throws IOException {
      Files.createDirectories(logDir);
      out = logDir.resolve(name + ".out");
      err = logDir.resolve(name + ".err");
      ProcessBuilder pb =
          new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
      pb.environment().putAll(env);
      process = pb.start();
    }

    /** Waits with a deadline; returns the exit code, or fails naming the logs. */
    int waitFor(long seconds) throws Exception {
      if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
        throw new AssertionError(
            "child JVM still running after " + seconds + " s; stderr tail:\n" + tail(err));
      }
      return process.exitValue();
    }

    String stdout() throws IOException {
      return Files.readString(out);
    }

    String stderrTail() throws IOException {
      return tail(err);
    }

    @Override
    public void close() throws Exception {
      if (process.isAlive()) {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
      }
    }

    static String tail(Path file) throws IOException {
      if (!Files.exists(file)) {
        return "";
      }
      List<String> lines = Files.readAllLines(file);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    }
  }
}
