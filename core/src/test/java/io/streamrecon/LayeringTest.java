package io.streamrecon;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.Assert.assertThrows;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.List;
import java.util.Set;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.JUnit4;

/**
 * The core module (docs/architecture.md): the pure logic and records ({@code json}, {@code model},
 * {@code files}) at the bottom of every other module, testable without any engine. Maven keeps
 * Beam, Delta Kernel, Hadoop and Parquet off its class path; these rules state it, and fail should
 * one of them come back through the pom.
 */
@RunWith(JUnit4.class)
public class LayeringTest {
  private static final JavaClasses MAIN =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("io.streamrecon");

  /**
   * Package cycles that exist today: none in this module, so any cycle fails the test. See {@link
   * PackageCycles#assertOnlyKnownCycles} for the notation, should one ever have to be tolerated.
   */
  static final Set<List<String>> KNOWN_CYCLES = Set.of();

  @Test
  public void usesNoBeamNoDeltaKernelNoHadoopNoParquet() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "org.apache.beam..", "io.delta..", "org.apache.hadoop..", "org.apache.parquet..")
        .check(MAIN);
  }

  /** Not even unused: a Beam jar on this class path would be a dependency of every module. */
  @Test
  public void beamIsNotOnTheClassPath() {
    assertThrows(
        ClassNotFoundException.class,
        () -> Class.forName("org.apache.beam.sdk.Pipeline", false, getClass().getClassLoader()));
  }

  /** The storage, the Beam transforms and the pipeline build on this module, never the reverse. */
  @Test
  public void usesNoUpperLayer() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.streamrecon.deltalake..",
            "io.streamrecon.transforms..",
            "io.streamrecon.pipeline..")
        .check(MAIN);
  }

  @Test
  public void noPackageCyclesButTheKnownOnes() {
    PackageCycles.assertOnlyKnownCycles(MAIN, "io.streamrecon", KNOWN_CYCLES);
  }
}
