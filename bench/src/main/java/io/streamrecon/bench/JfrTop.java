package io.streamrecon.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where the time goes in a JFR recording: {@code jdk.ExecutionSample} events aggregated by top
 * frame (self time) and by every frame on the stack (inclusive time, each method once per sample),
 * and by "area" (the first frame of a known package family from the top of the stack).
 *
 * @param samples execution samples in the recording
 * @param self method to samples where it was the top frame
 * @param inclusive method to samples where it was anywhere on the stack
 * @param areas area to samples
 */
record JfrTop(
    long samples, Map<String, Long> self, Map<String, Long> inclusive, Map<String, Long> areas) {

  /** Package prefix to the area it stands for, first match from the top frame down. */
  private static final String[][] AREAS = {
    {"io.streamrecon.json.", "streamrecon JSON: parse, canonical hash, diff"},
    {"io.streamrecon.deltalake.", "streamrecon DeltaLakeIO"},
    {"io.streamrecon.transforms.deltalake.", "streamrecon DeltaLakeIO"},
    {"io.streamrecon.transforms.ModelCoders", "streamrecon coders"},
    {"io.streamrecon.transforms.", "streamrecon transforms (pairing, parse DoFns)"},
    {"io.streamrecon.model.", "streamrecon coders"},
    {"io.streamrecon.", "streamrecon other"},
    {"com.fasterxml.jackson.", "Jackson"},
    {"org.apache.parquet.", "Parquet"},
    {"org.xerial.snappy.", "Snappy"},
    {"io.delta.", "Delta Lake log"},
    {"org.apache.beam.runners.direct.", "Beam DirectRunner"},
    {"org.apache.beam.runners.spark.", "Beam SparkRunner"},
    {"org.apache.beam.runners.core.", "Beam runners-core (state, timers)"},
    {"org.apache.beam.sdk.coders.", "Beam coders"},
    {"org.apache.beam.sdk.util.", "Beam SDK util (coder copies, window)"},
    {"org.apache.beam.", "Beam SDK other"},
    {"org.apache.spark.", "Spark"},
    {"org.apache.hadoop.", "Hadoop FS"},
    {"java.security.", "JDK SHA-256"},
    {"sun.security.", "JDK SHA-256"},
    {"java.util.zip.", "JDK zip/CRC"},
    {"java.io.", "JDK I/O"},
    {"java.", "JDK other"},
    {"jdk.", "JDK other"},
    {"sun.", "JDK other"},
  };

  static JfrTop of(Path recording) throws IOException {
    Map<String, Long> self = new HashMap<>();
    Map<String, Long> inclusive = new HashMap<>();
    Map<String, Long> areas = new HashMap<>();
    long samples = 0;
    for (RecordedEvent e : RecordingFile.readAllEvents(recording)) {
      if (!e.getEventType().getName().equals("jdk.ExecutionSample")) {
        continue;
      }
      RecordedStackTrace st = e.getStackTrace();
      if (st == null || st.getFrames().isEmpty()) {
        continue;
      }
      samples++;
      List<RecordedFrame> frames = st.getFrames();
      self.merge(name(frames.get(0)), 1L, Long::sum);
      Set<String> seen = new HashSet<>();
      for (RecordedFrame f : frames) {
        String n = name(f);
        if (seen.add(n)) {
          inclusive.merge(n, 1L, Long::sum);
        }
      }
      areas.merge(area(frames), 1L, Long::sum);
    }
    return new JfrTop(samples, self, inclusive, areas);
  }

  private static String name(RecordedFrame f) {
    return f.getMethod().getType().getName() + "." + f.getMethod().getName();
  }

  private static String area(List<RecordedFrame> frames) {
    // The first frame (from the top) in a non-JDK package says whose work it is; JDK frames count
    // for the library that called them.
    for (RecordedFrame f : frames) {
      String type = f.getMethod().getType().getName();
      if (type.startsWith("java.security.") || type.startsWith("sun.security.")) {
        return "JDK SHA-256";
      }
      if (!type.startsWith("java.") && !type.startsWith("jdk.") && !type.startsWith("sun.")) {
        for (String[] a : AREAS) {
          if (type.startsWith(a[0])) {
            return a[1];
          }
        }
        return "other: " + type.replaceAll("\\.[^.]*$", "");
      }
    }
    return "JDK other";
  }

  /** The {@code n} largest entries, largest first. */
  static List<Map.Entry<String, Long>> top(Map<String, Long> m, int n) {
    List<Map.Entry<String, Long>> l = new ArrayList<>(m.entrySet());
    l.sort(Map.Entry.<String, Long>comparingByValue().reversed());
    return l.subList(0, Math.min(n, l.size()));
  }
}
