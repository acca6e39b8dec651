package io.streamrecon.runners.spark;

import static org.junit.Assert.assertTrue;

import io.streamrecon.model.RawInput;
import io.streamrecon.model.Side;
import io.streamrecon.pipeline.io.ReadJsonLines;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import org.apache.beam.runners.spark.SparkPipelineOptions;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.ParDo;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * On the SparkRunner in batch, the lines of a file reach the next step while the file is still
 * being read. Beam's classic Spark runner keeps all outputs of one input element until the element
 * is done, and reading a file is one element, so it held whole files in memory. The file here is a
 * named pipe: the writer sends one line and holds the pipe open until the next step has seen that
 * line. If the runner held the file's lines, the next step would see nothing before the pipe
 * closed, and the writer's wait would end at its deadline unanswered.
 */
public class SparkBatchFileReadTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  /** Counted down by the step after the read; Spark {@code local} runs tasks in this JVM. */
  static volatile CountDownLatch lineSeen;

  /** Signals each line it receives. */
  static final class SignalFn extends DoFn<RawInput, Integer> {
    @ProcessElement
    public void process(@Element RawInput line, OutputReceiver<Integer> out) {
      lineSeen.countDown();
      out.output(line.bytes().length);
    }
  }

  @Test
  public void aFilesLinesReachTheNextStepBeforeTheFileEnds() throws Exception {
    Path fifo = tmp.getRoot().toPath().resolve("source.jsonl");
    lineSeen = new CountDownLatch(1);
    HeldOpenPipe pipe =
        HeldOpenPipe.start(
            fifo,
            "{\"id\":\"first\"}\n".getBytes(StandardCharsets.UTF_8),
            lineSeen,
            "{\"id\":\"last\"}\n".getBytes(StandardCharsets.UTF_8));

    SparkPipelineOptions options =
        PipelineOptionsFactory.fromArgs("--runner=SparkRunner", "--sparkMaster=local[1]")
            .as(SparkPipelineOptions.class);
    new SparkSupport().tune(options);
    Pipeline pipeline = Pipeline.create(options);
    pipeline
        .apply("ReadSource", ReadJsonLines.of(Side.SOURCE, fifo.toString()))
        .apply("SignalLines", ParDo.of(new SignalFn()));
    pipeline.run().waitUntilFinish();

    assertTrue(
        "the first line reached the next step while the file was still open", pipe.seenWhileOpen());
  }
}
