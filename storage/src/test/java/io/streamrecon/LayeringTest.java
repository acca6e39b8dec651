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
 * The storage module (docs/architecture.md): the Delta Lake tables on Delta Kernel, on the core
 * module, without Beam. Maven keeps Beam off its class path (the Beam IO over it is in the
 * transforms module); these rules state it, and fail should Beam come back through the pom.
 */
@RunWith(JUnit4.class)
public class LayeringTest {
  /** This module's classes and the core module's below them. */
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
  public void storageUsesNoBeam() {
    noClasses()
        .that()
        .resideInAPackage("io.streamrecon.deltalake..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("org.apache.beam..")
        .check(MAIN);
  }

  /** Not even unused: the storage's tests, its readers and the commands run without Beam. */
  @Test
  public void beamIsNotOnTheClassPath() {
    assertThrows(
        ClassNotFoundException.class,
        () -> Class.forName("org.apache.beam.sdk.Pipeline", false, getClass().getClassLoader()));
  }

  /** The Beam IO and the pipeline build on the storage, never the reverse. */
  @Test
  public void storageUsesNoUpperLayer() {
    noClasses()
        .that()
        .resideInAPackage("io.streamrecon.deltalake..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("io.streamrecon.transforms..", "io.streamrecon.pipeline..")
        .check(MAIN);
  }

  @Test
  public void noPackageCyclesButTheKnownOnes() {
    PackageCycles.assertOnlyKnownCycles(MAIN, "io.streamrecon", KNOWN_CYCLES);
  }
}
