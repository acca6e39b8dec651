package io.streamrecon.pipeline.testing;

import io.streamrecon.deltalake.DeltaLakeAppender;
import io.streamrecon.model.Event;
import io.streamrecon.model.Origin;
import io.streamrecon.model.Side;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.joda.time.Instant;

/**
 * The main class of a writer JVM in the HDFS tests: appends {@code batches} batches of {@code rows}
 * raw events to {@code raw_events} under a warehouse, one commit per batch with the app id and
 * batch number as transaction, as a run's writer commits panes. Row {@code i} of batch {@code b} is
 * the Kafka record {@code <appId>/0@<b * rows + i>}, so a restarted writer that begins again at
 * batch 0 sends the same rows, as a job replaying from its last checkpoint does.
 *
 * <p>Arguments: warehouse, app id, batches, rows, and optionally a file whose existence starts the
 * writing (so that two writers start together). Prints {@code ready} and then {@code committed
 * batch B at version V} per batch.
 */
public final class HdfsCommitWriter {
  private HdfsCommitWriter() {}

  public static void main(String[] args) throws Exception {
    String warehouse = args[0];
    String appId = args[1];
    int batches = Integer.parseInt(args[2]);
    int rows = Integer.parseInt(args[3]);
    System.out.println("ready");
    System.out.flush();
    if (args.length > 4) {
      Path go = Path.of(args[4]);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      // Waits for the other writer's JVM: there is nothing to block on across processes.
      while (!Files.exists(go)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("no start signal " + go);
        }
        TimeUnit.MILLISECONDS.sleep(20);
      }
    }
    Instant t0 = Instant.parse("2024-03-01T10:00:00.000Z");
    try (DeltaLakeAppender<Event> appender =
        DeltaLakeAppender.rawEvents(new Configuration(), warehouse, appId)) {
      for (int b = 0; b < batches; b++) {
        for (int i = 0; i < rows; i++) {
          long offset = (long) b * rows + i;
          String id = appId + "-" + offset;
          byte[] payload =
              ("{\"id\":\"" + id + "\",\"batch\":" + b + "}").getBytes(StandardCharsets.UTF_8);
          Instant t = t0.plus(offset * 1000L);
          Origin origin = Origin.kafka(appId, 0, offset);
          appender.write(new Event(Side.SOURCE, id, t, sha256(payload), payload, origin), t);
        }
        long version = appender.commit(appId, b);
        System.out.println("committed batch " + b + " at version " + version);
        System.out.flush();
      }
    }
  }

  private static String sha256(byte[] bytes) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
  }
}
