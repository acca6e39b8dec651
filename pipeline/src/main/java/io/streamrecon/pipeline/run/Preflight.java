package io.streamrecon.pipeline.run;

import io.streamrecon.deltalake.WarehouseOwnership;
import io.streamrecon.pipeline.ReconcileSettings;
import io.streamrecon.pipeline.io.InputSpec;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.io.FileSystems;
import org.apache.beam.sdk.io.fs.EmptyMatchTreatment;
import org.apache.beam.sdk.io.fs.MatchResult;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Checks made before a run starts, so that a mistyped path fails in a second with one clear line
 * rather than minutes later inside a runner: every file input matches at least one file, the Kafka
 * broker of a bounded run answers for its topic, and the warehouse is new, empty or streamrecon's
 * and, when local, can be written. They run before anything is written.
 */
public final class Preflight {
  /** The shortest wait for a broker: a few connection attempts. */
  static final Duration MIN_BROKER_WAIT = Duration.ofSeconds(5);

  /** The longest wait for a broker. */
  static final Duration MAX_BROKER_WAIT = Duration.ofSeconds(30);

  private Preflight() {}

  /** Fails with an {@link IllegalArgumentException} naming the option when a check fails. */
  public static void check(PipelineOptions options, ReconcileSettings s) {
    FileSystems.setDefaultPipelineOptions(options);
    checkInput("source", s.source());
    checkInput("target", s.target());
    if (s.bounded()) {
      Duration wait = brokerWait(s);
      checkBroker("source", s.source(), s.kafkaProperties(), wait);
      checkBroker("target", s.target(), s.kafkaProperties(), wait);
    }
    checkWarehouse(s.warehouse());
  }

  /**
   * How long a bounded run waits for its Kafka broker to answer before it gives up: {@code
   * --kafkaMaxReadTime} between {@link #MIN_BROKER_WAIT} and {@link #MAX_BROKER_WAIT}, the latter
   * when only {@code --kafkaMaxRecords} bounds the run. A run that may read for an hour need not
   * wait an hour to find the address wrong, and a short one still gives a broker time to answer.
   */
  static Duration brokerWait(ReconcileSettings s) {
    org.joda.time.Duration max = s.kafkaMaxReadTime();
    if (max == null) {
      return MAX_BROKER_WAIT;
    }
    Duration wait = Duration.ofMillis(max.getMillis());
    return wait.compareTo(MIN_BROKER_WAIT) < 0
        ? MIN_BROKER_WAIT
        : wait.compareTo(MAX_BROKER_WAIT) > 0 ? MAX_BROKER_WAIT : wait;
  }

  /**
   * A bounded run reads its topic's partitions before it starts: without this a broker that does
   * not answer holds the run for Kafka's own minute-long timeouts before a message naming neither
   * broker nor topic. The line names the bootstrap servers and the topic only, never a property
   * (they may hold credentials), nor Kafka's message (which may quote one).
   */
  static void checkBroker(
      String option, InputSpec spec, Map<String, String> properties, Duration wait) {
    if (!spec.isKafka()) {
      return;
    }
    long deadline = System.nanoTime() + wait.toNanos();
    String where =
        "--"
            + option
            + ": Kafka bootstrap servers "
            + spec.bootstrapServers()
            + ", topic "
            + spec.topic();
    if (!anyServerAccepts(spec.bootstrapServers(), deadline)) {
      throw new IllegalArgumentException(
          where
              + ": no server accepted a connection within "
              + seconds(wait)
              + " (a bounded run waits up to --kafkaMaxReadTime, at least 5s, at most 30s)");
    }
    Map<String, Object> config = new HashMap<>(properties);
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, spec.bootstrapServers());
    config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    config.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    // Only metadata is read: nothing is consumed, so nothing is committed.
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    List<PartitionInfo> partitions;
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config)) {
      Duration left = Duration.ofNanos(Math.max(deadline - System.nanoTime(), 1_000_000L));
      partitions = consumer.partitionsFor(spec.topic(), left);
    } catch (TimeoutException e) {
      throw new IllegalArgumentException(
          where
              + ": the broker did not answer within "
              + seconds(wait)
              + " (a bounded run waits up to --kafkaMaxReadTime, at least 5s, at most 30s)");
    } catch (KafkaException e) {
      throw new IllegalArgumentException(
          where + ": cannot read the topic's partitions (" + e.getClass().getSimpleName() + ")");
    }
    if (partitions == null || partitions.isEmpty()) {
      throw new IllegalArgumentException(where + ": no such topic on that broker");
    }
  }

  /** A TCP connection first: quiet, where a Kafka client logs every failed attempt. */
  private static boolean anyServerAccepts(String servers, long deadline) {
    while (true) {
      for (String server : servers.split(",")) {
        int colon = server.lastIndexOf(':');
        InetSocketAddress address =
            new InetSocketAddress(
                server.substring(0, colon), Integer.parseInt(server.substring(colon + 1)));
        long leftMillis = (deadline - System.nanoTime()) / 1_000_000L;
        if (leftMillis <= 0) {
          return false;
        }
        if (address.isUnresolved()) {
          continue;
        }
        try (Socket socket = new Socket()) {
          socket.connect(address, (int) Math.min(leftMillis, Integer.MAX_VALUE));
          return true;
        } catch (IOException e) {
          // Refused or timed out: try the next server, and the list again until the deadline.
        }
      }
      try {
        Thread.sleep(Math.max(0, Math.min(250, (deadline - System.nanoTime()) / 1_000_000L)));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
  }

  private static String seconds(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
  }

  private static void checkInput(String option, InputSpec spec) {
    if (spec.isKafka()) {
      return;
    }
    try {
      List<MatchResult> results =
          FileSystems.match(List.of(spec.filePattern()), EmptyMatchTreatment.ALLOW);
      MatchResult r = results.get(0);
      if (r.status() != MatchResult.Status.OK || r.metadata().isEmpty()) {
        throw new IllegalArgumentException(
            "--" + option + "=" + spec.filePattern() + ": no such file (nothing matches)");
      }
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "--" + option + "=" + spec.filePattern() + ": cannot list (" + e.getMessage() + ")");
    }
  }

  /**
   * The warehouse must be new, empty or streamrecon's ({@link WarehouseOwnership#claim}, which
   * marks it), and a local one writable. A Hadoop URI (s3a://, hdfs://) whose file system cannot be
   * reached here is checked by the first commit.
   */
  static void checkWarehouse(String warehouse) {
    Warehouse w = Warehouse.of(warehouse);
    if (!w.isLocal()) {
      try {
        WarehouseOwnership.claim(new Configuration(), w.location());
      } catch (IllegalArgumentException e) {
        throw e;
      } catch (IOException | RuntimeException e) {
        // Unreachable from here, or its file system is not on the class path: the first commit
        // reports it.
      }
      return;
    }
    Path dir = w.localPath();
    try {
      Files.createDirectories(dir);
      WarehouseOwnership.claim(new Configuration(), dir.toString());
      Path probe = Files.createTempFile(dir, ".streamrecon-write-check", ".tmp");
      Files.delete(probe);
    } catch (IOException | SecurityException e) {
      throw new IllegalArgumentException(
          "--warehouse=" + warehouse + " is not writable (" + describe(e) + ")");
    }
  }

  private static String describe(Exception e) {
    String type = e.getClass().getSimpleName();
    return e.getMessage() == null ? type : type + ": " + e.getMessage();
  }
}
