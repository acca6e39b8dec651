package io.streamrecon.runners.cluster;

import io.streamrecon.pipeline.testing.Scenario;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The shared scenario's input files and the DirectRunner's final verdicts on them, which every jar
 * and cluster test compares its run with. Computed once per test JVM (surefire runs all classes of
 * the module in one), in a directory removed when the JVM exits.
 */
final class DirectReference {
  private static DirectReference instance;

  final Scenario scenario;

  /** Holds {@code source.jsonl} and {@code target.jsonl}. */
  final Path input;

  /** {@link Scenario#finalView} of the DirectRunner's warehouse. */
  final Set<String> verdicts;

  private DirectReference(Scenario scenario, Path input, Set<String> verdicts) {
    this.scenario = scenario;
    this.input = input;
    this.verdicts = verdicts;
  }

  static synchronized DirectReference get() throws IOException {
    if (instance == null) {
      Path dir = Files.createTempDirectory("streamrecon-direct-reference");
      Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(dir)));
      Path input = Files.createDirectories(dir.resolve("input"));
      Scenario scenario = Scenario.writeTo(input);
      Path wh = dir.resolve("warehouse");
      Scenario.runToCompletion(scenario.options(wh, "--runner=DirectRunner"));
      instance = new DirectReference(scenario, input, Scenario.finalView(wh));
    }
    return instance;
  }

  private static void deleteTree(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
