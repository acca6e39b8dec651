package io.streamrecon.pipeline.testing;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.streamrecon.deltalake.DeltaLakeTables;
import io.streamrecon.model.DeltaRecord;
import io.streamrecon.model.Difference;
import io.streamrecon.model.Status;
import io.streamrecon.pipeline.ReconcileOptions;
import io.streamrecon.pipeline.run.ReconcileRun;
import io.streamrecon.pipeline.samples.SampleGenerator;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.options.PipelineOptionsFactory;

/**
 * The one small scenario every runner's integration test reconciles: a generated pair of JSON Lines
 * files (every verdict kind, a few bad lines), and the comparison of a run's deltas table with the
 * DirectRunner's.
 */
public final class Scenario {
  /** Seed and size shared by all runner tests. */
  public static final long SEED = 11;

  public static final int IDS = 150;

  private final SampleGenerator generator;
  private final Path source;
  private final Path target;

  private Scenario(SampleGenerator generator, Path source, Path target) {
    this.generator = generator;
    this.source = source;
    this.target = target;
  }

  /** Writes the scenario's two files into {@code dir}. */
  public static Scenario writeTo(Path dir) throws IOException {
    SampleGenerator g = SampleGenerator.generate(SEED, IDS);
    g.writeTo(dir);
    return new Scenario(g, dir.resolve("source.jsonl"), dir.resolve("target.jsonl"));
  }

  /** A scenario for streams produced elsewhere (Kafka): only its expectations are used. */
  public static Scenario of(SampleGenerator generator) {
    return new Scenario(generator, null, null);
  }

  public SampleGenerator generator() {
    return generator;
  }

  /** Options reading the scenario files into {@code warehouse}, plus {@code extra}. */
  public ReconcileOptions options(Path warehouse, String... extra) {
    return options(warehouse.toString(), extra);
  }

  /** As {@link #options(Path, String...)}, into a warehouse given as a path or Hadoop URI. */
  public ReconcileOptions options(String warehouse, String... extra) {
    List<String> args = new ArrayList<>(arguments(warehouse));
    args.addAll(List.of(extra));
    return PipelineOptionsFactory.fromArgs(args.toArray(new String[0])).as(ReconcileOptions.class);
  }

  /** The options of {@link #options(String, String...)} as command-line arguments. */
  public List<String> arguments(String warehouse) {
    return List.of(
        "--source=" + source,
        "--target=" + target,
        "--warehouse=" + warehouse,
        "--runId=scenario",
        "--progressInterval=0s");
  }

  /** Runs to completion and checks that the run's counts add up. */
  public static ReconcileRun.FinishedRun runToCompletion(ReconcileOptions options) {
    ReconcileRun.FinishedRun outcome = ReconcileRun.run(options);
    assertEquals(PipelineResult.State.DONE, outcome.result().getState());
    assertTrue(outcome.summary().format(), outcome.summary().addsUp());
    return outcome;
  }

  /**
   * The verdicts a run ends with, comparable across runners: DeltaRecords that no other record
   * supersedes, without MATCH (whether a resolved mismatch was ever reported depends on arrival
   * order; what it ends as does not), as {@code id status sourceHash targetHash [paths]}.
   */
  public static Set<String> finalView(List<DeltaRecord> records) {
    Set<String> superseded = new HashSet<>();
    for (DeltaRecord d : records) {
      if (d.supersedes() != null) {
        superseded.add(d.supersedes());
      }
    }
    Set<String> view = new TreeSet<>();
    for (DeltaRecord d : records) {
      if (superseded.contains(d.verdictId()) || d.status() == Status.MATCH) {
        continue;
      }
      List<String> paths = new ArrayList<>();
      for (Difference diff : d.differences()) {
        paths.add(diff.path() + ":" + diff.kind());
      }
      view.add(
          d.naturalId()
              + " "
              + d.status()
              + " "
              + d.sourceHash()
              + " "
              + d.targetHash()
              + " "
              + paths);
    }
    return view;
  }

  /** The final view of the deltas table under {@code warehouse}. */
  public static Set<String> finalView(Path warehouse) {
    return finalView(warehouse.toString());
  }

  /** The final view of the deltas table under {@code warehouse}, a path or Hadoop URI. */
  public static Set<String> finalView(String warehouse) {
    return finalView(DeltaLakeTables.readDeltas(warehouse));
  }

  /** Asserts that each natural id ends as the generator meant: status and differing paths. */
  public void assertExpected(Path warehouse) {
    assertExpected(warehouse.toString());
  }

  /** As {@link #assertExpected(Path)}, for a warehouse given as a path or Hadoop URI. */
  public void assertExpected(String warehouse) {
    Map<String, String> actual = new TreeMap<>();
    for (String line : finalView(warehouse)) {
      String[] parts = line.split(" ", 5);
      String status = parts[1];
      if (status.equals("MISMATCH")) {
        status +=
            " "
                + Stream.of(parts[4].replaceAll("[\\[\\]]", "").split(", "))
                    .map(p -> p.substring(0, p.indexOf(':')))
                    .sorted()
                    .toList();
      }
      actual.put(parts[0], status);
    }
    Map<String, String> expected = new TreeMap<>();
    for (Map.Entry<String, SampleGenerator.Kind> e : generator.expectations().entrySet()) {
      Status s = SampleGenerator.expectedStatus(e.getValue());
      if (s == Status.MISMATCH) {
        expected.put(e.getKey(), "MISMATCH " + generator.mismatchPaths().get(e.getKey()));
      } else if (s != null) {
        expected.put(e.getKey(), s.name());
      }
    }
    if (!expected.equals(actual)) {
      List<String> wrong = new ArrayList<>();
      Set<String> ids = new TreeSet<>(expected.keySet());
      ids.addAll(actual.keySet());
      for (String id : ids) {
        if (!java.util.Objects.equals(expected.get(id), actual.get(id))) {
          wrong.add(id + ": expected " + expected.get(id) + ", got " + actual.get(id));
        }
      }
      throw new AssertionError(
          wrong.size()
              + " of "
              + expected.size()
              + " ids differ from the expected verdicts, e.g. "
              + wrong.subList(0, Math.min(20, wrong.size())));
    }
  }
}
