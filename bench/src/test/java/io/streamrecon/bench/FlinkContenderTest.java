package io.streamrecon.bench;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import io.streamrecon.bench.FlinkContender.GcPeaks;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class FlinkContenderTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  private static Expected expected(Duration timeout) {
    GeneratorConfig d = GeneratorConfig.defaults();
    VerdictCounts none = new VerdictCounts(0, 0, 0, 0, 0, 0);
    return new Expected(
        10,
        10,
        10,
        10,
        100,
        1,
        0,
        0,
        none,
        none,
        d.withTiming(d.spacing(), d.disorder(), d.recordsPerFile(), timeout));
  }

  @Test
  public void thePipelineJvmRunsFlinkMainWithTheBeamContendersOptions() {
    Path data = Path.of("/data/u1000");
    Path warehouse = Path.of("/work/warehouse");
    Expected e = expected(Duration.ofSeconds(60));
    List<String> cmd =
        FlinkContender.command(
            "/jdk/bin/java",
            "8g",
            "/r/jars/*:/r/run.jar",
            Path.of("/run/flink-gc.log"),
            Path.of("/work/log4j2.properties"),
            null,
            data,
            e,
            warehouse,
            List.of("--fasterCopy=true"));

    assertEquals("/jdk/bin/java", cmd.get(0));
    assertEquals("-Xmx8g", cmd.get(1));
    assertThat(cmd, hasItem("-Xlog:gc,gc+heap+exit:file=/run/flink-gc.log"));
    assertThat(cmd, hasItem("-Dlog4j2.configurationFile=/work/log4j2.properties"));
    for (String open : RunCommand.sparkFlags()) {
      assertThat(cmd, hasItem(open));
    }
    assertThat(String.join(" ", cmd), not(containsString("StartFlightRecording")));
    int cp = cmd.indexOf("-cp");
    assertEquals("/r/jars/*:/r/run.jar", cmd.get(cp + 1));
    assertEquals("io.streamrecon.runners.flink.FlinkMain", cmd.get(cp + 2));
    // Everything before the main class is a JVM option, everything after it a pipeline option.
    List<String> options = cmd.subList(cp + 3, cmd.size());
    List<String> want = new ArrayList<>(BeamContender.commonArgs(data, e, warehouse));
    want.addAll(
        List.of(
            "--runner=FlinkRunner",
            "--flinkMaster=[local]",
            "--parallelism=2",
            "--fasterCopy=true"));
    assertEquals(want, options);
    assertThat(options, hasItem("--source=/data/u1000/source/*.jsonl"));
    assertThat(options, hasItem("--target=/data/u1000/target/*.jsonl"));
    assertThat(options, hasItem("--warehouse=/work/warehouse"));
    assertThat(options, hasItem("--timeout=60000ms"));
    assertThat(options, hasItem("--emitMatches=true"));
  }

  @Test
  public void aJfrRecordingIsAJvmOptionOfThePipelineJvm() {
    List<String> cmd =
        FlinkContender.command(
            "java",
            "2g",
            "cp",
            Path.of("gc.log"),
            Path.of("log.properties"),
            Path.of("/p/profile.jfr"),
            Path.of("/d"),
            expected(Duration.ofSeconds(5)),
            Path.of("/w"),
            List.of());
    int jfr =
        cmd.indexOf(
            "-XX:StartFlightRecording=filename=/p/profile.jfr,settings=profile,dumponexit=true");
    assertTrue(jfr > 0 && jfr < cmd.indexOf("-cp"));
  }

  @Test
  public void theClasspathIsTheDistributionsJarsThenTheRunJar() {
    Path root = Path.of("/repo");
    assertEquals(
        "/repo/runners/dist/flink/target/jars/*"
            + File.pathSeparator
            + "/repo/runners/flink/target/streamrecon-runner-flink-0.2.0-SNAPSHOT-flink-run.jar",
        FlinkContender.classpath(root));
  }

  @Test
  public void missingJarsAreNamedWithTheCommandThatBuildsThem() throws Exception {
    Path root = tmp.getRoot().toPath();
    String message = FlinkContender.missing(root);
    assertThat(message, containsString(root.resolve(FlinkContender.DIST_JARS).toString()));
    assertThat(message, containsString(root.resolve(FlinkContender.RUN_JAR).toString()));
    assertThat(
        message,
        containsString("mvn -B package -DskipTests -pl runners/flink,runners/dist/flink -am"));

    Files.createDirectories(root.resolve(FlinkContender.DIST_JARS));
    Files.createFile(root.resolve(FlinkContender.DIST_JARS).resolve("flink-runtime-1.19.0.jar"));
    message = FlinkContender.missing(root);
    assertThat(message, containsString(FlinkContender.RUN_JAR));
    assertThat(message, not(containsString("flink-runtime")));

    Files.createDirectories(root.resolve(FlinkContender.RUN_JAR).getParent());
    Files.createFile(root.resolve(FlinkContender.RUN_JAR));
    assertNull(FlinkContender.missing(root));
  }

  @Test
  public void summaryRowsAreReadFromTheOutput() {
    List<String> out =
        List.of(
            "17:59:49 INFO MiniCluster: Flink Mini Cluster started successfully",
            "streamrecon summary",
            "  input lines/records, source       1,002,023",
            "  raw events                            4,010",
            "  match                                 1,825",
            "    of which within tolerance               0",
            "  mismatch                                117",
            "  duplicate                                43",
            "  late                                      0",
            "counts add up: input 4010 = blank lines 0 + dead letters 0 + raw events 4010; ...",
            "  after                                     7");
    Map<String, Long> rows = FlinkContender.parseSummary(out);
    assertEquals(
        Map.of(
            "input lines/records, source", 1_002_023L,
            "raw events", 4010L,
            "match", 1825L,
            "of which within tolerance", 0L,
            "mismatch", 117L,
            "duplicate", 43L,
            "late", 0L),
        rows);
    assertEquals(Map.of(), FlinkContender.parseSummary(List.of("  match   12")));
  }

  @Test
  public void heapPeaksComeFromPausesAndTheHeapAtExit() {
    List<String> g1 =
        List.of(
            "[0.008s][info][gc] Using G1",
            "[1.084s][info][gc] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 35M->22M(380M) 61.167ms",
            "[5.496s][info][gc] GC(5) Pause Young (Normal) (G1 Evacuation Pause) 248M->28M(380M) 25.449ms",
            "[6.361s][info][gc] GC(7) Concurrent Mark Cycle",
            "[6.505s][info][gc] GC(7) Pause Remark 33M->33M(117M) 5.916ms",
            "[8.111s][info][gc] GC(8) Pause Full (System.gc()) 66M->31M(114M) 100.372ms",
            "[33.124s][info][gc] GC(35) Pause Young (Concurrent Start) (G1 Humongous Allocation) 217M->101M(290M) 16.645ms",
            "[34.956s][info][gc,heap,exit] Heap",
            "[34.956s][info][gc,heap,exit]  garbage-first heap   total 296960K, used 217915K [0x0000000080000000, 0x0000000100000000)",
            "[34.956s][info][gc,heap,exit]   region size 1024K, 113 young (115712K), 6 survivors (6144K)",
            "[34.956s][info][gc,heap,exit]  Metaspace       used 110470K, committed 111232K, reserved 1179648K");
    assertEquals(new GcPeaks(248L << 20, 101L << 20, 5), GcPeaks.parse(g1));

    // No collection at all: the heap at exit, summed over generations (Serial GC's layout).
    List<String> serial =
        List.of(
            "[0.420s][info][gc,heap,exit] Heap",
            "[0.420s][info][gc,heap,exit]  def new generation   total 9792K, used 5000K [0x00000000e0000000, 0x00000000e0aa0000)",
            "[0.420s][info][gc,heap,exit]   eden space 8704K,  57% used [0x00000000e0000000, 0x00000000e04e0000)",
            "[0.420s][info][gc,heap,exit]  tenured generation   total 21888K, used 1000K [0x00000000eaaa0000, 0x00000000ec000000)",
            "[0.420s][info][gc,heap,exit]  Metaspace       used 900K, committed 1024K, reserved 1056768K");
    assertEquals(new GcPeaks(6000L << 10, 0, 0), GcPeaks.parse(serial));
  }
}
