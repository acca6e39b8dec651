package io.streamrecon.pipeline.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.Writer;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool$;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Time;

/**
 * A single-node Kafka 3.9 in KRaft mode (broker and controller in one process) inside the test JVM,
 * on two free loopback ports, with its log directory formatted by Kafka's own storage tool. Use as
 * try-with-resources; {@link #close} shuts the server down and deletes its files.
 */
public final class EmbeddedKafka implements AutoCloseable {
  private final Path dir;
  private final KafkaRaftServer server;
  private final String bootstrap;

  private EmbeddedKafka(Path dir, KafkaRaftServer server, String bootstrap) {
    this.dir = dir;
    this.server = server;
    this.bootstrap = bootstrap;
  }

  /** Formats a fresh log directory and starts the server. */
  public static EmbeddedKafka start() throws Exception {
    Path dir = Files.createTempDirectory("streamrecon-kafka");
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
    p.put("num.partitions", "1");
    p.put("log.flush.interval.messages", "1");
    Path config = dir.resolve("server.properties");
    try (Writer w = Files.newBufferedWriter(config, StandardCharsets.UTF_8)) {
      p.store(w, "streamrecon embedded KRaft test broker");
    }
    ByteArrayOutputStream formatLog = new ByteArrayOutputStream();
    int rc =
        StorageTool$.MODULE$.execute(
            new String[] {
              "format",
              "-t",
              Uuid.randomUuid().toString(),
              "-c",
              config.toString(),
              "--ignore-formatted"
            },
            new PrintStream(formatLog, true, StandardCharsets.UTF_8));
    if (rc != 0) {
      throw new IllegalStateException(
          "formatting the KRaft log dir failed: " + formatLog.toString(StandardCharsets.UTF_8));
    }
    KafkaRaftServer server = new KafkaRaftServer(KafkaConfig.fromProps(p), Time.SYSTEM);
    server.startup();
    EmbeddedKafka kafka = new EmbeddedKafka(dir, server, "127.0.0.1:" + brokerPort);
    kafka.awaitReady();
    return kafka;
  }

  /** {@code host:port} for clients. */
  public String bootstrapServers() {
    return bootstrap;
  }

  /** {@code kafka://host:port/topic}, the form of {@code --source} and {@code --target}. */
  public String uri(String topic) {
    return "kafka://" + bootstrap + "/" + topic;
  }

  /** Creates topics with one partition each. */
  public void createTopics(String... topics) throws Exception {
    try (Admin admin = admin()) {
      admin
          .createTopics(Stream.of(topics).map(t -> new NewTopic(t, 1, (short) 1)).toList())
          .all()
          .get(60, TimeUnit.SECONDS);
    }
  }

  /** Produces the values in order (null key) and waits until all are acknowledged. */
  public void produce(String topic, List<byte[]> values) throws Exception {
    Map<String, Object> config =
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrap,
            ProducerConfig.ACKS_CONFIG,
            "all",
            ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
            true,
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
            ByteArraySerializer.class,
            ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
            ByteArraySerializer.class);
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config)) {
      for (byte[] v : values) {
        producer.send(new ProducerRecord<>(topic, v));
      }
      producer.flush();
    }
  }

  /** Produces UTF-8 lines. */
  public void produceLines(String topic, List<String> lines) throws Exception {
    produce(topic, lines.stream().map(l -> l.getBytes(StandardCharsets.UTF_8)).toList());
  }

  private Admin admin() {
    return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
  }

  private void awaitReady() throws Exception {
    try (Admin admin = admin()) {
      // Returns once the broker has joined the quorum and answers metadata requests.
      admin.describeCluster().nodes().get(60, TimeUnit.SECONDS);
    }
  }

  @Override
  public void close() throws IOException {
    try {
      server.shutdown();
      server.awaitShutdown();
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      }
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      s.setReuseAddress(true);
      return s.getLocalPort();
    }
  }
}
