package io.streamrecon.runners.cluster;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.streamrecon.pipeline.testing.Scenario;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The spark-submit jar as a Spark 3.5 distribution runs it: {@code SparkSubmit} started from the
 * distribution's jars (runners/dist/spark), the jar added after them, {@code local[2]}; its final
 * verdicts on the shared scenario must equal the DirectRunner's.
 */
public class SparkSubmitJarTest {
  @ClassRule public static TemporaryFolder tmp = new TemporaryFolder();

  private static Scenario scenario;
  private static Path input;
  private static Set<String> direct;

  @BeforeClass
  public static void runDirect() throws Exception {
    DirectReference reference = DirectReference.get();
    scenario = reference.scenario;
    input = reference.input;
    direct = reference.verdicts;
  }

  @Test
  public void jarHoldsNoSparkScalaHadoopAndRelocatesSharedLibraries() throws Exception {
    Path jar = Distribution.builtJar("spark", "-spark-submit.jar");
    assertEquals(
        List.of(),
        head(Distribution.classesUnder(jar, "org/apache/spark/", "scala/", "org/apache/hadoop/")));
    assertEquals(
        List.of(),
        head(
            Distribution.classesUnder(
                jar,
                "com/google/common/",
                "com/google/protobuf/",
                "com/fasterxml/jackson/",
                "org/apache/parquet/",
                "org/apache/avro/",
                "org/apache/commons/",
                "org/slf4j/",
                "org/apache/logging/")));
    assertTrue(
        !Distribution.classesUnder(jar, "io/streamrecon/shaded/com/google/common/").isEmpty());
  }

  @Test
  public void sparkSubmitOnDistributionClassPathAgreesWithDirect() throws Exception {
    Path jar = Distribution.builtJar("spark", "-spark-submit.jar");
    Path wh = tmp.newFolder("spark-submit").toPath();
    List<String> cmd = Distribution.jvm(Distribution.distClassPath("spark"), "-Xmx1g");
    cmd.addAll(
        List.of(
            "org.apache.spark.deploy.SparkSubmit",
            "--master",
            "local[2]",
            "--class",
            "io.streamrecon.runners.spark.SparkMain",
            "--conf",
            "spark.ui.enabled=false",
            jar.toString(),
            "--source=" + input.resolve("source.jsonl"),
            "--target=" + input.resolve("target.jsonl"),
            "--warehouse=" + wh,
            "--runId=scenario",
            "--progressInterval=0s"));
    try (Distribution.Child child = new Distribution.Child(cmd, wh.getParent(), "spark-submit")) {
      int code = child.waitFor(300);
      assertEquals("spark-submit failed; stderr tail:\n" + child.stderrTail(), 0, code);
      assertTrue(child.stdout(), child.stdout().contains("counts add up"));
    }
    assertEquals(direct, Scenario.finalView(wh));
    scenario.assertExpected(wh);
  }

  private static List<String> head(List<String> names) {
    return names.subList(0, Math.min(20, names.size()));
  }
}
