package io.streamrecon.runners.cluster;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.streamrecon.pipeline.testing.Scenario;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The flink-run jar as {@code flink run} runs it: Flink's {@code CliFrontend} started from a Flink
 * 1.19 distribution's class path (runners/dist/flink), the jar loaded by Flink's child-first user
 * class loader, {@code -t local} (an embedded cluster in the client JVM); its final verdicts on the
 * shared scenario must equal the DirectRunner's.
 */
public class FlinkRunJarTest {
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
  public void jarHoldsNoFlinkAndRelocatesSharedLibraries() throws Exception {
    Path jar = Distribution.builtJar("flink", "-flink-run.jar");
    assertEquals(
        List.of(),
        Distribution.classesUnder(jar, "org/apache/flink/", "com/esotericsoftware/", "org/slf4j/"));
    assertEquals(
        List.of(),
        Distribution.classesUnder(
            jar, "com/google/common/", "com/google/protobuf/", "com/fasterxml/jackson/"));
  }

  @Test
  public void flinkRunOnDistributionClassPathAgreesWithDirect() throws Exception {
    Path jar = Distribution.builtJar("flink", "-flink-run.jar");
    Path wh = tmp.newFolder("flink-run").toPath();
    Path conf = tmp.newFolder("flink-conf").toPath();
    Files.writeString(conf.resolve("config.yaml"), "parallelism.default: 2\n");
    List<String> cmd = Distribution.jvm(Distribution.distClassPath("flink"), "-Xmx1g");
    cmd.addAll(
        List.of(
            "org.apache.flink.client.cli.CliFrontend",
            "run",
            "-t",
            "local",
            "-c",
            "io.streamrecon.runners.flink.FlinkMain",
            jar.toString(),
            "--source=" + input.resolve("source.jsonl"),
            "--target=" + input.resolve("target.jsonl"),
            "--warehouse=" + wh,
            "--runId=scenario",
            "--streaming=true",
            "--parallelism=2",
            "--commitInterval=1s",
            "--progressInterval=0s"));
    try (Distribution.Child child =
        new Distribution.Child(
            cmd, wh.getParent(), "flink-run", Map.of("FLINK_CONF_DIR", conf.toString()))) {
      int code = child.waitFor(300);
      assertEquals("flink run failed; stderr tail:\n" + child.stderrTail(), 0, code);
      assertTrue(child.stdout(), child.stdout().contains("counts add up"));
    }
    assertEquals(direct, Scenario.finalView(wh));
    scenario.assertExpected(wh);
  }
}
