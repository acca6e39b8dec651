import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where a SparkRunner streaming JVM's CPU goes, from a JFR recording (settings=profile):
 * execution samples by category of work (first rule that matches any frame of the stack), hot
 * methods by self time, allocation by top frame and by class, GC pauses and per-thread samples.
 *
 * <pre>java bench/spark-profile/JfrBreakdown.java pipeline.jfr [from-epoch-s to-epoch-s]</pre>
 */
public class JfrBreakdown {
  /** Category, then substrings of "class.method" any of which on the stack puts a sample there. */
  static final String[][] RULES = {
    {"RDD checkpoint write (state streams)", "ReliableCheckpointRDD", "ReliableRDDCheckpointData"},
    {"graph checkpoint (driver)", "org.apache.spark.streaming.Checkpoint",
        "org.apache.spark.streaming.CheckpointWriter"},
    {"Kafka read (source mapWithState)", "org.apache.kafka.", "KafkaUnboundedReader",
        "StateSpecFunctions", "MicrobatchSource"},
    {"TimerUtils: keys to driver and back", "TimerUtils"},
    {"pairing stateful ParDo: coders", "#ParDoStateUpdateFn+Coder"},
    {"pairing stateful ParDo: Kryo/Java serialization", "#ParDoStateUpdateFn+serial"},
    {"pairing stateful ParDo: other", "ParDoStateUpdateFn", "StatefulStreamingParDoEvaluator"},
    {"GroupAlsoByWindow (updateStateByKey): coders", "#SparkGroupAlsoByWindowViaWindowSet+Coder"},
    {"GroupAlsoByWindow (updateStateByKey): Kryo/Java serialization",
        "#SparkGroupAlsoByWindowViaWindowSet+serial"},
    {"GroupAlsoByWindow (updateStateByKey): other", "SparkGroupAlsoByWindowViaWindowSet"},
    {"Delta Lake / Parquet write and commit", "io.streamrecon.deltalake",
        "io.streamrecon.transforms.deltalake", "org.apache.parquet", "io.delta."},
    {"streamrecon parse/hash/diff", "io.streamrecon.json", "io.streamrecon.transforms"},
    {"shuffle write/read", "org.apache.spark.shuffle", "ShuffleBlockFetcherIterator",
        "org.apache.spark.storage.DiskBlockObjectWriter"},
    {"Kryo/Java serialization elsewhere", "com.esotericsoftware.kryo", "java.io.ObjectOutputStream",
        "java.io.ObjectInputStream"},
    {"Beam coders elsewhere", "org.apache.beam.sdk.coders", "Coder.encode", "Coder.decode"},
    {"Spark UI / REST / listener bus", "org.apache.spark.ui", "org.apache.spark.status",
        "org.sparkproject.jetty", "org.apache.spark.scheduler.AsyncEventQueue"},
    {"Spark scheduler / block manager / RPC", "org.apache.spark.scheduler",
        "org.apache.spark.storage", "org.apache.spark.rpc", "org.apache.spark.network"},
  };

  static boolean isCoder(String f) {
    return f.startsWith("org.apache.beam.sdk.coders") || f.contains("Coder.encode")
        || f.contains("Coder.decode") || f.contains("CoderHelpers");
  }

  static boolean isSerial(String f) {
    return f.startsWith("com.esotericsoftware.kryo") || f.startsWith("java.io.ObjectOutputStream")
        || f.startsWith("java.io.ObjectInputStream") || f.contains("KryoSerializer");
  }

  public static void main(String[] args) throws Exception {
    Path file = Path.of(args[0]);
    Instant from = args.length > 2 ? Instant.ofEpochMilli((long) (Double.parseDouble(args[1]) * 1000)) : Instant.MIN;
    Instant to = args.length > 2 ? Instant.ofEpochMilli((long) (Double.parseDouble(args[2]) * 1000)) : Instant.MAX;
    Map<String, Long> cat = new HashMap<>();
    Map<String, Long> self = new HashMap<>();
    Map<String, Long> inclusive = new HashMap<>();
    Map<String, Long> threads = new HashMap<>();
    Map<String, Long> allocTop = new HashMap<>();
    Map<String, Long> allocClass = new HashMap<>();
    Map<String, Long> gc = new HashMap<>();
    long samples = 0;
    long allocTotal = 0;
    Instant first = null;
    Instant last = null;
    try (RecordingFile rf = new RecordingFile(file)) {
      while (rf.hasMoreEvents()) {
        RecordedEvent e = rf.readEvent();
        Instant t = e.getStartTime();
        if (t.isBefore(from) || t.isAfter(to)) {
          continue;
        }
        String type = e.getEventType().getName();
        switch (type) {
          case "jdk.ExecutionSample" -> {
            if (e.getStackTrace() == null || e.getStackTrace().getFrames().isEmpty()) {
              continue;
            }
            samples++;
            first = first == null || t.isBefore(first) ? t : first;
            last = last == null || t.isAfter(last) ? t : last;
            List<String> frames = new ArrayList<>();
            for (RecordedFrame f : e.getStackTrace().getFrames()) {
              frames.add(f.getMethod().getType().getName() + "." + f.getMethod().getName());
            }
            self.merge(frames.get(0), 1L, Long::sum);
            Set<String> seen = new HashSet<>();
            for (String f : frames) {
              if (f.startsWith("io.streamrecon.") || f.startsWith("org.apache.beam.")
                  || f.startsWith("org.apache.spark.rdd") || f.startsWith("org.apache.spark.streaming.rdd")
                  || f.startsWith("org.apache.spark.storage") || f.startsWith("org.apache.spark.serializer")) {
                if (seen.add(f)) {
                  inclusive.merge(f, 1L, Long::sum);
                }
              }
            }
            String th = e.getThread("sampledThread") == null ? "?"
                : e.getThread("sampledThread").getJavaName();
            threads.merge(th == null ? "?" : th.replaceAll("[0-9]+", "N"), 1L, Long::sum);
            cat.merge(category(frames), 1L, Long::sum);
          }
          case "jdk.ObjectAllocationSample" -> {
            long w = e.getLong("weight");
            allocTotal += w;
            String top = "?";
            if (e.getStackTrace() != null) {
              for (RecordedFrame f : e.getStackTrace().getFrames()) {
                String n = f.getMethod().getType().getName() + "." + f.getMethod().getName();
                top = n;
                if (!n.startsWith("java.") && !n.startsWith("jdk.")) {
                  break;
                }
              }
            }
            allocTop.merge(top, w, Long::sum);
            allocClass.merge(e.getClass("objectClass").getName(), w, Long::sum);
          }
          case "jdk.GarbageCollection" -> {
            gc.merge(e.getString("name") + " count", 1L, Long::sum);
            gc.merge(e.getString("name") + " ms", e.getDuration().toMillis(), Long::sum);
            gc.merge("sum of pauses ms", e.getDuration("sumOfPauses").toMillis(), Long::sum);
          }
          default -> { }
        }
      }
    }
    double secs = first == null ? 0 : Duration.between(first, last).toMillis() / 1e3;
    System.out.printf("%s: %,d execution samples over %.0f s%n%n", file, samples, secs);
    print("Category (first rule matching a frame)", cat, samples, 40, "samples");
    print("Hot methods, self time (top frame)", self, samples, 20, "samples");
    print("Inclusive (on the stack), Beam, streamrecon and Spark RDD/storage frames", inclusive,
        samples, 60, "samples");
    print("Threads", threads, samples, 15, "samples");
    print("Allocation by first non-JDK frame", allocTop, allocTotal, 10, "bytes");
    print("Allocation by class", allocClass, allocTotal, 10, "bytes");
    System.out.println("GC over the window: " + gc + "\n");
  }

  static String category(List<String> frames) {
    for (String[] rule : RULES) {
      for (int i = 1; i < rule.length; i++) {
        String m = rule[i];
        if (m.startsWith("#")) {
          String[] parts = m.substring(1).split("\\+");
          boolean inFn = frames.stream().anyMatch(f -> f.contains(parts[0]));
          boolean kind = frames.stream()
              .anyMatch(f -> parts[1].equals("Coder") ? isCoder(f) : isSerial(f));
          if (inFn && kind) {
            return rule[0];
          }
        } else if (frames.stream().anyMatch(f -> f.contains(m))) {
          return rule[0];
        }
      }
    }
    return "other: " + frames.get(frames.size() - 1).replaceAll("\\.[^.]*$", "")
        + " > " + frames.get(0).replaceAll("\\.[^.]*$", "");
  }

  static void print(String title, Map<String, Long> m, long total, int n, String unit) {
    System.out.printf("%s (share of %,d %s)%n", title, total, unit);
    List<Map.Entry<String, Long>> l = new ArrayList<>(m.entrySet());
    l.sort(Map.Entry.<String, Long>comparingByValue().reversed());
    for (Map.Entry<String, Long> en : l.subList(0, Math.min(n, l.size()))) {
      System.out.printf("  %5.1f %%  %,14d  %s%n", 100.0 * en.getValue() / total, en.getValue(),
          en.getKey());
    }
    System.out.println();
  }
}
