package io.streamrecon.bench;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamrecon.json.JsonSupport;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;
import picocli.CommandLine;

public class StreamingChartTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  /** sustain.json as SustainCommand writes it: records serialised by their component names. */
  private Path sustainDir(String engine, double events, long p50) throws Exception {
    Path dir = tmp.newFolder(engine).toPath();
    Map<String, Object> latency = new LinkedHashMap<>();
    latency.put("idsPerSecond", 100.0);
    latency.put(
        "percentilesMillis",
        Map.of("MATCH", new VerdictLatency.Percentiles(10, p50, p50 * 2, p50 * 3, p50 * 4)));
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("engine", engine);
    json.put("minutes", 3.0);
    json.put(
        "trials",
        List.of(
            Map.of(
                "judgement",
                SustainRule.judge(
                    List.of(
                        new SustainRule.Sample(80, 10),
                        new SustainRule.Sample(100, 10),
                        new SustainRule.Sample(120, 10)),
                    100,
                    120,
                    120,
                    1))));
    json.put("highestEventsPerSecond", events);
    json.put("latency", latency);
    JsonSupport.mapper().writeValue(dir.resolve(SustainCommand.JSON).toFile(), json);
    return dir;
  }

  @Test
  public void drawsRateAndLatencyFromSustainJson() throws Exception {
    Path flink = sustainDir("flink", 4000, 9000);
    Path spark = sustainDir("spark", 1500, 25000);
    JsonNode read = JsonSupport.mapper().readTree(flink.resolve(SustainCommand.JSON).toFile());
    assertEquals(
        9000, read.path("latency").path("percentilesMillis").path("MATCH").path("p50").asLong());
    assertTrue(read.path("trials").get(0).path("judgement").path("held").asBoolean());

    Path png = tmp.getRoot().toPath().resolve("streaming.png");
    int rc =
        new CommandLine(new StreamingChart())
            .execute("--sustain=" + flink + "," + spark, "--out=" + png);
    assertEquals(0, rc);
    BufferedImage img = ImageIO.read(png.toFile());
    assertEquals(1400, img.getWidth());
    assertTrue(Files.size(png) > 10_000);
  }

  @Test
  public void namesTheTrialLengthTheFilesGive() {
    assertEquals("held 3 min", StreamingChart.heldFor(3.0));
    assertEquals("held 2.5 min", StreamingChart.heldFor(2.5));
  }
}
