package io.streamrecon.transforms.deltalake;

import static org.junit.Assert.assertTrue;

import io.streamrecon.deltalake.CommittedRows;
import io.streamrecon.deltalake.RowKeys;
import io.streamrecon.deltalake.WarehouseTables;
import io.streamrecon.model.EventRef;
import io.streamrecon.model.ModelBytes;
import io.streamrecon.model.Side;
import io.streamrecon.runners.spark.HeldOpenPipe;
import io.streamrecon.runners.spark.SparkSupport;
import io.streamrecon.transforms.ModelCoders.EventRefCoder;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
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
 * element until the element is done, and a committed file is one element, so ExpandPointers held a
 * whole file's pointers, so batch heap followed file size. The row keys here are a sidecar that is
 * a named pipe: the writer sends the first rows and holds the pipe open until the next step has
 * seen a pointer. (The first rows fill well over the reader's 64 KiB buffer, which Hadoop's local
 * file system fills completely before it returns.) If the runner held the file's pointers, the next
 * step would see nothing before the pipe closed, and the writer's wait would end at its deadline
 * unanswered.
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
    ModelBytes.writeString(naturalId, extra);
    ModelBytes.writeInstant(new Instant(1_700_000_000_000L), extra);
    ModelBytes.writeHash("ab".repeat(32), extra);
    ByteArrayOutputStream row = new ByteArrayOutputStream();
    RowKeys.write(new RowKeys.Row("SOURCE/" + naturalId, extra.toByteArray()), row);
    return row.toByteArray();
  }

  @Test
  public void aFilesPointersReachTheNextStepBeforeItsRowKeysEnd() throws Exception {
    String warehouse = tmp.getRoot().getPath();
    String sidecar = RowKeys.sidecarPath("run-1", "part-0.snappy.parquet");
    Path fifo = Path.of(warehouse, WarehouseTables.RAW_EVENTS).resolve(sidecar);
    Files.createDirectories(fifo.getParent());
    pointerSeen = new CountDownLatch(1);
    ByteArrayOutputStream first = new ByteArrayOutputStream();
    for (int i = 0; i < FIRST_ROWS; i++) {
      first.write(rowKeys("first-" + i));
    }
    HeldOpenPipe pipe = HeldOpenPipe.start(fifo, first.toByteArray(), pointerSeen, rowKeys("last"));

    SparkPipelineOptions options =
        PipelineOptionsFactory.fromArgs("--runner=SparkRunner", "--sparkMaster=local[1]")
            .as(SparkPipelineOptions.class);
    new SparkSupport().tune(options);
    Pipeline pipeline = Pipeline.create(options);
    CommittedRows rows =
        new CommittedRows(
            Side.SOURCE,
            0,
            "side=SOURCE/part-0.snappy.parquet",
            new byte[0],
            sidecar,
            new long[0],
            FIRST_ROWS + 1);
    pipeline
        .apply("CommittedFile", Create.of(rows).withCoder(CommittedRowsCoder.of()))
        .apply("ExpandPointers", ParDo.of(new CommitFiles.SplittableExpandPointersFn(warehouse)))
        .setCoder(EventRefCoder.of())
        .apply("SignalPointers", ParDo.of(new SignalFn()));
    pipeline.run().waitUntilFinish();

    assertTrue(
        "the first pointer reached the next step while the row keys were still open",
        pipe.seenWhileOpen());
  }
}
