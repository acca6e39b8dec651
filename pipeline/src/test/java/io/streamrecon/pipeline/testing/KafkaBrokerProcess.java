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
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A single-node KRaft Kafka 3.9 broker in its own JVM ({@code kafka.Kafka server.properties}, its
 * log directory formatted by {@code kafka.tools.StorageTool}), on free loopback ports. It can be
 * stopped and started again on the same ports and data. {@link #close} kills it by PID.
 *
 * <p>{@link #startWithSaslSsl} adds a SASL_SSL listener (PLAIN over TLS, with a throwaway
 * certificate) for the clients under test; the PLAINTEXT listener stays for the test's own admin
 * and producer and between broker and itself.
 */
public final class KafkaBrokerProcess implements AutoCloseable {
  private final Path dir;
  private final Path config;
  private final Path log;
  private final int port;
  private final SaslSsl saslSsl;
  private Process process;

  /**
   * The SASL_SSL listener: its port, the one user it accepts, and the client trust store (PKCS12)
   * holding the broker's certificate.
   */
  public record SaslSsl(
      int port, String user, String password, Path truststore, String truststorePassword) {
    /** {@code 127.0.0.1:port} of the SASL_SSL listener. */
    public String bootstrapServers() {
      return "127.0.0.1:" + port;
    }

    /** {@code kafka://127.0.0.1:port/topic} on the SASL_SSL listener. */
    public String uri(String topic) {
      return "kafka://" + bootstrapServers() + "/" + topic;
    }

    /** The client properties that connect to this listener. */
    public Properties clientProperties() {
      Properties p = new Properties();
      p.setProperty("security.protocol", "SASL_SSL");
      p.setProperty("sasl.mechanism", "PLAIN");
      p.setProperty(
          "sasl.jaas.config",
          "org.apache.kafka.common.security.plain.PlainLoginModule required username=\""
              + user
              + "\" password=\""
              + password
              + "\";");
      p.setProperty("ssl.truststore.type", "PKCS12");
      p.setProperty("ssl.truststore.location", truststore.toString());
      p.setProperty("ssl.truststore.password", truststorePassword);
      return p;
    }
  }

  private KafkaBrokerProcess(Path dir, Path config, Path log, int port, SaslSsl saslSsl) {
    this.dir = dir;
    this.config = config;
    this.log = log;
    this.port = port;
    this.saslSsl = saslSsl;
  }

  /** Formats a log directory under {@code dir} and starts the broker. */
  public static KafkaBrokerProcess start(Path dir) throws Exception {
    return start(dir, null, null);
  }

  /**
   * As {@link #start(Path)}, with a SASL_SSL listener that accepts {@code user} with {@code
   * password} (PLAIN) over TLS; clients trust the broker through a trust store protected by {@code
   * truststorePassword}.
   */
  public static KafkaBrokerProcess startWithSaslSsl(
      Path dir, String user, String password, String truststorePassword) throws Exception {
    return start(dir, new String[] {user, password}, truststorePassword);
  }

  private static KafkaBrokerProcess start(Path dir, String[] sasl, String truststorePassword)
      throws Exception {
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
    SaslSsl saslSsl = null;
    if (sasl != null) {
      saslSsl = saslSslListener(dir, p, sasl[0], sasl[1], truststorePassword);
    }
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
      throw new IllegalStateException(
          "kafka storage format failed\n" + ChildProcesses.tail(log, 30));
    }
    KafkaBrokerProcess broker = new KafkaBrokerProcess(dir, config, log, brokerPort, saslSsl);
    broker.startAgain();
    return broker;
  }

  /**
   * Adds the SASL_SSL listener to the broker's properties {@code p}: a key pair and self-signed
   * certificate for 127.0.0.1 made by the JDK's keytool, valid for two days.
   */
  private static SaslSsl saslSslListener(
      Path dir, Properties p, String user, String password, String truststorePassword)
      throws Exception {
    Path tls = Files.createDirectories(dir.resolve("tls"));
    Path keystore = tls.resolve("broker.p12");
    Path certificate = tls.resolve("broker.pem");
    Path truststore = tls.resolve("truststore.p12");
    String keystorePassword = "broker-" + Uuid.randomUuid();
    keytool(
        tls,
        "-genkeypair",
        "-alias",
        "broker",
        "-keyalg",
        "RSA",
        "-keysize",
        "2048",
        "-dname",
        "CN=127.0.0.1",
        "-ext",
        "SAN=IP:127.0.0.1",
        "-validity",
        "2",
        "-storetype",
        "PKCS12",
        "-keystore",
        keystore.toString(),
        "-storepass",
        keystorePassword,
        "-keypass",
        keystorePassword);
    keytool(
        tls,
        "-exportcert",
        "-alias",
        "broker",
        "-rfc",
        "-keystore",
        keystore.toString(),
        "-storepass",
        keystorePassword,
        "-file",
        certificate.toString());
    keytool(
        tls,
        "-importcert",
        "-noprompt",
        "-alias",
        "broker",
        "-file",
        certificate.toString(),
        "-storetype",
        "PKCS12",
        "-keystore",
        truststore.toString(),
        "-storepass",
        truststorePassword);
    int saslPort = freePort();
    p.put("listeners", p.getProperty("listeners") + ",SASL_SSL://127.0.0.1:" + saslPort);
    p.put(
        "advertised.listeners",
        p.getProperty("advertised.listeners") + ",SASL_SSL://127.0.0.1:" + saslPort);
    p.put(
        "listener.security.protocol.map",
        p.getProperty("listener.security.protocol.map") + ",SASL_SSL:SASL_SSL");
    p.put("sasl.enabled.mechanisms", "PLAIN");
    p.put(
        "listener.name.sasl_ssl.plain.sasl.jaas.config",
        "org.apache.kafka.common.security.plain.PlainLoginModule required user_"
            + user
            + "=\""
            + password
            + "\";");
    p.put("listener.name.sasl_ssl.ssl.keystore.type", "PKCS12");
    p.put("listener.name.sasl_ssl.ssl.keystore.location", keystore.toString());
    p.put("listener.name.sasl_ssl.ssl.keystore.password", keystorePassword);
    p.put("listener.name.sasl_ssl.ssl.key.password", keystorePassword);
    return new SaslSsl(saslPort, user, password, truststore, truststorePassword);
  }

  private static void keytool(Path dir, String... args) throws Exception {
    List<String> cmd = new java.util.ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    cmd.addAll(List.of(args));
    Path out = dir.resolve("keytool.log");
    Process k = ChildProcesses.start(cmd, out);
    if (!k.waitFor(60, TimeUnit.SECONDS) || k.exitValue() != 0) {
      ChildProcesses.kill(k);
      throw new IllegalStateException(
          "keytool " + args[0] + " failed\n" + ChildProcesses.tail(out, 20));
    }
  }

  /** The SASL_SSL listener of a broker from {@link #startWithSaslSsl}. */
  public SaslSsl saslSsl() {
    if (saslSsl == null) {
      throw new IllegalStateException("this broker was started without a SASL_SSL listener");
    }
    return saslSsl;
  }

  /**
   * Produces UTF-8 lines in order (null key) over the PLAINTEXT listener and waits until all are
   * acknowledged.
   */
  public void produceLines(String topic, List<String> lines) throws Exception {
    Map<String, Object> config =
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrapServers(),
            ProducerConfig.ACKS_CONFIG,
            "all",
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
            ByteArraySerializer.class,
            ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
            ByteArraySerializer.class);
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config)) {
      for (String line : lines) {
        producer.send(new ProducerRecord<>(topic, line.getBytes(StandardCharsets.UTF_8)));
      }
      producer.flush();
    }
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
   * Creates topics with {@code partitions} partitions each and the topic-level {@code configs} (for
   * example {@code message.timestamp.type=LogAppendTime}).
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
   * {@code down} to {@code up}: records, how long after {@code up} the first record reached the log
   * again, the largest lag from event time (found by {@code eventTime}'s first group, ISO-8601) to
   * append, and the largest disorder (how far an event time lies behind the largest before it in
   * the same partition).
   */
  public String appendReport(
      String topic,
      java.util.regex.Pattern eventTime,
      java.time.Instant down,
      java.time.Instant up) {
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
      Map<TopicPartition, List<ConsumerRecord<byte[], byte[]>>> records =
          new java.util.TreeMap<>(java.util.Comparator.comparingInt(TopicPartition::partition));
      long deadline = System.currentTimeMillis() + 60_000;
      while (parts.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))
          && System.currentTimeMillis() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(java.time.Duration.ofSeconds(1))) {
          records
              .computeIfAbsent(
                  new TopicPartition(r.topic(), r.partition()), k -> new java.util.ArrayList<>())
              .add(r);
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
        report.append(
            String.format(
                " p%d: %d records, first append %.1f s after the broker answered, largest lag event"
                    + " to append %.1f s, largest disorder %.1f s;",
                e.getKey().partition(),
                e.getValue().size(),
                firstAfterUp / 1000.0,
                maxLag / 1000.0,
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
