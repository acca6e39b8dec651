package io.streamrecon.pipeline;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.streamrecon.PackageCycles;
import java.util.List;
import java.util.Set;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.JUnit4;

/**
 * The layers of the pipeline module (docs/architecture.md): the graph, its sources and the command
 * line run on any Beam runner, so nothing here names a runner's classes; the runner modules plug
 * in through {@code RunnerSupport} and {@code WatermarkSource} instead. The package cycles of
 * today are listed and fail once one is gone, so the list only shrinks.
 */
@RunWith(JUnit4.class)
public class LayeringTest {
  private static final JavaClasses MAIN =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("io.streamrecon.pipeline");

  /**
   * Package cycles that exist today, each to be removed (docs/architecture.md, "Open work"); see
   * {@link PackageCycles#assertOnlyKnownCycles} for the notation.
   *
   * <ul>
   *   <li>{@code pipeline <-> pipeline.run}: {@code ReconcileSettings} asks {@code
   *       run.RunnerSupport} and {@code run.Runners} about the runner and {@code ReconcileOptions}
   *       takes its warehouse default from {@code run.Warehouse}, while {@code run} builds and
   *       starts the graph from the options and settings in {@code pipeline}.
   * </ul>
   */
  static final Set<List<String>> KNOWN_CYCLES =
      Set.of(
          List.of("io.streamrecon.pipeline", "io.streamrecon.pipeline.run"));

  @Test
  public void noPackageCyclesButTheKnownOnes() {
    PackageCycles.assertOnlyKnownCycles(MAIN, "io.streamrecon.pipeline", KNOWN_CYCLES);
  }

  /**
   * The runner modules depend on this one, never the reverse: a runner is recognised by the
   * simple name of the options' runner class ({@code Runners}) and tuned through its {@code
   * RunnerSupport}.
   */
  @Test
  public void pipelineDependsOnNoRunnerClass() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "org.apache.beam.runners.spark..",
            "org.apache.beam.runners.flink..",
            "io.streamrecon.runners..")
        .check(MAIN);
  }
}
