package io.streamrecon.pipeline;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.streamrecon.PackageCycles;
import io.streamrecon.pipeline.runner.RunnerProfile;
import java.util.List;
import java.util.Set;
import org.apache.beam.sdk.options.PipelineOptions;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.JUnit4;

/**
 * The layers of the pipeline module (docs/architecture.md): the graph, its sources and the command
 * line run on any Beam runner, so nothing here names a runner's classes; the runner modules plug in
 * through {@code RunnerSupport} and {@code WatermarkSource} instead, and only {@link RunnerProfile}
 * asks which runner the options name. The package cycles of today are listed and fail once one is
 * gone, so the list only shrinks.
 */
@RunWith(JUnit4.class)
public class LayeringTest {
  private static final JavaClasses MAIN =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("io.streamrecon.pipeline");

  /**
   * Package cycles that exist today, each to be removed (docs/architecture.md, "Open work"); see
   * {@link PackageCycles#assertOnlyKnownCycles} for the notation. None today: a new cycle fails.
   */
  static final Set<List<String>> KNOWN_CYCLES = Set.of();

  @Test
  public void noPackageCyclesButTheKnownOnes() {
    PackageCycles.assertOnlyKnownCycles(MAIN, "io.streamrecon.pipeline", KNOWN_CYCLES);
  }

  /**
   * The runner modules depend on this one, never the reverse: a runner's choices reach the run
   * through its {@code RunnerSupport}, which makes its {@link RunnerProfile}.
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

  /**
   * Every runner-specific choice is made once, in the runner's profile: no class but {@link
   * RunnerProfile} reads the options' runner ({@code getRunner()}), so none can test a runner's
   * name or class on its own.
   */
  @Test
  public void onlyTheRunnerProfileReadsTheRunner() {
    noClasses()
        .that()
        .doNotBelongToAnyOf(RunnerProfile.class)
        .should()
        .callMethodWhere(
            DescribedPredicate.describe(
                "getRunner() of the pipeline options",
                call ->
                    call.getName().equals("getRunner")
                        && call.getTargetOwner().isAssignableTo(PipelineOptions.class)))
        .check(MAIN);
  }
}
