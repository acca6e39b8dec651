package io.streamrecon;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.Assert.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.JUnit4;

/**
 * The layers of the transforms module (docs/architecture.md): the pure logic ({@code json}, {@code
 * model}, {@code files}) at the bottom; on it, side by side, the Delta Lake storage on Delta Kernel
 * and the Beam transforms; on the storage, its Beam IO. Each rule states what holds today; the
 * lists of exceptions name what is still to be split out and fail once an entry no longer applies,
 * so they only ever shrink.
 */
@RunWith(JUnit4.class)
public class LayeringTest {
  private static final JavaClasses MAIN =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("io.streamrecon");

  private static final String[] BEAM = {"org.apache.beam.."};
  private static final String[] STORAGE_LIBRARIES = {
    "io.delta..", "org.apache.hadoop..", "org.apache.parquet.."
  };

  /**
   * The model classes that use Beam: the Beam coders of the model records, to move next to the
   * transforms that set them.
   */
  static final List<String> BEAM_IN_MODEL = List.of("io.streamrecon.model.ModelCoders");

  /**
   * The Beam IO layer over the Delta Lake storage: the transforms and DoFns that write, commit and
   * read tables, and the coder of what a commit emits. These are Beam code by design.
   */
  static final List<String> DELTA_LAKE_BEAM_IO =
      List.of(
          "io.streamrecon.deltalake.DeltaLakeIO",
          "io.streamrecon.deltalake.WriteDataFilesFn",
          "io.streamrecon.deltalake.CommitFiles",
          "io.streamrecon.deltalake.DeltaLakeCommitCoder",
          "io.streamrecon.deltalake.ReadPayloads",
          "io.streamrecon.deltalake.ReadRawEvents");

  /**
   * Storage records that carry their own Beam coder (for the PCollections of the Beam IO): storage
   * otherwise, their coders to be split out into the Beam IO layer.
   */
  static final List<String> DELTA_LAKE_STORAGE_WITH_BEAM_CODER =
      List.of("io.streamrecon.deltalake.DataFile", "io.streamrecon.deltalake.CommittedRows");

  /**
   * Package cycles that exist today: none in this module, so any cycle fails the test. See {@link
   * PackageCycles#assertOnlyKnownCycles} for the notation, should one ever have to be tolerated.
   */
  static final Set<List<String>> KNOWN_CYCLES = Set.of();

  /** The pure logic: parsing, hashing, diffing and the records, testable without any engine. */
  @Test
  public void jsonModelAndFilesUseNoBeamNoDeltaKernelNoHadoop() {
    noClasses()
        .that()
        .resideInAnyPackage(
            "io.streamrecon.json..", "io.streamrecon.model..", "io.streamrecon.files..")
        .and()
        .doNotBelongToAnyOf(classes(BEAM_IN_MODEL))
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(concat(BEAM, STORAGE_LIBRARIES))
        .check(MAIN);
  }

  /**
   * Everything in {@code deltalake} that is not listed as Beam IO is the Beam-free storage on Delta
   * Kernel (committer, history, data files, maintenance, erasure, readers): a new class there is
   * storage unless it is added to the list.
   */
  @Test
  public void deltaLakeStorageUsesNoBeam() {
    noClasses()
        .that()
        .resideInAPackage("io.streamrecon.deltalake..")
        .and()
        .doNotBelongToAnyOf(classes(DELTA_LAKE_BEAM_IO))
        .and()
        .doNotBelongToAnyOf(classes(DELTA_LAKE_STORAGE_WITH_BEAM_CODER))
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(BEAM)
        .check(MAIN);
  }

  /** An entry that no longer uses Beam (or no longer exists) must leave its list. */
  @Test
  public void everyListedBeamUserStillUsesBeam() {
    List<String> stale = new ArrayList<>();
    Stream.of(BEAM_IN_MODEL, DELTA_LAKE_BEAM_IO, DELTA_LAKE_STORAGE_WITH_BEAM_CODER)
        .flatMap(List::stream)
        .filter(name -> !usesBeam(name))
        .forEach(stale::add);
    assertTrue("Listed as using Beam but no longer do: " + stale, stale.isEmpty());
  }

  @Test
  public void noPackageCyclesButTheKnownOnes() {
    PackageCycles.assertOnlyKnownCycles(MAIN, "io.streamrecon", KNOWN_CYCLES);
  }

  /**
   * The Beam transforms (parse, pair, diff) and the Delta Lake code know nothing of each other:
   * they meet in the model records, and the pipeline module wires them together.
   */
  @Test
  public void beamTransformsAndDeltaLakeDoNotDependOnEachOther() {
    noClasses()
        .that()
        .resideInAPackage("io.streamrecon.transforms..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.streamrecon.deltalake..")
        .check(MAIN);
    noClasses()
        .that()
        .resideInAPackage("io.streamrecon.deltalake..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.streamrecon.transforms..")
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

  /** Whether the class or one nested in it uses a Beam class. */
  private static boolean usesBeam(String className) {
    return MAIN.stream()
        .filter(c -> c.getName().equals(className) || c.getName().startsWith(className + "$"))
        .flatMap(c -> c.getDirectDependenciesFromSelf().stream())
        .anyMatch(d -> d.getTargetClass().getBaseComponentType().getPackageName().startsWith("org.apache.beam."));
  }

  /** The classes named, loaded: the deltalake ones are package-private. */
  private static Class<?>[] classes(List<String> names) {
    return names.stream().map(LayeringTest::load).toArray(Class<?>[]::new);
  }

  private static Class<?> load(String name) {
    try {
      return Class.forName(name, false, LayeringTest.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new AssertionError("Listed class " + name + " does not exist: update the list", e);
    }
  }

  private static String[] concat(String[] a, String[] b) {
    return Stream.concat(Stream.of(a), Stream.of(b)).toArray(String[]::new);
  }
}
