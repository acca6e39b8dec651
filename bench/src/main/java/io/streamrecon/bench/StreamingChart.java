package io.streamrecon.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamrecon.json.JsonSupport;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import javax.imageio.ImageIO;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.data.category.DefaultCategoryDataset;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The report's streaming chart, drawn from the {@code sustain.json} of {@code bin/bench sustain}
 * runs: on the left the highest produce rate each engine held for the trial length with bounded
 * lag, in events per second; on the right the verdict latency of MATCH and MISMATCH (p50, p95, p99)
 * at half that rate.
 */
@Command(
    name = "streaming-chart",
    description = "Draws sustained throughput and verdict latency from sustain.json files.")
public final class StreamingChart implements Callable<Integer> {
  private static final Map<String, String> LABELS =
      Map.of(
          "flink", "Flink",
          "spark", "Spark",
          "peer", "SS peer");

  @Option(
      names = "--sustain",
      split = ",",
      required = true,
      description =
          "bin/bench sustain directories (their sustain.json) or sustain.json files,"
              + " one per engine")
  List<Path> dirs;

  @Option(names = "--out", defaultValue = "bench/streaming.png")
  Path out;

  @Override
  public Integer call() throws Exception {
    DefaultCategoryDataset rate = new DefaultCategoryDataset();
    DefaultCategoryDataset latency = new DefaultCategoryDataset();
    for (Path d : dirs) {
      Path file = Files.isDirectory(d) ? d.resolve(SustainCommand.JSON) : d;
      JsonNode s = JsonSupport.mapper().readTree(file.toFile());
      String engine = s.path("engine").asText();
      String label = LABELS.getOrDefault(engine, engine);
      boolean allHeld = true;
      for (JsonNode t : s.path("trials")) {
        allHeld &= t.path("judgement").path("held").asBoolean();
      }
      // Every rate tried held: the figure is a floor, not the engine's ceiling.
      rate.addValue(
          s.path("highestEventsPerSecond").asDouble(),
          heldFor(s.path("minutes").asDouble()),
          allHeld ? label + " (≥)" : label);
      JsonNode p = s.path("latency").path("percentilesMillis");
      for (String status : List.of("MATCH", "MISMATCH")) {
        JsonNode q = p.path(status);
        if (q.path("count").asLong() > 0) {
          for (String pct : List.of("p50", "p95", "p99")) {
            latency.addValue(q.path(pct).asLong() / 1000.0, status + " " + pct, label);
          }
        }
      }
    }
    if (rate.getRowCount() > 1) {
      // Trials of different lengths are not the same test; say so instead of hiding it.
      System.out.println("note: the files' trials differ in length: " + rate.getRowKeys());
    }
    JFreeChart left =
        ChartFactory.createBarChart(
            "Highest rate held (bounded lag)",
            "≥: every rate tried held",
            // The legend names the trial length, which the bars alone do not show.
            "events per second (both topics)",
            rate,
            PlotOrientation.VERTICAL,
            true,
            false,
            false);
    JFreeChart right =
        ChartFactory.createBarChart(
            "Verdict latency at half that rate",
            null,
            "seconds from the later Kafka append to the Delta Lake commit",
            latency,
            PlotOrientation.VERTICAL,
            true,
            false,
            false);
    for (JFreeChart c : List.of(left, right)) {
      c.setBackgroundPaint(Color.WHITE);
      CategoryPlot plot = c.getCategoryPlot();
      plot.setBackgroundPaint(Color.WHITE);
      plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
      ((BarRenderer) plot.getRenderer()).setBarPainter(new StandardBarPainter());
    }
    int w = 1400;
    int h = 560;
    BufferedImage img = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = img.createGraphics();
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, w, h);
    left.draw(g, new Rectangle2D.Double(0, 0, w * 0.4, h));
    right.draw(g, new Rectangle2D.Double(w * 0.4, 0, w * 0.6, h));
    g.dispose();
    Files.createDirectories(out.toAbsolutePath().getParent());
    ImageIO.write(img, "png", out.toFile());
    System.out.println("chart: " + out);
    return 0;
  }

  /** The rate series' name: how long each trial produced, as {@code sustain --minutes} set it. */
  static String heldFor(double minutes) {
    return String.format(
        Locale.ROOT,
        "held %s min",
        minutes == Math.rint(minutes) ? String.valueOf((long) minutes) : String.valueOf(minutes));
  }
}
