package io.streamrecon.testing.s3mock;

import io.findify.s3mock.S3Mock;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.CountDownLatch;

/**
 * The main class of the S3 server JVM that the S3 warehouse test starts: s3mock on a free port,
 * objects in memory, with the bucket named by the only argument created. Prints {@value
 * #ENDPOINT_LINE}{@code http://127.0.0.1:PORT} once the bucket exists and serves until the process
 * is killed.
 *
 * <p>In memory because s3mock's file store keeps a key ending in {@code /} (the empty directory
 * marker S3A's {@code mkdirs} writes) as a file, and then cannot store the keys under it. s3mock
 * checks no credentials or request signatures and binds every interface (its bind address is
 * fixed); the tests reach it on loopback only.
 */
public final class S3MockMain {
  /** The line that announces the server's endpoint. */
  public static final String ENDPOINT_LINE = "streamrecon-test-s3-endpoint=";

  private S3MockMain() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 1) {
      throw new IllegalArgumentException("usage: S3MockMain BUCKET");
    }
    String bucket = args[0];
    S3Mock server = new S3Mock.Builder().withPort(0).withInMemoryBackend().build();
    int port = server.start().localAddress().getPort();
    String endpoint = "http://127.0.0.1:" + port;
    // Path-style CreateBucket; s3mock reads no signature, so a bare PUT is enough.
    HttpResponse<String> created =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(endpoint + "/" + bucket))
                    .PUT(HttpRequest.BodyPublishers.noBody())
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    if (created.statusCode() != 200) {
      throw new IllegalStateException(
          "creating bucket " + bucket + ": HTTP " + created.statusCode() + " " + created.body());
    }
    System.out.println(ENDPOINT_LINE + endpoint);
    System.out.flush();
    // Runs until the test kills the process.
    new CountDownLatch(1).await();
  }
}
