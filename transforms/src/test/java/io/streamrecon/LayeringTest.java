package io.streamrecon;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.List;
import java.util.Set;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.JUnit4;

/**
 * The layers of the transforms module (docs/architecture.md): on the core and storage modules, side
 * by side, the Beam transforms ({@code io.streamrecon.transforms}, with the Beam coders of the
 * model records) and the Beam IO over the storage ({@code io.streamrecon.transforms.deltalake}).
 * That the core and the storage use no Beam is checked in their own modules, whose class paths have
 * none.
 */
@RunWith(JUnit4.class)
public class LayeringTest {
  private static final JavaClasses MAIN =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("io.streamrecon.transforms");

  /**
   * Package cycles that exist today: none in this module, so any cycle fails the test. See {@link
   * PackageCycles#assertOnlyKnownCycles} for the notation, should one ever have to be tolerated.
   */
  static final Set<List<String>> KNOWN_CYCLES = Set.of();

  @Test
  public void noPackageCyclesButTheKnownOnes() {
    PackageCycles.assertOnlyKnownCycles(MAIN, "io.streamrecon", KNOWN_CYCLES);
  }

  /**
   * The Beam transforms (parse, pair, diff) know nothing of the Delta Lake IO: they meet in the
   * model records, and the pipeline module wires them together. The IO uses the model records'
   * coders ({@code ModelCoders}) from the transforms' package, so this rule runs one way.
   */
  @Test
  public void beamTransformsDoNotUseTheDeltaLakeIO() {
    noClasses()
        .that()
        .resideInAPackage("io.streamrecon.transforms..")
        .and()
        .resideOutsideOfPackage("io.streamrecon.transforms.deltalake..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.streamrecon.transforms.deltalake..")
        .check(MAIN);
  }

  /** Maven keeps the pipeline module off this module's class path; this keeps the rule stated. */
  @Test
  public void transformsDoNotDependOnThePipeline() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.streamrecon.pipeline..")
        .check(MAIN);
  }
}
