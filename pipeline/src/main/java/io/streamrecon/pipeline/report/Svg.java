package io.streamrecon.pipeline.report;

import io.streamrecon.model.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Inline SVG charts, generated as text: no script and no downloaded library. Colours are the
 * Okabe–Ito palette (distinguishable with the common colour-vision deficiencies); statuses are told
 * apart by fill pattern and label too, never by colour alone. Every chart is an {@code <svg
 * data-chart=...>} with {@code role="img"}, an accessible name and a {@code <title>} per mark.
 */
final class Svg {
  static final String FONT = "font-family=\"system-ui, -apple-system, 'Segoe UI', sans-serif\"";

  /** Okabe–Ito colours by status, in stacking order (bottom first). */
  static String colour(Status s) {
    return switch (s) {
      case MATCH -> "#009E73"; // bluish green
      case MISMATCH -> "#D55E00"; // vermillion
      case MISSING_IN_TARGET -> "#0072B2"; // blue
      case MISSING_IN_SOURCE -> "#E69F00"; // orange
    };
  }

  static String label(Status s) {
    return switch (s) {
      case MATCH -> "match";
      case MISMATCH -> "mismatch";
      case MISSING_IN_TARGET -> "missing in target";
      case MISSING_IN_SOURCE -> "missing in source";
    };
  }

  /** Neutral bar colour (Okabe–Ito blue) for charts that are not per status. */
  static final String BAR = "#0072B2";

  /** Late events: Okabe–Ito reddish purple. */
  static final String LATE = "#CC79A7";

  private Svg() {}

  /** Pattern definitions for one chart; ids are prefixed so several charts can share a page. */
  static String patterns(String prefix) {
    StringBuilder b = new StringBuilder("<defs>");
    for (Status s : Status.values()) {
      String c = colour(s);
      b.append("<pattern id=\"")
          .append(prefix)
          .append('-')
          .append(s.name())
          .append("\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\"")
          .append(s == Status.MISSING_IN_TARGET ? " patternTransform=\"rotate(45)\"" : "")
          .append(s == Status.MISSING_IN_SOURCE ? " patternTransform=\"rotate(-45)\"" : "")
          .append("><rect width=\"6\" height=\"6\" fill=\"")
          .append(c)
          .append("\"/>");
      switch (s) {
        // Stripes one way for missing in target, the other way for missing in source.
        case MISSING_IN_TARGET, MISSING_IN_SOURCE ->
            b.append("<rect width=\"2\" height=\"6\" fill=\"#ffffff\" fill-opacity=\"0.55\"/>");
        default -> {}
      }
      b.append("</pattern>");
    }
    return b.append("</defs>").toString();
  }

  static String fill(String prefix, Status s) {
    return "url(#" + prefix + "-" + s.name() + ")";
  }

  /** Prefix of the swatch patterns, defined once per page by {@link #swatchDefinitions()}. */
  private static final String SWATCH = "sw";

  /** A hidden SVG holding the patterns every {@link #swatch} refers to; once per page. */
  static String swatchDefinitions() {
    return "<svg width=\"0\" height=\"0\" style=\"position:absolute\" aria-hidden=\"true\">"
        + patterns(SWATCH)
        + "</svg>";
  }

  /** A legend swatch (its own tiny SVG) in the status's colour and pattern. */
  static String swatch(Status s) {
    return "<svg class=\"swatch\" width=\"16\" height=\"16\" aria-hidden=\"true\">"
        + "<rect x=\"0.5\" y=\"0.5\" width=\"15\" height=\"15\" stroke=\"#333\" fill=\""
        + fill(SWATCH, s)
        + "\"/></svg>";
  }

  /** The top of a nice axis at or above {@code max}, and its tick step. */
  static long[] niceAxis(long max) {
    if (max <= 0) {
      return new long[] {1, 1};
    }
    double raw = max / 5.0;
    double mag = Math.pow(10, Math.floor(Math.log10(raw)));
    long step =
        Math.max(
            1, (long) (mag * (raw / mag <= 1 ? 1 : raw / mag <= 2 ? 2 : raw / mag <= 5 ? 5 : 10)));
    long top = ((max + step - 1) / step) * step;
    return new long[] {top, step};
  }

  /**
   * A stacked column chart: one column per bucket, segments per status bottom-up in enum order.
   *
   * @param labels the label of every bucket, for its tooltip
   * @param axisLabels the x-axis label of every bucket, null where none is printed
   */
  static String stackedColumns(
      String id, String title, long[][] counts, List<String> labels, List<String> axisLabels) {
    int width = 960;
    int height = 320;
    int left = 64;
    int right = 16;
    int top = 16;
    int bottom = 56;
    int plotW = width - left - right;
    int plotH = height - top - bottom;
    long max = 0;
    for (long[] c : counts) {
      long sum = 0;
      for (long v : c) {
        sum += v;
      }
      max = Math.max(max, sum);
    }
    long[] axis = niceAxis(max);
    StringBuilder b = open(id, title, width, height);
    b.append(patterns(id));
    yAxis(b, axis, left, top, plotW, plotH);
    double colW = (double) plotW / Math.max(1, counts.length);
    double gap = colW > 4 ? Math.min(2, colW * 0.15) : 0;
    for (int i = 0; i < counts.length; i++) {
      double x = left + i * colW + gap / 2;
      double y = top + plotH;
      for (Status s : Status.values()) {
        long v = counts[i][s.ordinal()];
        if (v == 0) {
          continue;
        }
        double h = (double) v / axis[0] * plotH;
        y -= h;
        b.append(
            String.format(
                Locale.ROOT,
                "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\">"
                    + "<title>%s: %s %s</title></rect>",
                x,
                y,
                Math.max(0.5, colW - gap),
                h,
                fill(id, s),
                Text.html(labels.get(i)),
                Text.count(v),
                label(s)));
      }
    }
    for (int i = 0; i < counts.length; i++) {
      if (axisLabels.get(i) == null) {
        continue;
      }
      double x = left + i * colW + colW / 2;
      b.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%.2f\" x2=\"%.2f\" y1=\"%d\" y2=\"%d\" stroke=\"#333\"/>"
                  + "<text x=\"%.2f\" y=\"%d\" text-anchor=\"middle\" font-size=\"13\" %s>%s</text>",
              x,
              x,
              top + plotH,
              top + plotH + 5,
              x,
              top + plotH + 22,
              FONT,
              Text.html(axisLabels.get(i))));
    }
    return b.append("</svg>").toString();
  }

  /** One labelled horizontal bar per row: label on the left, value text at the bar's end. */
  record Bar(String label, long value, String valueText, String fill) {}

  static String horizontalBars(String id, String title, List<Bar> bars, int labelWidth) {
    int width = 960;
    int rowH = 28;
    int top = 8;
    int height = top * 2 + rowH * Math.max(1, bars.size());
    int valueRoom = 190;
    int plotW = width - labelWidth - valueRoom;
    long max = 1;
    for (Bar bar : bars) {
      max = Math.max(max, bar.value());
    }
    StringBuilder b = open(id, title, width, height);
    b.append(patterns(id));
    for (int i = 0; i < bars.size(); i++) {
      Bar bar = bars.get(i);
      int y = top + i * rowH;
      double w = Math.max(bar.value() > 0 ? 2 : 0, (double) bar.value() / max * plotW);
      b.append(
          String.format(
              Locale.ROOT,
              "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" font-size=\"13\" %s>%s</text>"
                  + "<rect x=\"%d\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\">"
                  + "<title>%s: %s</title></rect>"
                  + "<text x=\"%.2f\" y=\"%d\" font-size=\"13\" %s>%s</text>",
              labelWidth - 8,
              y + 18,
              FONT,
              Text.html(bar.label()),
              labelWidth,
              y + 4,
              w,
              rowH - 8,
              bar.fill().startsWith("status:")
                  ? fill(id, Status.valueOf(bar.fill().substring(7)))
                  : bar.fill(),
              Text.html(bar.label()),
              Text.html(bar.valueText()),
              labelWidth + w + 6,
              y + 18,
              FONT,
              Text.html(bar.valueText())));
    }
    b.append(
        String.format(
            Locale.ROOT,
            "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"#333\"/>",
            labelWidth,
            labelWidth,
            top,
            height - top));
    return b.append("</svg>").toString();
  }

  /** Simple columns (one series), e.g. late events per hour. */
  static String columns(
      String id, String title, List<Long> values, List<String> labels, String colour) {
    List<String> copy = new ArrayList<>(labels);
    int width = 960;
    int height = 260;
    int left = 64;
    int top = 16;
    int bottom = 56;
    int plotW = width - left - 16;
    int plotH = height - top - bottom;
    long max = 0;
    for (long v : values) {
      max = Math.max(max, v);
    }
    long[] axis = niceAxis(max);
    StringBuilder b = open(id, title, width, height);
    yAxis(b, axis, left, top, plotW, plotH);
    double colW = (double) plotW / Math.max(1, values.size());
    double gap = colW > 4 ? Math.min(4, colW * 0.2) : 0;
    int every = Math.max(1, (int) Math.ceil(values.size() / 8.0));
    for (int i = 0; i < values.size(); i++) {
      long v = values.get(i);
      double h = (double) v / axis[0] * plotH;
      double x = left + i * colW + gap / 2;
      b.append(
          String.format(
              Locale.ROOT,
              "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\">"
                  + "<title>%s: %s</title></rect>",
              x,
              top + plotH - h,
              Math.max(0.5, colW - gap),
              h,
              colour,
              Text.html(copy.get(i)),
              Text.count(v)));
      if (i % every == 0) {
        double cx = left + i * colW + colW / 2;
        b.append(
            String.format(
                Locale.ROOT,
                "<text x=\"%.2f\" y=\"%d\" text-anchor=\"middle\" font-size=\"13\" %s>%s</text>",
                cx,
                top + plotH + 22,
                FONT,
                Text.html(copy.get(i))));
      }
    }
    return b.append("</svg>").toString();
  }

  private static StringBuilder open(String id, String title, int width, int height) {
    return new StringBuilder()
        .append("<svg data-chart=\"")
        .append(Text.html(id))
        .append("\" role=\"img\" aria-label=\"")
        .append(Text.html(title))
        .append("\" width=\"")
        .append(width)
        .append("\" height=\"")
        .append(height)
        .append("\" viewBox=\"0 0 ")
        .append(width)
        .append(' ')
        .append(height)
        .append("\" xmlns=\"http://www.w3.org/2000/svg\"><title>")
        .append(Text.html(title))
        .append("</title>");
  }

  private static void yAxis(StringBuilder b, long[] axis, int left, int top, int plotW, int plotH) {
    for (long v = 0; v <= axis[0]; v += axis[1]) {
      double y = top + plotH - (double) v / axis[0] * plotH;
      b.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%d\" x2=\"%d\" y1=\"%.2f\" y2=\"%.2f\" stroke=\"%s\"/>"
                  + "<text x=\"%d\" y=\"%.2f\" text-anchor=\"end\" font-size=\"13\" %s>%s</text>",
              left,
              left + plotW,
              y,
              y,
              v == 0 ? "#333" : "#ddd",
              left - 6,
              y + 4,
              FONT,
              Text.count(v)));
    }
  }
}
