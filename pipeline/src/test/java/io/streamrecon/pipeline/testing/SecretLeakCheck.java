package io.streamrecon.pipeline.testing;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.streamrecon.deltalake.WarehouseTables;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * The secrets test shared by the runners: a streaming job in its own JVM reads a broker's SASL_SSL
 * listener (PLAIN over TLS) with the password and the trust store's password in a properties file
 * ({@code --kafkaPropertiesFile}), until it has stored the records and completed a checkpoint. Then
 * no file under the warehouse, checkpoints included, and nothing the job printed may hold either
 * secret. The job reading at all shows that the secrets reached the Kafka client.
 */
public final class SecretLeakCheck {
  private static final int PAIRS = 20;

  private final Path dir;
  private final List<String> runnerOptions;
  private final CrashHarness.Launcher launcher;

  /**
   * @param runnerOptions the runner's options, e.g. {@code --runner=FlinkRunner}
   * @param launcher how the job is started (the shipped artifacts: {@link
   *     CrashHarness#binStreamrecon})
   */
  public SecretLeakCheck(Path dir, List<String> runnerOptions, CrashHarness.Launcher launcher) {
    this.dir = dir;
    this.runnerOptions = List.copyOf(runnerOptions);
    this.launcher = launcher;
  }

  /** Runs the job and asserts that neither secret was written or printed. */
  public void run() throws Exception {
    String password = "sasl-" + UUID.randomUUID();
    String truststorePassword = "trust-" + UUID.randomUUID();
    Path wh = dir.resolve("warehouse");
    Path log = dir.resolve("run.log");
    Process job = null;
    try (KafkaBrokerProcess broker =
        KafkaBrokerProcess.startWithSaslSsl(
            dir.resolve("broker"), "app", password, truststorePassword)) {
      broker.createTopics(2, "src", "tgt");
      List<String> src = new ArrayList<>();
      List<String> tgt = new ArrayList<>();
      String now = Instant.now().toString();
      for (int i = 0; i < PAIRS; i++) {
        src.add("{\"id\":\"o-" + i + "\",\"eventTime\":\"" + now + "\",\"amount\":" + i + "}");
        tgt.add(
            "{\"id\":\"o-" + i + "\",\"eventTime\":\"" + now + "\",\"amount\":" + (i % 3) + "}");
      }
      broker.produceLines("src", src);
      broker.produceLines("tgt", tgt);
      Path properties = clientProperties(broker.saslSsl());

      List<String> cmd = new ArrayList<>();
      // Library logs at INFO and any stack trace: the most a job ever prints.
      cmd.add("--verbose");
      cmd.add("--source=" + broker.saslSsl().uri("src"));
      cmd.add("--target=" + broker.saslSsl().uri("tgt"));
      cmd.add("--warehouse=" + wh);
      cmd.add("--kafkaPropertiesFile=" + properties);
      cmd.add("--kafkaProperties=group.id=secrets-" + UUID.randomUUID());
      cmd.add("--timeout=5s");
      cmd.add("--commitInterval=1s");
      cmd.add("--progressInterval=2s");
      cmd.addAll(runnerOptions);
      job = launcher.start(cmd, log, null, List.of());
      ChildProcesses.await(
          "the job stored every record read over SASL_SSL",
          240,
          job,
          log,
          () -> CrashHarness.stored(wh) >= 2L * PAIRS);
      Instant stored = Instant.now();
      ChildProcesses.await(
          "a checkpoint completed after the records were stored",
          120,
          job,
          log,
          () -> CrashHarness.checkpointedSince(wh, stored));
      job.destroy();
      job.waitFor(60, java.util.concurrent.TimeUnit.SECONDS);
      assertTrue("the job wrote checkpoints", files(wh.resolve("_checkpoints")).size() > 1);
      assertEquals(
          "warehouse files or output holding the SASL password or the trust store password",
          List.of(),
          holders(wh, log, List.of(password, truststorePassword)));
      assertTrue(
          "the Delta tables were written",
          Files.isDirectory(wh.resolve(WarehouseTables.RAW_EVENTS).resolve("_delta_log")));
    } finally {
      ChildProcesses.kill(job);
    }
  }

  /** The client properties of the listener in a file only its owner can read. */
  private Path clientProperties(KafkaBrokerProcess.SaslSsl listener) throws IOException {
    Path file = dir.resolve("client").resolve("kafka.properties");
    Files.createDirectories(file.getParent());
    Files.createFile(
        file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      listener.clientProperties().store(w, null);
    }
    return file;
  }

  /** The files under the warehouse, and the log, whose bytes contain one of the secrets. */
  private static List<String> holders(Path wh, Path log, List<String> secrets) throws IOException {
    List<Path> all = new ArrayList<>(files(wh));
    all.add(log);
    List<String> found = new ArrayList<>();
    for (Path f : all) {
      // ISO-8859-1 maps every byte to one char: a secret in ASCII is found whatever the format.
      String bytes = new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
      for (int i = 0; i < secrets.size(); i++) {
        if (bytes.contains(secrets.get(i))) {
          found.add(f + " (secret " + (i + 1) + ")");
        }
      }
    }
    return found;
  }

  private static List<Path> files(Path root) throws IOException {
    if (!Files.isDirectory(root)) {
      return List.of();
    }
    try (Stream<Path> s = Files.walk(root)) {
      return s.filter(Files::isRegularFile).toList();
    }
  }
}
