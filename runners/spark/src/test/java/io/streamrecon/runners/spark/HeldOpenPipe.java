package io.streamrecon.runners.spark;

import static org.junit.Assert.assertEquals;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A named pipe whose writer sends a first part, then holds the pipe open until a step downstream
 * signals that it saw output, and only then sends the rest and closes: a step that passes output on
 * before its input ends signals in time, one that holds every output of its input until the end
 * leaves the writer waiting until its deadline.
 */
public final class HeldOpenPipe {
  private static final long WAIT_SECONDS = 60;

  private final Thread writer;
  private final AtomicBoolean seenWhileOpen = new AtomicBoolean();
  private final AtomicReference<Throwable> failure = new AtomicReference<>();

  private HeldOpenPipe(Path fifo, byte[] first, CountDownLatch seen, byte[] rest) {
    writer =
        new Thread(
            () -> {
              // Opening a pipe for writing waits until the pipeline opens it for reading.
              try (OutputStream out = Files.newOutputStream(fifo)) {
                out.write(first);
                out.flush();
                seenWhileOpen.set(seen.await(WAIT_SECONDS, TimeUnit.SECONDS));
                out.write(rest);
              } catch (Throwable e) {
                failure.set(e);
              }
            },
            "fifo-writer");
    writer.setDaemon(true);
  }

  /** Makes the pipe at {@code fifo} and starts its writer. */
  public static HeldOpenPipe start(Path fifo, byte[] first, CountDownLatch seen, byte[] rest)
      throws Exception {
    Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
    assertEquals("mkfifo", 0, mkfifo.waitFor());
    HeldOpenPipe pipe = new HeldOpenPipe(fifo, first, seen, rest);
    pipe.writer.start();
    return pipe;
  }

  /**
   * Waits for the writer to end; true if the signal came while the pipe was still open. Fails if
   * writing the pipe failed.
   */
  public boolean seenWhileOpen() throws InterruptedException {
    writer.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS + 30));
    assertEquals("writing the pipe failed", null, failure.get());
    return seenWhileOpen.get();
  }
}
