package io.streamrecon.pipeline.report;

import static io.streamrecon.pipeline.report.Text.count;
import static io.streamrecon.pipeline.report.Text.html;

import io.streamrecon.model.Status;
import io.streamrecon.pipeline.report.ReportData.DeadLetterGroup;
import io.streamrecon.pipeline.report.ReportData.Diff;
import io.streamrecon.pipeline.report.ReportData.FieldStat;
import io.streamrecon.pipeline.report.ReportData.Latency;
import io.streamrecon.pipeline.report.ReportData.Mismatch;
import io.streamrecon.pipeline.report.ReportData.RunCounts;
import io.streamrecon.pipeline.report.ReportData.Timeline;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Renders {@link ReportData} as one self-contained HTML page: inline CSS, inline SVG, no external
 * reference of any kind. Every text that comes from the tables goes through {@link Text#html}.
 *
 * <p>The page ends with a small inline script that measures every chart's bounding box into the
 * element {@code #render-check} (read by the browser test through the DOM; harmless otherwise).
 */
final class ReportHtml {
  private static final DateTimeFormatter MINUTE =
      DateTimeFormatter.ofPattern("MM-dd HH:mm", Locale.ROOT).withZone(ZoneOffset.UTC);
  private static final DateTimeFormatter HOUR =
      DateTimeFormatter.ofPattern("MM-dd HH:00", Locale.ROOT).withZone(ZoneOffset.UTC);
  private static final DateTimeFormatter DAY =
      DateTimeFormatter.ofPattern("yyyy-MM-dd", Locale.ROOT).withZone(ZoneOffset.UTC);
  private static final DateTimeFormatter SECOND =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss", Locale.ROOT).withZone(ZoneOffset.UTC);

  private ReportHtml() {}

  static String render(ReportData d) {
    StringBuilder b = new StringBuilder(64 * 1024);
    b.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
        .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
        .append("<title>streamrecon report</title><style>")
        .append(CSS)
        .append("</style></head><body>")
        .append(Svg.swatchDefinitions())
        .append("<main>\n");
    b.append("<h1>streamrecon reconciliation report</h1>")
        .append("<p class=\"meta\">Warehouse <code>")
        .append(html(d.warehouse()))
        .append("</code> · ")
        .append(html(d.selection()))
        .append(" · generated ")
        .append(html(d.generatedAt()))
        .append(" · all times UTC</p>\n");
    b.append(
        "<nav><a href=\"#counts\">Counts</a> <a href=\"#timeline\">Over time</a>"
            + " <a href=\"#fields\">Differing fields</a> <a href=\"#latency\">Latency</a>"
            + " <a href=\"#dead\">Dead letters</a> <a href=\"#late\">Late events</a>"
            + " <a href=\"#recent\">Recent mismatches</a></nav>\n");
    counts(b, d);
    timeline(b, d);
    fields(b, d);
    latency(b, d.latency());
    deadLetters(b, d);
    late(b, d);
    recent(b, d);
    b.append("<pre id=\"render-check\" hidden></pre>\n<script>")
        .append(RENDER_CHECK)
        .append("</script>\n</main></body></html>\n");
    return b.toString();
  }

  // ------------------------------------------------------------------ sections

  private static void counts(StringBuilder b, ReportData d) {
    RunCounts t = d.totals();
    b.append("<section id=\"counts\"><h2>Counts</h2><div class=\"cards\">");
    card(b, "input", t.input(), "raw events + dead letters");
    card(
        b,
        "raw events",
        t.raw(),
        count(t.rawSource()) + " source, " + count(t.rawTarget()) + " target");
    card(
        b,
        "dead letters",
        t.dead(),
        count(t.deadSource()) + " source, " + count(t.deadTarget()) + " target");
    card(b, "late events", t.late(), "stored, never dropped");
    b.append("</div><div class=\"cards\">");
    for (Status s : Status.values()) {
      b.append("<div class=\"card\"><div class=\"label\">")
          .append(Svg.swatch(s))
          .append(' ')
          .append(html(Svg.label(s)))
          .append(s == Status.MATCH ? " (stored)" : "")
          .append("</div><div class=\"num\">")
          .append(count(d.finalVerdicts().get(s)))
          .append("</div><div class=\"sub\">")
          .append(
              s == Status.MATCH ? "counted, not stored, without --emitMatches" : "final verdicts")
          .append("</div></div>");
    }
    card(b, "superseded verdicts", d.supersededVerdicts(), "replaced by a newer version's verdict");
    b.append("</div>");

    List<Svg.Bar> bars = new ArrayList<>();
    for (Status s : Status.values()) {
      long v = d.finalVerdicts().get(s);
      bars.add(new Svg.Bar(Svg.label(s), v, count(v), "status:" + s.name()));
    }
    b.append("<h3>Final verdicts by status</h3>")
        .append(Svg.horizontalBars("status", "Final verdicts by status", bars, 170));

    b.append("<h3>Nothing lost</h3><div class=\"eq\">");
    b.append("<p><b>input = raw events + dead letters</b><br><span class=\"big\">")
        .append(count(t.input()))
        .append(" = ")
        .append(count(t.raw()))
        .append(" + ")
        .append(count(t.dead()))
        .append(
            "</span></p><p class=\"note\">The tables do not store the run's input counter: every"
                + " input ends as exactly one row of <code>raw_events</code> or <code>dead_letters</code>,"
                + " so those rows are the input here. The run itself checked this identity against its"
                + " own input counter when it finished (the summary <code>run</code> prints).</p>");
    long rest = t.eventsWithoutStoredVerdict();
    b.append(
            "<p><b>raw events = late + events in stored verdicts + matched, duplicate or superseded</b>")
        .append("<br><span class=\"big\">")
        .append(count(t.raw()))
        .append(" = ")
        .append(count(t.late()))
        .append(" + ")
        .append(count(t.verdictEvents()))
        .append(" + ")
        .append(count(rest))
        .append("</span>")
        .append(
            rest < 0 ? " <span class=\"bad\">✗ more events in verdicts than raw events</span>" : "")
        .append(
            "</p><p class=\"note\">Events in stored verdicts: 2 per MISMATCH (or stored MATCH) pair,"
                + " 1 per MISSING_* and per verdict that supersedes another. The last term is what the"
                + " tables cannot tell apart: events of MATCH pairs (not stored without"
                + " <code>--emitMatches</code>), duplicates and superseded versions, which the run counts"
                + " in its metrics only. A negative value would mean rows are missing from"
                + " <code>raw_events</code>.</p></div>");

    b.append(
        "<h3>Per run</h3><table><thead><tr><th>run</th><th class=\"n\">input</th>"
            + "<th class=\"n\">raw events</th><th class=\"n\">dead letters</th><th class=\"n\">late</th>"
            + "<th class=\"n\">verdict rows</th><th class=\"n\">events in stored verdicts</th>"
            + "<th class=\"n\">matched, duplicate or superseded</th></tr></thead><tbody>");
    for (RunCounts r : d.runs()) {
      b.append("<tr><td class=\"run\"><code>").append(html(r.runId())).append("</code></td>");
      for (long v :
          new long[] {
            r.input(),
            r.raw(),
            r.dead(),
            r.late(),
            r.deltaRows(),
            r.verdictEvents(),
            r.eventsWithoutStoredVerdict()
          }) {
        b.append("<td class=\"n\">").append(count(v)).append("</td>");
      }
      b.append("</tr>");
    }
    b.append("</tbody></table></section>\n");
  }

  private static void card(StringBuilder b, String label, long value, String sub) {
    b.append("<div class=\"card\"><div class=\"label\">")
        .append(html(label))
        .append("</div><div class=\"num\">")
        .append(count(value))
        .append("</div><div class=\"sub\">")
        .append(html(sub))
        .append("</div></div>");
  }

  private static void timeline(StringBuilder b, ReportData d) {
    Timeline t = d.timeline();
    b.append("<section id=\"timeline\"><h2>Verdicts over event time</h2>");
    if (t.size() == 0) {
      b.append("<p class=\"empty\">No verdicts in the selection.</p></section>\n");
      return;
    }
    b.append("<p>Final verdicts per ")
        .append(t.unit().label)
        .append(" of event time (the later of the two events), stacked by status.</p>");
    legend(b);
    List<String> labels = new ArrayList<>();
    List<String> axisLabels = new ArrayList<>();
    long stride = labelStride(t.unit(), t.size());
    for (int i = 0; i < t.size(); i++) {
      long start = t.firstBucket() + i * t.unit().millis;
      labels.add(bucketLabel(t.unit(), start));
      axisLabels.add(Math.floorMod(start, stride) == 0 ? labels.get(i) : null);
    }
    b.append(
        Svg.stackedColumns(
            "timeline",
            "Final verdicts per " + t.unit().label + " of event time, by status",
            t.counts(),
            labels,
            axisLabels));
    b.append("<details><summary>The same data as a table</summary><table><thead><tr><th>")
        .append(t.unit().label)
        .append(" (UTC)</th>");
    for (Status s : Status.values()) {
      b.append("<th class=\"n\">").append(html(Svg.label(s))).append("</th>");
    }
    b.append("</tr></thead><tbody>");
    for (int i = 0; i < t.size(); i++) {
      b.append("<tr><td>").append(html(labels.get(i))).append("</td>");
      for (Status s : Status.values()) {
        b.append("<td class=\"n\">").append(count(t.counts()[i][s.ordinal()])).append("</td>");
      }
      b.append("</tr>");
    }
    b.append("</tbody></table></details></section>\n");
  }

  private static void legend(StringBuilder b) {
    b.append("<ul class=\"legend\" aria-label=\"legend\">");
    for (Status s : Status.values()) {
      b.append("<li>").append(Svg.swatch(s)).append(' ').append(html(Svg.label(s))).append("</li>");
    }
    b.append("</ul>");
  }

  /**
   * The time between two x-axis labels: a round multiple of the bucket width (5 min, 6 h, a week,
   * ...) giving at most about eight labels, so labels fall on round times.
   */
  static long labelStride(TimeBuckets.Unit unit, int buckets) {
    long[] multiples =
        switch (unit) {
          case MINUTE -> new long[] {1, 5, 10, 15, 30, 60, 120, 180, 360};
          case HOUR -> new long[] {1, 2, 3, 6, 12, 24, 48, 72, 168};
          case DAY -> new long[] {1, 2, 7, 14, 28, 56};
          case WEEK -> new long[] {1, 2, 4, 8, 13, 26, 52, 104};
        };
    for (long m : multiples) {
      if (buckets / m <= 8) {
        return m * unit.millis;
      }
    }
    return multiples[multiples.length - 1] * unit.millis;
  }

  private static String bucketLabel(TimeBuckets.Unit unit, long start) {
    Instant i = Instant.ofEpochMilli(start);
    return switch (unit) {
      case MINUTE -> MINUTE.format(i);
      case HOUR -> HOUR.format(i);
      case DAY, WEEK -> DAY.format(i);
    };
  }

  private static void fields(StringBuilder b, ReportData d) {
    b.append("<section id=\"fields\"><h2>Top differing fields</h2>");
    if (d.fields().isEmpty()) {
      b.append("<p class=\"empty\">No MISMATCH records in the selection.</p></section>\n");
      return;
    }
    b.append("<p>JSON Pointer paths with array indexes collapsed to <code>*</code>, counted over ")
        .append(count(d.mismatchRecords()))
        .append(" final MISMATCH records. Example values are cut at ")
        .append(Text.VALUE_CODE_POINTS)
        .append(" characters; payloads are never shown whole.</p>");
    List<Svg.Bar> bars = new ArrayList<>();
    for (FieldStat f : d.fields().subList(0, Math.min(10, d.fields().size()))) {
      bars.add(
          new Svg.Bar(
              Text.truncate(f.path(), 40),
              f.records(),
              count(f.records()) + " (" + percent(f.records(), d.mismatchRecords()) + ")",
              Svg.colour(Status.MISMATCH)));
    }
    b.append(Svg.horizontalBars("fields", "MISMATCH records per differing field", bars, 300));
    b.append(
        "<table><thead><tr><th>path</th><th class=\"n\">records</th><th class=\"n\">share</th>"
            + "<th class=\"n\">differences</th><th>example (natural id, kind)</th>"
            + "<th>source</th><th>target</th></tr></thead><tbody>");
    for (FieldStat f : d.fields()) {
      b.append("<tr><td><code>")
          .append(html(f.path()))
          .append("</code></td><td class=\"n\">")
          .append(count(f.records()))
          .append("</td><td class=\"n\">")
          .append(percent(f.records(), d.mismatchRecords()))
          .append("</td><td class=\"n\">")
          .append(count(f.differences()))
          .append("</td><td><code>")
          .append(html(f.exampleNaturalId()))
          .append("</code> ")
          .append(html(f.exampleKind()))
          .append("</td><td><code>")
          .append(value(f.exampleSource()))
          .append("</code></td><td><code>")
          .append(value(f.exampleTarget()))
          .append("</code></td></tr>");
    }
    b.append("</tbody></table></section>\n");
  }

  private static String value(String v) {
    return v == null ? "<span class=\"absent\">(absent)</span>" : html(v);
  }

  private static String percent(long part, long whole) {
    return whole == 0 ? "–" : String.format(Locale.ROOT, "%.1f%%", 100.0 * part / whole);
  }

  private static void latency(StringBuilder b, Latency l) {
    b.append("<section id=\"latency\"><h2>")
        .append(l.streaming() ? "Detection latency" : "Detection latency (batch: age at detection)")
        .append("</h2><p><code>detectedAt</code> − the later event time of each verdict, over ")
        .append(count(l.count()))
        .append(" verdicts; ")
        .append(html(l.basis()))
        .append(". A MISSING_* verdict waits for the timeout by design.</p>");
    if (l.count() == 0) {
      b.append("<p class=\"empty\">No verdicts in the selection.</p></section>\n");
      return;
    }
    List<Svg.Bar> bars = new ArrayList<>();
    String[] names = {"p50", "p90", "p99", "max"};
    long[] values = {l.p50(), l.p90(), l.p99(), l.max()};
    for (int i = 0; i < names.length; i++) {
      bars.add(new Svg.Bar(names[i], Math.max(0, values[i]), Text.duration(values[i]), Svg.BAR));
    }
    b.append(Svg.horizontalBars("latency", "Detection latency percentiles", bars, 80));
    b.append(
        "<table class=\"narrow\"><thead><tr><th>percentile</th><th class=\"n\">latency</th>"
            + "</tr></thead><tbody>");
    for (int i = 0; i < names.length; i++) {
      b.append("<tr><td>")
          .append(names[i])
          .append("</td><td class=\"n\">")
          .append(Text.duration(values[i]))
          .append("</td></tr>");
    }
    b.append("</tbody></table></section>\n");
  }

  private static void deadLetters(StringBuilder b, ReportData d) {
    b.append("<section id=\"dead\"><h2>Dead letters by stage and error</h2>");
    if (d.deadLetters().isEmpty()) {
      b.append("<p class=\"empty\">No dead letters: every input parsed.</p></section>\n");
      return;
    }
    b.append("<p>")
        .append(count(d.totals().dead()))
        .append(
            " inputs that failed, grouped by stage and error text (dead letters have no event"
                + " time, so the event-time window does not apply). One example each, cut at ")
        .append(Text.VALUE_CODE_POINTS)
        .append(
            " characters.</p><table><thead><tr><th>stage</th><th>error</th>"
                + "<th class=\"n\">count</th><th>side</th><th>example raw input</th></tr></thead><tbody>");
    int shown = 0;
    for (DeadLetterGroup g : d.deadLetters()) {
      if (shown++ == ReportReader.DEAD_LETTER_GROUPS) {
        b.append("<tr><td colspan=\"5\">… and ")
            .append(d.deadLetters().size() - ReportReader.DEAD_LETTER_GROUPS)
            .append(
                " more groups (<code>streamrecon show dead-letters</code> lists them all)</td></tr>");
        break;
      }
      b.append("<tr><td>")
          .append(html(g.stage()))
          .append("</td><td>")
          .append(html(g.error()))
          .append("</td><td class=\"n\">")
          .append(count(g.count()))
          .append("</td><td>")
          .append(html(g.side()))
          .append("</td><td><code>")
          .append(html(g.example()))
          .append("</code></td></tr>");
    }
    b.append("</tbody></table></section>\n");
  }

  private static void late(StringBuilder b, ReportData d) {
    b.append("<section id=\"late\"><h2>Late events per hour</h2>");
    Map<Long, Long> perHour = d.latePerHour();
    if (perHour.isEmpty()) {
      b.append(
          "<p class=\"empty\">No late events: no event arrived after the watermark had passed it by"
              + " more than <code>--allowedLateness</code>. (A batch run over files has none: its"
              + " watermark stays back until all input is read.)</p></section>\n");
      return;
    }
    long first = perHour.keySet().iterator().next();
    long last = first;
    for (long h : perHour.keySet()) {
      last = Math.max(last, h);
    }
    List<Long> values = new ArrayList<>();
    List<String> labels = new ArrayList<>();
    // Every hour between the first and the last, so gaps show as gaps (capped for huge spans).
    long step = 3_600_000L;
    while ((last - first) / step + 1 > 720) {
      step *= 24;
    }
    for (long h = first; h <= last; h += step) {
      long sum = 0;
      for (Map.Entry<Long, Long> e : perHour.entrySet()) {
        if (e.getKey() >= h && e.getKey() < h + step) {
          sum += e.getValue();
        }
      }
      values.add(sum);
      labels.add(
          step == 3_600_000L
              ? HOUR.format(Instant.ofEpochMilli(h))
              : DAY.format(Instant.ofEpochMilli(h)));
    }
    b.append(
            "<p>Events stored in <code>late_events</code> (also in <code>raw_events</code>, never"
                + " dropped), per ")
        .append(step == 3_600_000L ? "hour" : "day")
        .append(" of their event time.</p>")
        .append(Svg.columns("late", "Late events per hour of event time", values, labels, Svg.LATE))
        .append("</section>\n");
  }

  private static void recent(StringBuilder b, ReportData d) {
    b.append("<section id=\"recent\"><h2>The ")
        .append(ReportReader.RECENT)
        .append(" most recent mismatches</h2>");
    if (d.recentMismatches().isEmpty()) {
      b.append("<p class=\"empty\">No MISMATCH records in the selection.</p></section>\n");
      return;
    }
    b.append(
        "<p>Final MISMATCH records, most recently detected first. The command shows both"
            + " stored payloads and their diff.</p><table class=\"recent\"><thead><tr>"
            + "<th>natural id</th><th>event time</th><th>detected</th><th>differences</th>"
            + "<th>explain</th></tr></thead><tbody>");
    for (Mismatch m : d.recentMismatches()) {
      b.append("<tr><td><code>")
          .append(html(m.naturalId()))
          .append("</code></td><td>")
          .append(SECOND.format(Instant.ofEpochMilli(m.eventTime())))
          .append("</td><td>")
          .append(SECOND.format(Instant.ofEpochMilli(m.detectedAt())))
          .append("</td><td><ul class=\"diffs\">");
      for (Diff diff : m.differences()) {
        b.append("<li><code>")
            .append(html(diff.path()))
            .append("</code> ")
            .append(html(diff.kind()))
            .append(": <code>")
            .append(value(diff.source()))
            .append("</code> → <code>")
            .append(value(diff.target()))
            .append("</code></li>");
      }
      if (m.totalDifferences() > m.differences().size()) {
        b.append("<li>… ")
            .append(m.totalDifferences() - m.differences().size())
            .append(" more</li>");
      }
      b.append("</ul></td><td><code class=\"cmd\">bin/streamrecon explain --naturalId=")
          .append(html(Text.shellWord(m.naturalId())))
          .append(" --warehouse=")
          .append(html(Text.shellWord(d.warehouse())))
          .append("</code></td></tr>");
    }
    b.append("</tbody></table></section>\n");
  }

  // ------------------------------------------------------------------ static text

  private static final String CSS =
      """
      :root{color-scheme:light}
      body{margin:0;background:#fafafa;color:#1a1a1a;font:15px/1.5 system-ui,-apple-system,'Segoe UI',sans-serif}
      main{max-width:1120px;margin:0 auto;padding:16px 24px 48px}
      h1{font-size:26px;margin:8px 0 4px}
      h2{font-size:21px;margin:32px 0 8px;padding-top:8px;border-top:1px solid #ccc}
      h3{font-size:17px;margin:20px 0 6px}
      .meta{color:#444;margin:0 0 8px}
      nav a{margin-right:14px;color:#0057a0}
      code{font-family:ui-monospace,'DejaVu Sans Mono',Menlo,monospace;font-size:13px;overflow-wrap:break-word}
      .cards{display:flex;flex-wrap:wrap;gap:12px;margin:12px 0}
      .card{background:#fff;border:1px solid #ccc;border-radius:6px;padding:10px 14px;min-width:150px}
      .card .label{font-size:14px;color:#333;display:flex;align-items:center;gap:6px}
      .card .num{font-size:26px;font-weight:600;font-variant-numeric:tabular-nums}
      .card .sub{font-size:13px;color:#555}
      .swatch{vertical-align:middle;flex:none}
      .eq{background:#fff;border:1px solid #ccc;border-radius:6px;padding:4px 16px}
      .eq .big{font-size:20px;font-variant-numeric:tabular-nums}
      .note{color:#444;font-size:14px;margin-top:2px}
      .bad{color:#a00;font-weight:600}
      .empty{color:#444;font-style:italic}
      .absent{color:#666;font-style:italic}
      table{border-collapse:collapse;width:100%;margin:8px 0;background:#fff;font-size:14px}
      table.narrow{width:auto}
      th,td{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}
      th{background:#eee}
      td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
      tbody tr:nth-child(even){background:#f6f6f6}
      ul.legend{list-style:none;padding:0;margin:6px 0;display:flex;gap:18px;flex-wrap:wrap}
      ul.legend li{display:flex;align-items:center;gap:6px}
      ul.diffs{margin:0;padding-left:16px}
      td.run code{white-space:nowrap;word-break:normal}
      table.recent td:last-child{max-width:360px}
      table.recent .cmd{white-space:normal}
      svg[data-chart]{display:block;max-width:100%;height:auto;background:#fff;border:1px solid #ddd;border-radius:6px;margin:6px 0}
      details{margin:6px 0}
      """;

  /**
   * Measures every chart after layout and writes the result into #render-check: the browser test
   * reads it from the DOM. Runs synchronously at the end of the body (everything is inline).
   */
  private static final String RENDER_CHECK =
      """
      (function(){var out={charts:[],height:document.documentElement.scrollHeight};
      document.querySelectorAll('svg[data-chart]').forEach(function(s){var r=s.getBoundingClientRect();
      out.charts.push({chart:s.getAttribute('data-chart'),width:r.width,height:r.height,
      marks:s.querySelectorAll('rect,line,text').length});});
      document.getElementById('render-check').textContent=JSON.stringify(out);})();
      """;
}
