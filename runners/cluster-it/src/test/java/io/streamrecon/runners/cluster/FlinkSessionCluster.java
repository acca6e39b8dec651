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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A Flink 1.19 session cluster of separate JVMs on this machine: a JobManager ({@code
 * StandaloneSessionClusterEntrypoint}) and one TaskManager ({@code TaskManagerRunner}, 2 slots),
 * started from the reproduced distribution's class path (runners/dist/flink) with a generated
 * configuration directory, on loopback and free ports. {@code flink-dist}'s scripts are not there,
 * so the TaskManager's memory components, which {@code taskmanager.sh} would compute and pass as
 * dynamic properties, are written into the configuration explicitly, and the heap flags follow from
 * them. {@link #close} kills both JVMs by PID.
 */
final class FlinkSessionCluster implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path dir;
  private final Path confDir;
  private final int restPort;
  private final int slots;
  private final List<Distribution.Child> children = new ArrayList<>();
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private FlinkSessionCluster(Path dir, Path confDir, int restPort, int slots) {
    this.slots = slots;
    this.dir = dir;
    this.confDir = confDir;
    this.restPort = restPort;
  }

  /**
   * Writes {@code dir/conf/config.yaml}, starts the JobManager and the TaskManager, and waits (with
   * a deadline) until the JobManager's REST API counts the TaskManager and its slots.
   */
  static FlinkSessionCluster start(Path dir, int slots, long timeoutSeconds) throws Exception {
    Path conf = dir.resolve("conf");
    Files.createDirectories(conf);
    int restPort = Distribution.freePort();
    Map<String, String> c = new LinkedHashMap<>();
    c.put("jobmanager.rpc.address", Distribution.LOOPBACK);
    c.put("jobmanager.bind-host", Distribution.LOOPBACK);
    c.put("jobmanager.rpc.port", String.valueOf(Distribution.freePort()));
    c.put("rest.address", Distribution.LOOPBACK);
    c.put("rest.bind-address", Distribution.LOOPBACK);
    c.put("rest.port", String.valueOf(restPort));
    c.put("taskmanager.host", Distribution.LOOPBACK);
    c.put("taskmanager.bind-host", Distribution.LOOPBACK);
    c.put("taskmanager.rpc.port", "0");
    c.put("taskmanager.data.port", "0");
    c.put("blob.server.port", "0");
    c.put("taskmanager.numberOfTaskSlots", String.valueOf(slots));
    c.put("parallelism.default", String.valueOf(slots));
    // What taskmanager.sh derives from taskmanager.memory.process.size; TaskManagerRunner requires
    // each component set. The JVM gets -Xmx = framework + task heap (see start below).
    c.put("taskmanager.cpu.cores", String.valueOf(slots));
    c.put("taskmanager.memory.framework.heap.size", "64m");
    c.put("taskmanager.memory.task.heap.size", "384m");
    c.put("taskmanager.memory.framework.off-heap.size", "64m");
    c.put("taskmanager.memory.task.off-heap.size", "0m");
    c.put("taskmanager.memory.network.min", "32m");
    c.put("taskmanager.memory.network.max", "32m");
    c.put("taskmanager.memory.managed.size", "32m");
    c.put("taskmanager.memory.jvm-metaspace.size", "256m");
    c.put("taskmanager.memory.jvm-overhead.min", "64m");
    c.put("taskmanager.memory.jvm-overhead.max", "64m");
    StringBuilder yaml = new StringBuilder();
    c.forEach((k, v) -> yaml.append(k).append(": ").append(v).append('\n'));
    Files.writeString(conf.resolve("config.yaml"), yaml);

    FlinkSessionCluster cluster = new FlinkSessionCluster(dir, conf, restPort, slots);
    try {
      cluster.children.add(
          cluster.flinkDaemon(
              "jobmanager",
              List.of("-Xmx384m"),
              "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint"));
      cluster.children.add(
          cluster.flinkDaemon(
              "taskmanager",
              List.of(
                  "-Xmx448m",
                  "-Xms448m",
                  "-XX:MaxDirectMemorySize=96m",
                  "-XX:MaxMetaspaceSize=256m"),
              "org.apache.flink.runtime.taskexecutor.TaskManagerRunner"));
      cluster.awaitSlots(slots, timeoutSeconds);
      return cluster;
    } catch (Throwable t) {
      cluster.close();
      throw t;
    }
  }

  /** {@code 127.0.0.1:restPort}, what {@code flink run -m} takes. */
  String restAddress() {
    return Distribution.LOOPBACK + ":" + restPort;
  }

  /** The configuration directory ({@code FLINK_CONF_DIR} for the client). */
  Path confDir() {
    return confDir;
  }

  /** A GET on the JobManager's REST API, e.g. {@code /overview} or {@code /jobs/overview}. */
  JsonNode rest(String path) throws IOException, InterruptedException {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://" + restAddress() + path))
            .timeout(Duration.ofSeconds(10))
            .build();
    return JSON.readTree(http.send(request, HttpResponse.BodyHandlers.ofString()).body());
  }

  /** Cancels a job through the REST API ({@code PATCH /jobs/:id?mode=cancel}). */
  void cancel(String jobId) throws IOException, InterruptedException {
    HttpRequest request =
        HttpRequest.newBuilder(
                URI.create("http://" + restAddress() + "/jobs/" + jobId + "?mode=cancel"))
            .method("PATCH", HttpRequest.BodyPublishers.noBody())
            .timeout(Duration.ofSeconds(10))
            .build();
    int status = http.send(request, HttpResponse.BodyHandlers.ofString()).statusCode();
    assertTrue("cancel of job " + jobId + " answered HTTP " + status, status / 100 == 2);
  }

  /** Waits until every slot is free again (the jobs of the previous test have ended). */
  void awaitFreeSlots(long timeoutSeconds) throws Exception {
    awaitSlots(slots, timeoutSeconds);
  }

  private void awaitSlots(int slots, long timeoutSeconds) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
    while (true) {
      for (Distribution.Child child : children) {
        assertTrue(
            child.out + " ended early; stderr:\n" + child.stderrTail(), child.process.isAlive());
      }
      JsonNode overview = null;
      try {
        overview = rest("/overview");
      } catch (IOException e) {
        // The JobManager's REST endpoint is not up yet.
      }
      if (overview != null
          && overview.path("taskmanagers").asInt() == 1
          && overview.path("slots-available").asInt() == slots) {
        return;
      }
      assertTrue(
          "Flink JobManager has no TaskManager with "
              + slots
              + " free slots after "
              + timeoutSeconds
              + " s: "
              + overview,
          System.nanoTime() < deadline);
      // Polling another process's state: nothing to block on; the probe itself takes time.
      children.get(0).process.waitFor(500, TimeUnit.MILLISECONDS);
    }
  }

  private Distribution.Child flinkDaemon(String name, List<String> heap, String mainClass)
      throws IOException {
    List<String> cmd =
        Distribution.jvm(Distribution.distClassPath("flink"), heap.toArray(new String[0]));
    cmd.add(mainClass);
    cmd.add("--configDir");
    cmd.add(confDir.toString());
    return new Distribution.Child(cmd, dir, name, Map.of("FLINK_CONF_DIR", confDir.toString()));
  }

  @Override
  public void close() throws Exception {
    for (int i = children.size() - 1; i >= 0; i--) {
      children.get(i).close();
    }
  }
}
