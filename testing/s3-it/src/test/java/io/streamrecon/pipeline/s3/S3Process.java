package io.streamrecon.pipeline.s3;

import io.streamrecon.pipeline.testing.ChildProcesses;
import io.streamrecon.testing.s3mock.S3MockMain;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An S3-compatible server (io.findify s3mock) in its own JVM, for tests that put a warehouse on an
 * object store through Hadoop's S3A. The child JVM runs {@link S3MockMain} on the class path that
 * the {@code testing/s3mock} module resolves for it (written into that module's jar as {@value
 * #CLASS_PATH_RESOURCE}), not on this JVM's: s3mock's Akka, Scala 2.12 libraries, guava 21, Jackson
 * 2.6 and AWS SDK 1.11 differ from the versions the pipeline's tests run with. Objects are kept in
 * the server's memory; {@link #keys} lists them with a plain HTTP request, so a test can see what
 * reached the server without going through S3A or the AWS SDK. {@link #close} kills it by PID.
 */
final class S3Process implements AutoCloseable {
  /** The class path resource, in the server module, that lists the server JVM's jars. */
  static final String CLASS_PATH_RESOURCE = "io/streamrecon/testing/s3mock/class-path.txt";

  private static final Pattern KEY = Pattern.compile("<Key>([^<]*)</Key>");

  private final Process process;
  private final Path log;
  private final String bucket;
  private final String endpoint;

  private S3Process(Process process, Path log, String bucket, String endpoint) {
    this.process = process;
    this.log = log;
    this.bucket = bucket;
    this.endpoint = endpoint;
  }

  /**
   * Starts a server with its log under {@code dir}, creates {@code bucket} and waits until the
   * server prints its endpoint.
   */
  static S3Process start(Path dir, String bucket) throws Exception {
    Files.createDirectories(dir);
    Path log = dir.resolve("s3.log");
    List<String> cmd = new ArrayList<>();
    cmd.add(ChildProcesses.java());
    cmd.add("-Xmx256m");
    cmd.add("-cp");
    cmd.add(serverClassPath());
    cmd.add(S3MockMain.class.getName());
    cmd.add(bucket);
    Process p = ChildProcesses.start(cmd, log);
    AtomicReference<String> endpoint = new AtomicReference<>();
    try {
      ChildProcesses.await(
          "the S3 server JVM printed its endpoint",
          60,
          p,
          log,
          () -> {
            endpoint.set(announced(log));
            return endpoint.get() != null;
          });
    } catch (AssertionError | InterruptedException e) {
      ChildProcesses.kill(p);
      throw e;
    }
    return new S3Process(p, log, bucket, endpoint.get());
  }

  /** The server module's classes (a directory or its jar) and the jars its build resolved. */
  private static String serverClassPath() throws IOException, URISyntaxException {
    URL module = S3MockMain.class.getProtectionDomain().getCodeSource().getLocation();
    String jars;
    try (InputStream in =
        S3MockMain.class.getClassLoader().getResourceAsStream(CLASS_PATH_RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(
            CLASS_PATH_RESOURCE + " is missing from " + module + ": build testing/s3mock");
      }
      jars = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
    }
    return Path.of(module.toURI()) + java.io.File.pathSeparator + jars;
  }

  private static String announced(Path log) {
    try {
      for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
        if (line.startsWith(S3MockMain.ENDPOINT_LINE)) {
          return line.substring(S3MockMain.ENDPOINT_LINE.length()).trim();
        }
      }
      return null;
    } catch (IOException e) {
      return null;
    }
  }

  /** {@code http://127.0.0.1:PORT}. */
  String endpoint() {
    return endpoint;
  }

  /** The bucket created at start. */
  String bucket() {
    return bucket;
  }

  /**
   * The keys of the bucket's objects that start with {@code prefix}, in order, as the server lists
   * them (a path-style {@code ListObjects} over plain HTTP; the server checks no signature).
   */
  List<String> keys(String prefix) throws IOException, InterruptedException {
    HttpResponse<String> listed =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create(
                            endpoint
                                + "/"
                                + bucket
                                + "?prefix="
                                + URLEncoder.encode(prefix, StandardCharsets.UTF_8)))
                    .GET()
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    if (listed.statusCode() != 200) {
      throw new IOException("listing " + prefix + ": HTTP " + listed.statusCode());
    }
    List<String> keys = new ArrayList<>();
    Matcher m = KEY.matcher(listed.body());
    while (m.find()) {
      keys.add(m.group(1));
    }
    keys.sort(null);
    return keys;
  }

  /** The child JVM's output, for failure messages. */
  Path log() {
    return log;
  }

  @Override
  public void close() {
    ChildProcesses.kill(process);
  }
}
