package io.streamrecon.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/** The report's PNG: events per second against input events, one line per contender, log axes. */
final class Chart {
  private Chart() {}

  static final Map<String, String> LABELS =
      Map.of(
          "bare", "1 bare Java loop (in memory)",
          "direct", "2 streamrecon, DirectRunner",
          "spark", "3 streamrecon, SparkRunner local[2]",
          "peer", "4 Spark Structured Streaming peer",
          "flink", "5 streamrecon, FlinkRunner [local] p=2 (own JVM)");

  /** One colour per contender, whichever of them ran. */
  private static final Map<String, Color> COLORS =
      Map.of(
          "bare", new Color(0x555555),
          "direct", new Color(0x1f77b4),
          "spark", new Color(0xff7f0e),
          "peer", new Color(0x2ca02c),
          "flink", new Color(0x9467bd));

  /** A log axis with ticks at powers of ten, labelled as plain numbers, spanning the data. */
  private static LogAxis axis(String label, XYSeriesCollection data, boolean domain) {
    double lo = Double.MAX_VALUE;
    double hi = 0;
    for (int s = 0; s < data.getSeriesCount(); s++) {
      for (int i = 0; i < data.getItemCount(s); i++) {
        double v = domain ? data.getXValue(s, i) : data.getYValue(s, i);
        lo = Math.min(lo, v);
        hi = Math.max(hi, v);
      }
    }
    LogAxis a = new LogAxis(label);
    a.setBase(10);
    a.setTickUnit(new org.jfree.chart.axis.NumberTickUnit(1.0));
    a.setNumberFormatOverride(new java.text.DecimalFormat("#,##0"));
    if (hi > 0) {
      a.setRange(
          Math.pow(10, Math.floor(Math.log10(lo))), Math.pow(10, Math.ceil(Math.log10(hi * 1.01))));
    }
    return a;
  }

  static void write(Path png, List<RunCommand.Row> rows) throws IOException {
    Map<String, XYSeries> series = new LinkedHashMap<>();
    for (String c : List.of("bare", "direct", "spark", "peer", "flink")) {
      series.put(c, new XYSeries(LABELS.get(c)));
    }
    for (RunCommand.Row r : rows) {
      if (r.result() != null && r.dataSet().startsWith("u") && series.containsKey(r.contender())) {
        series.get(r.contender()).add(r.result().events(), r.result().eventsPerSecond());
      }
    }
    XYSeriesCollection data = new XYSeriesCollection();
    List<Color> colors = new java.util.ArrayList<>();
    for (Map.Entry<String, XYSeries> s : series.entrySet()) {
      if (s.getValue().getItemCount() > 0) {
        data.addSeries(s.getValue());
        colors.add(COLORS.get(s.getKey()));
      }
    }
    LogAxis x = axis("input events (source + target)", data, true);
    LogAxis y = axis("events per second, end to end", data, false);
    XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
    for (int i = 0; i < data.getSeriesCount(); i++) {
      renderer.setSeriesPaint(i, colors.get(i));
      renderer.setSeriesStroke(i, new BasicStroke(2f));
    }
    XYPlot plot = new XYPlot(data, x, y, renderer);
    plot.setBackgroundPaint(Color.WHITE);
    plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
    plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
    JFreeChart chart =
        new JFreeChart("Throughput against N (2 cores)", JFreeChart.DEFAULT_TITLE_FONT, plot, true);
    chart.setBackgroundPaint(Color.WHITE);
    chart.addSubtitle(
        new org.jfree.chart.title.TextTitle(
            "events/s includes engine start-up, Delta Lake writes where the design has them"));
    Files.createDirectories(png.toAbsolutePath().getParent());
    ChartUtils.saveChartAsPNG(png.toFile(), chart, 900, 560);
  }
}
