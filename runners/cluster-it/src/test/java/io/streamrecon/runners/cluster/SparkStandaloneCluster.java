package io.streamrecon.runners.cluster;

import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A Spark standalone cluster of separate JVMs on this machine: one {@code Master} and {@code n}
 * {@code Worker}s (1 core, {@link #WORKER_MEMORY} each), all started from the reproduced Spark 3.5
 * distribution's jars (runners/dist/spark) on loopback and free ports. Workers launch executors
 * with {@code $SPARK_HOME/jars/*}, so a directory whose {@code jars} links to the distribution
 * class path serves as {@code SPARK_HOME}. {@link #close} kills every JVM by PID (executors are
 * children of their worker, which ends them when it stops; they are killed here too).
 */
final class SparkStandaloneCluster implements AutoCloseable {
  /** What a worker offers; an executor asks for 512m, Spark's minimum being 450m. */
  static final String WORKER_MEMORY = "768m";

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path dir;
  private final int masterPort;
  private final int webUiPort;
  private final List<Distribution.Child> children = new ArrayList<>();
  private final List<Path> workDirs = new ArrayList<>();
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private SparkStandaloneCluster(Path dir, int masterPort, int webUiPort) {
    this.dir = dir;
    this.masterPort = masterPort;
    this.webUiPort = webUiPort;
  }

  /**
   * Starts a master and {@code workers} workers under {@code dir} (logs, work dirs, SPARK_HOME) and
   * waits, with a deadline, until the master's JSON lists them all alive.
   */
  static SparkStandaloneCluster start(Path dir, int workers, long timeoutSeconds) throws Exception {
    Path home = dir.resolve("spark-home");
    Files.createDirectories(home);
    Path jars = Path.of(Distribution.distClassPath("spark")).getParent();
    Files.createSymbolicLink(home.resolve("jars"), jars);
    SparkStandaloneCluster cluster =
        new SparkStandaloneCluster(dir, Distribution.freePort(), Distribution.freePort());
    try {
      cluster.children.add(
          cluster.sparkDaemon(
              "master",
              "org.apache.spark.deploy.master.Master",
              "--host",
              Distribution.LOOPBACK,
              "--port",
              String.valueOf(cluster.masterPort),
              "--webui-port",
              String.valueOf(cluster.webUiPort)));
      for (int i = 1; i <= workers; i++) {
        Path work = dir.resolve("worker-" + i + "-work");
        Files.createDirectories(work);
        cluster.workDirs.add(work);
        cluster.children.add(
            cluster.sparkDaemon(
                "worker-" + i,
                "org.apache.spark.deploy.worker.Worker",
                "--host",
                Distribution.LOOPBACK,
                "--port",
                "0",
                "--webui-port",
                "0",
                "--cores",
                "1",
                "--memory",
                WORKER_MEMORY,
                "--work-dir",
                work.toString(),
                cluster.masterUrl()));
      }
      cluster.awaitAliveWorkers(workers, timeoutSeconds);
      return cluster;
    } catch (Throwable t) {
      cluster.close();
      throw t;
    }
  }

  /** {@code spark://127.0.0.1:port}. */
  String masterUrl() {
    return "spark://" + Distribution.LOOPBACK + ":" + masterPort;
  }

  /** The environment every JVM of the cluster and the submitting JVM get. */
  Map<String, String> env() {
    return Map.of(
        "SPARK_HOME",
        dir.resolve("spark-home").toString(),
        // Without it Spark binds to the first non-loopback interface it finds.
        "SPARK_LOCAL_IP",
        Distribution.LOOPBACK,
        "SPARK_SCALA_VERSION",
        "2.12");
  }

  /** The master's state as its web UI serves it ({@code /json/}). */
  JsonNode masterState() throws IOException, InterruptedException {
    HttpRequest request =
        HttpRequest.newBuilder(
                URI.create("http://" + Distribution.LOOPBACK + ":" + webUiPort + "/json/"))
            .timeout(Duration.ofSeconds(10))
            .build();
    return JSON.readTree(http.send(request, HttpResponse.BodyHandlers.ofString()).body());
  }

  /**
   * The master's record of the application named {@code name} (Beam's {@code --appName}), active or
   * completed; fails when there is none or more than one.
   */
  JsonNode application(String name) throws IOException, InterruptedException {
    JsonNode state = masterState();
    List<JsonNode> found = new ArrayList<>();
    for (String list : List.of("activeapps", "completedapps")) {
      for (JsonNode app : state.path(list)) {
        if (name.equals(app.path("name").asText())) {
          found.add(app);
        }
      }
    }
    assertTrue("one application named " + name + " expected: " + state, found.size() == 1);
    return found.get(0);
  }

  /**
   * Asserts that each worker ran one executor for {@code appId} and that it finished tasks: the
   * work was spread over the cluster, not done in the driver or on one worker.
   */
  void assertEveryWorkerRanTasks(String appId) throws IOException {
    for (Path work : workDirs) {
      List<Path> logs = executorLogs(work, appId);
      assertTrue("one executor of " + appId + " in " + work + ": " + logs, logs.size() == 1);
      assertTrue(
          "the executor in " + work + " finished no task:\n" + Distribution.Child.tail(logs.get(0)),
          Files.readString(logs.get(0)).contains("Finished task"));
    }
  }

  /** Each worker's work directory ({@code <app id>/<executor id>/stderr} inside). */
  List<Path> workDirs() {
    return workDirs;
  }

  /** The stderr logs of the executors that {@code workDir}'s worker ran for {@code appId}. */
  static List<Path> executorLogs(Path workDir, String appId) throws IOException {
    Path app = workDir.resolve(appId);
    if (!Files.isDirectory(app)) {
      return List.of();
    }
    try (Stream<Path> executors = Files.list(app)) {
      return executors.map(e -> e.resolve("stderr")).filter(Files::isRegularFile).toList();
    }
  }

  private void awaitAliveWorkers(int workers, long timeoutSeconds) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
    while (true) {
      for (Distribution.Child child : children) {
        assertTrue(
            child.out + " ended early; stderr:\n" + child.stderrTail(), child.process.isAlive());
      }
      int alive = -1;
      try {
        alive = masterState().path("aliveworkers").asInt(-1);
      } catch (IOException e) {
        // The master's web UI is not up yet.
      }
      if (alive == workers) {
        return;
      }
      assertTrue(
          "Spark master lists "
              + alive
              + " of "
              + workers
              + " workers after "
              + timeoutSeconds
              + " s; master stderr:\n"
              + children.get(0).stderrTail(),
          System.nanoTime() < deadline);
      // Polling another process's state: nothing to block on; the probe itself takes time.
      children.get(0).process.waitFor(500, TimeUnit.MILLISECONDS);
    }
  }

  private Distribution.Child sparkDaemon(String name, String mainClass, String... args)
      throws IOException {
    List<String> cmd = Distribution.jvm(Distribution.distClassPath("spark"), "-Xmx256m");
    cmd.add(mainClass);
    cmd.addAll(List.of(args));
    return new Distribution.Child(cmd, dir, name, env());
  }

  @Override
  public void close() throws Exception {
    // Workers first (each stops its executors), the master last; every JVM by its PID, and the
    // executors too, should a worker have died without ending them.
    List<ProcessHandle> executors = new ArrayList<>();
    for (Distribution.Child child : children) {
      child.process.descendants().forEach(executors::add);
    }
    for (int i = children.size() - 1; i >= 0; i--) {
      children.get(i).close();
    }
    for (ProcessHandle executor : executors) {
      executor.destroyForcibly();
    }
  }
}
