package io.streamrecon.pipeline.testing;

import java.io.IOException;
import java.io.Writer;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * A single-node KRaft Kafka 3.9 broker in its own JVM ({@code kafka.Kafka server.properties}, its
 * log directory formatted by {@code kafka.tools.StorageTool}), on free loopback ports. It can be
 * stopped and started again on the same ports and data. {@link #close} kills it by PID.
 */
public final class KafkaBrokerProcess implements AutoCloseable {
  private final Path dir;
  private final Path config;
  private final Path log;
  private final int port;
  private Process process;

  private KafkaBrokerProcess(Path dir, Path config, Path log, int port) {
    this.dir = dir;
    this.config = config;
    this.log = log;
    this.port = port;
  }

  /** Formats a log directory under {@code dir} and starts the broker. */
  public static KafkaBrokerProcess start(Path dir) throws Exception {
    Files.createDirectories(dir);
    int brokerPort = freePort();
    int controllerPort = freePort();
    Properties p = new Properties();
    p.put("process.roles", "broker,controller");
    p.put("node.id", "1");
    p.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
    p.put(
        "listeners",
        "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
    p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
    p.put("controller.listener.names", "CONTROLLER");
    p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    p.put("inter.broker.listener.name", "PLAINTEXT");
    p.put("log.dirs", dir.resolve("logs").toString());
    p.put("offsets.topic.replication.factor", "1");
    p.put("offsets.topic.num.partitions", "1");
    p.put("transaction.state.log.replication.factor", "1");
    p.put("transaction.state.log.min.isr", "1");
    p.put("group.initial.rebalance.delay.ms", "0");
    p.put("auto.create.topics.enable", "false");
    p.put("log.flush.interval.messages", "1");
    Path config = dir.resolve("server.properties");
    try (Writer w = Files.newBufferedWriter(config, StandardCharsets.UTF_8)) {
      p.store(w, "streamrecon test broker");
    }
    Path log = dir.resolve("broker.log");
    Process format =
        ChildProcesses.start(
            List.of(
                ChildProcesses.java(),
                "-Xmx256m",
                "-cp",
                ChildProcesses.classPath(),
                "kafka.tools.StorageTool",
                "format",
                "-t",
                Uuid.randomUuid().toString(),
                "-c",
                config.toString()),
            log);
    if (!format.waitFor(120, TimeUnit.SECONDS) || format.exitValue() != 0) {
      ChildProcesses.kill(format);
      throw new IllegalStateException("kafka storage format failed\n" + ChildProcesses.tail(log, 30));
    }
    KafkaBrokerProcess broker = new KafkaBrokerProcess(dir, config, log, brokerPort);
    broker.startAgain();
    return broker;
  }

  /** Starts the broker process (again) on the same ports and data, and waits until it answers. */
  public void startAgain() throws Exception {
    process =
        ChildProcesses.start(
            List.of(
                ChildProcesses.java(),
                "-Xmx384m",
                "-cp",
                ChildProcesses.classPath(),
                "kafka.Kafka",
                config.toString()),
            log);
    try (Admin admin = admin()) {
      admin.describeCluster().nodes().get(120, TimeUnit.SECONDS);
    }
  }

  /** Stops the broker with SIGTERM (a clean shutdown) and waits for the process to end. */
  public void stop() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      ChildProcesses.kill(process);
    }
  }

  /** {@code 127.0.0.1:port}. */
  public String bootstrapServers() {
    return "127.0.0.1:" + port;
  }

  /** {@code kafka://127.0.0.1:port/topic}. */
  public String uri(String topic) {
    return "kafka://" + bootstrapServers() + "/" + topic;
  }

  public Path log() {
    return log;
  }

  /** Creates topics with {@code partitions} partitions each. */
  public void createTopics(int partitions, String... topics) throws Exception {
    createTopics(partitions, Map.of(), topics);
  }

  /**
   * Creates topics with {@code partitions} partitions each and the topic-level {@code configs}
   * (for example {@code message.timestamp.type=LogAppendTime}).
   */
  public void createTopics(int partitions, Map<String, String> configs, String... topics)
      throws Exception {
    try (Admin admin = admin()) {
      admin
          .createTopics(
              Stream.of(topics)
                  .map(t -> new NewTopic(t, partitions, (short) 1).configs(configs))
                  .toList())
          .all()
          .get(60, TimeUnit.SECONDS);
    }
  }

  /**
   * One line per partition of {@code topic} (created with LogAppendTime) about an outage from
   * {@code down} to {@code up}: records, how long after {@code up} the first record reached the
   * log again, the largest lag from event time (found by {@code eventTime}'s first group, ISO-8601)
   * to append, and the largest disorder (how far an event time lies behind the largest before it
   * in the same partition).
   */
  public String appendReport(
      String topic, java.util.regex.Pattern eventTime, java.time.Instant down, java.time.Instant up) {
    Map<String, Object> config =
        Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
            ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName(),
            ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName(),
            ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    StringBuilder report = new StringBuilder(topic + " (outage " + down + " .. " + up + "):");
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config)) {
      List<TopicPartition> parts =
          consumer.partitionsFor(topic).stream()
              .map(i -> new TopicPartition(topic, i.partition()))
              .toList();
      consumer.assign(parts);
      consumer.seekToBeginning(parts);
      Map<TopicPartition, Long> end = consumer.endOffsets(parts);
      Map<TopicPartition, List<ConsumerRecord<byte[], byte[]>>> records = new java.util.TreeMap<>(
          java.util.Comparator.comparingInt(TopicPartition::partition));
      long deadline = System.currentTimeMillis() + 60_000;
      while (parts.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))
          && System.currentTimeMillis() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(java.time.Duration.ofSeconds(1))) {
          records.computeIfAbsent(new TopicPartition(r.topic(), r.partition()),
              k -> new java.util.ArrayList<>()).add(r);
        }
      }
      for (Map.Entry<TopicPartition, List<ConsumerRecord<byte[], byte[]>>> e : records.entrySet()) {
        long firstAfterUp = -1;
        long maxLag = 0;
        long maxDisorder = 0;
        long maxEvent = Long.MIN_VALUE;
        for (ConsumerRecord<byte[], byte[]> r : e.getValue()) {
          if (firstAfterUp < 0 && r.timestamp() >= up.toEpochMilli()) {
            firstAfterUp = r.timestamp() - up.toEpochMilli();
          }
          java.util.regex.Matcher m =
              eventTime.matcher(new String(r.value(), StandardCharsets.UTF_8));
          long t;
          try {
            t = m.find() ? java.time.Instant.parse(m.group(1)).toEpochMilli() : Long.MIN_VALUE;
          } catch (java.time.format.DateTimeParseException notATime) {
            t = Long.MIN_VALUE; // the scenario's bad input: a dead letter for the pipelines
          }
          if (t != Long.MIN_VALUE) {
            maxLag = Math.max(maxLag, r.timestamp() - t);
            if (maxEvent != Long.MIN_VALUE) {
              maxDisorder = Math.max(maxDisorder, maxEvent - t);
            }
            maxEvent = Math.max(maxEvent, t);
          }
        }
        report.append(String.format(
            " p%d: %d records, first append %.1f s after the broker answered, largest lag event"
                + " to append %.1f s, largest disorder %.1f s;",
            e.getKey().partition(), e.getValue().size(), firstAfterUp / 1000.0, maxLag / 1000.0,
            maxDisorder / 1000.0));
      }
    } catch (RuntimeException e) {
      report.append(" not readable: ").append(e);
    }
    return report.toString();
  }

  private Admin admin() {
    return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers()));
  }

  @Override
  public void close() {
    ChildProcesses.kill(process);
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      s.setReuseAddress(true);
      return s.getLocalPort();
    }
  }
}
