package io.streamrecon.pipeline.testing;

import static org.junit.Assert.fail;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A third-party producer in its own process: Debian's {@code kcat}, one Kafka record per line, key
 * and value split at the unit separator (0x1F). {@link #paced} feeds it lines at a steady pace
 * through its standard input; {@link #fromFile} hands it a file ({@code -l}).
 */
public final class KcatProducer implements AutoCloseable {
  /** Between a record's key and its value in a line. */
  public static final char KEY_SEPARATOR = '\u001f';

  private final Process process;
  private final ScheduledExecutorService pacer;
  private final AtomicInteger sent = new AtomicInteger();

  private KcatProducer(Process process, ScheduledExecutorService pacer) {
    this.process = process;
    this.pacer = pacer;
  }

  /** Fails the test with what to install when kcat is not on the PATH. */
  public static String requireKcat() {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
      Path p = Path.of(dir, "kcat");
      if (Files.isExecutable(p)) {
        return p.toString();
      }
    }
    fail(
        "kcat is not installed: this test produces with Debian's kcat (apt-get install kcat; .ci/run"
            + " installs it)");
    return null;
  }

  private static List<String> command(String bootstrap, String topic) {
    return new java.util.ArrayList<>(
        // -E: a broker outage is a non-fatal error that kcat waits out, as a real producer does
        // (without it kcat exits once all brokers are down).
        // socket.timeout.ms=10000: a produce request that the broker left unanswered around its
        // stop or restart is retried after 10 s instead of librdkafka's default 60 s. With the
        // default, kcat's buffered records once came 39 s after the broker answered again. What
        // the pipeline does with such a producer is documented (README, Known problems); these
        // tests are about the pipeline, so their producers give up on an unanswered request sooner.
        // (Two later failures of the outage test that looked like a late producer were the
        // pipeline's: see FlinkQuietInputTest.)
        // enable.idempotence=true (the Java client's default since Kafka 3.0, not librdkafka's):
        // a batch retried so keeps its place in the partition and is stored once, even when the
        // broker had stored it before it went silent.
        // -d broker,msg: connection states and every delivered message set go to the log, which
        // says afterwards when a producer delivered what it had buffered.
        List.of(
            requireKcat(),
            "-P",
            "-E",
            "-X",
            "socket.timeout.ms=10000",
            "-X",
            "enable.idempotence=true",
            "-d",
            "broker,msg",
            "-b",
            bootstrap,
            "-t",
            topic,
            "-K",
            "\\x1f"));
  }

  /**
   * Feeds {@code lines} to kcat, each when its {@code due} instant comes (a line due before the one
   * ahead of it in the list goes right after that one: the disorder of the data), so that a record
   * reaches Kafka about when it happened, as live data does.
   */
  public static KcatProducer live(
      String bootstrap, String topic, List<String> lines, List<Instant> due, Path log)
      throws IOException {
    if (lines.size() != due.size()) {
      throw new IllegalArgumentException(lines.size() + " lines but " + due.size() + " due times");
    }
    Process p = ChildProcesses.start(command(bootstrap, topic), log);
    ScheduledExecutorService pacer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "kcat-pacer-" + topic);
              t.setDaemon(true);
              return t;
            });
    KcatProducer producer = new KcatProducer(p, pacer);
    OutputStream in = p.getOutputStream();
    pacer.scheduleWithFixedDelay(
        () -> {
          try {
            Instant now = Instant.now();
            boolean wrote = false;
            while (producer.sent.get() < lines.size()
                && !due.get(producer.sent.get()).isAfter(now)) {
              in.write((lines.get(producer.sent.get()) + "\n").getBytes(StandardCharsets.UTF_8));
              producer.sent.incrementAndGet();
              wrote = true;
            }
            if (wrote) {
              in.flush();
            }
            if (producer.sent.get() == lines.size()) {
              in.close();
              throw new IllegalStateException("done"); // ends the schedule
            }
          } catch (IOException e) {
            throw new IllegalStateException(e);
          }
        },
        0,
        20,
        TimeUnit.MILLISECONDS);
    return producer;
  }

  /** Produces the lines of {@code file} as fast as kcat goes ({@code -l}). */
  public static KcatProducer fromFile(String bootstrap, String topic, Path file, Path log)
      throws IOException {
    List<String> cmd = command(bootstrap, topic);
    cmd.add("-l");
    cmd.add(file.toString());
    return new KcatProducer(ChildProcesses.start(cmd, log), null);
  }

  /** Lines handed to kcat so far. */
  public int sent() {
    return sent.get();
  }

  /** Waits until kcat has delivered everything and exited with 0. */
  public void awaitDone(long timeoutSeconds, Path log) throws InterruptedException {
    if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
      throw new AssertionError(
          "kcat did not finish within " + timeoutSeconds + " s\n" + ChildProcesses.tail(log, 20));
    }
    if (process.exitValue() != 0) {
      throw new AssertionError(
          "kcat exited with " + process.exitValue() + "\n" + ChildProcesses.tail(log, 20));
    }
  }

  @Override
  public void close() {
    if (pacer != null) {
      pacer.shutdownNow();
    }
    ChildProcesses.kill(process);
  }
}
