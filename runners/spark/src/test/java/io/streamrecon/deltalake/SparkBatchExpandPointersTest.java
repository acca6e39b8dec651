package io.streamrecon.deltalake;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.streamrecon.model.EventRef;
import io.streamrecon.model.ModelCoders;
import io.streamrecon.model.ModelCoders.EventRefCoder;
import io.streamrecon.model.Side;
import io.streamrecon.pipeline.ReconcilePipeline;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.beam.runners.spark.SparkPipelineOptions;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.ParDo;
import org.joda.time.Instant;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * On the SparkRunner in batch, the pointers of a committed file reach the next step while the
 * file's row keys are still being read. Beam's classic Spark runner keeps all outputs of one input
 * element until the element is done, and a committed file is one element, so ExpandPointers held
 * a whole file's pointers (about 100,000 per task at 1M records; issue 9, point 5). The row keys
 * here are a sidecar that is a named pipe: the writer sends the first rows and holds the pipe open
 * until the next step has seen a pointer. (The first rows fill well over the reader's 64 KiB
 * buffer, which Hadoop's local file system fills completely before it returns.) If the runner held the file's pointers, the next step would
 * see nothing before the pipe closed, and the writer's wait would end at its deadline unanswered.
 */
public class SparkBatchExpandPointersTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  /** Rows written before the writer waits: about 150 KB of row keys. */
  private static final int FIRST_ROWS = 3_000;

  /** Counted down by the step after ExpandPointers; Spark {@code local} runs tasks in this JVM. */
  static volatile CountDownLatch pointerSeen;

  /** Signals each pointer it receives. */
  static final class SignalFn extends DoFn<EventRef, String> {
    @ProcessElement
    public void process(@Element EventRef ref, OutputReceiver<String> out) {
      pointerSeen.countDown();
      out.output(ref.naturalId());
    }
  }

  private static byte[] rowKeys(String naturalId) throws IOException {
    ByteArrayOutputStream extra = new ByteArrayOutputStream();
    ModelCoders.writeString(naturalId, extra);
    ModelCoders.writeInstant(new Instant(1_700_000_000_000L), extra);
    ModelCoders.writeHash("ab".repeat(32), extra);
    ByteArrayOutputStream row = new ByteArrayOutputStream();
    RowKeys.write(new RowKeys.Row("SOURCE/" + naturalId, extra.toByteArray()), row);
    return row.toByteArray();
  }

  @Test
  public void aFilesPointersReachTheNextStepBeforeItsRowKeysEnd() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    String sidecar = RowKeys.sidecarPath("run-1", "part-0.snappy.parquet");
    Path fifo = Path.of(warehouse, DeltaLakeIO.RAW_EVENTS).resolve(sidecar);
    Files.createDirectories(fifo.getParent());
    Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
    assertEquals("mkfifo", 0, mkfifo.waitFor());
    pointerSeen = new CountDownLatch(1);

    SparkPipelineOptions options =
        PipelineOptionsFactory.fromArgs("--runner=SparkRunner", "--sparkMaster=local[1]")
            .as(SparkPipelineOptions.class);
    ReconcilePipeline.streamSparkBatchReads(options);
    Pipeline pipeline = Pipeline.create(options);
    CommittedRows rows =
        new CommittedRows(
            Side.SOURCE, 0, "side=SOURCE/part-0.snappy.parquet", new byte[0], sidecar,
            new long[0], FIRST_ROWS + 1);
    pipeline
        .apply("CommittedFile", Create.of(rows).withCoder(CommittedRows.Coder.of()))
        .apply("ExpandPointers", ParDo.of(new CommitFiles.SplittableExpandPointersFn(warehouse)))
        .setCoder(EventRefCoder.of())
        .apply("SignalPointers", ParDo.of(new SignalFn()));

    AtomicBoolean seenWhileOpen = new AtomicBoolean();
    AtomicReference<Throwable> writeFailure = new AtomicReference<>();
    Thread writer =
        new Thread(
            () -> {
              // Opening a pipe for writing waits until the pipeline opens it for reading.
              try (OutputStream out = Files.newOutputStream(fifo)) {
                for (int i = 0; i < FIRST_ROWS; i++) {
                  out.write(rowKeys("first-" + i));
                }
                out.flush();
                seenWhileOpen.set(pointerSeen.await(60, TimeUnit.SECONDS));
                out.write(rowKeys("last"));
              } catch (Throwable e) {
                writeFailure.set(e);
              }
            },
            "fifo-writer");
    writer.setDaemon(true);
    writer.start();
    pipeline.run().waitUntilFinish();
    writer.join(TimeUnit.SECONDS.toMillis(90));

    assertEquals("writing the pipe failed", null, writeFailure.get());
    assertTrue(
        "the first pointer reached the next step while the row keys were still open",
        seenWhileOpen.get());
  }
}
