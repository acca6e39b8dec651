package io.streamrecon.pipeline.io;

import static org.junit.Assert.assertEquals;

import io.streamrecon.model.MetricNames;
import io.streamrecon.model.Origin;
import io.streamrecon.model.RawInput;
import io.streamrecon.model.Side;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class ReadJsonLinesTest {
  @Rule public final transient TemporaryFolder tmp = new TemporaryFolder();
  @Rule public final transient TestPipeline p = TestPipeline.create();

  @Test
  public void oneRawInputPerNonBlankLineWithFileAndLineNumber() throws Exception {
    File a = tmp.newFile("a.jsonl");
    Files.writeString(
        a.toPath(), "{\"id\":1}\r\n\n  \n{\"id\":2}\n{\"id\":3}", StandardCharsets.UTF_8);
    File b = tmp.newFile("b.jsonl");
    Files.writeString(b.toPath(), "0123456789abcdef\n{\"id\":4}\n", StandardCharsets.UTF_8);

    PCollection<RawInput> read =
        p.apply(
            "ReadFiles",
            ReadJsonLines.of(Side.TARGET, tmp.getRoot() + "/*.jsonl").withMaxEventBytes(8));
    PCollection<String> described =
        read.apply(
            "Describe",
            MapElements.into(TypeDescriptors.strings())
                .via(
                    (RawInput r) ->
                        r.side()
                            + " "
                            + new File(r.origin().stream()).getName()
                            + ":"
                            + r.origin().offset()
                            + " "
                            + r.origin().isFile()
                            + " "
                            + new String(r.bytes(), StandardCharsets.UTF_8)));
    List<String> expected = new ArrayList<>();
    expected.add("TARGET a.jsonl:1 true {\"id\":1}");
    expected.add("TARGET a.jsonl:4 true {\"id\":2}");
    expected.add("TARGET a.jsonl:5 true {\"id\":3}");
    // Cut after maxEventBytes + 1 bytes, so parsing sees it is too large without holding it all.
    expected.add("TARGET b.jsonl:2 true {\"id\":4}");
    expected.add("TARGET b.jsonl:1 true 012345678");
    PAssert.that(described).containsInAnyOrder(expected);
    org.apache.beam.sdk.PipelineResult result = p.run();
    result.waitUntilFinish();
    // Every line is input; the two blank lines of a.jsonl are counted, not silently dropped.
    assertEquals(7, counter(result, MetricNames.input(Side.TARGET)));
    assertEquals(2, counter(result, MetricNames.blankLines(Side.TARGET)));
  }

  @Test
  public void aLongLineWhoseKeptBytesAreBlankIsInputNotABlankLine() throws Exception {
    File dir = tmp.newFolder("indented");
    Files.writeString(
        dir.toPath().resolve("c.jsonl"), "  \t{\"id\":5}\n   \n", StandardCharsets.UTF_8);
    PCollection<RawInput> read =
        p.apply("ReadFiles", ReadJsonLines.of(Side.SOURCE, dir + "/*.jsonl").withMaxEventBytes(2));
    PCollection<String> kept =
        read.apply(
            "Kept",
            MapElements.into(TypeDescriptors.strings())
                .via((RawInput r) -> new String(r.bytes(), StandardCharsets.UTF_8)));
    // Cut after 3 bytes, all blank: still the event it was, too large, so a dead letter later.
    PAssert.that(kept).containsInAnyOrder("  \t");
    org.apache.beam.sdk.PipelineResult result = p.run();
    result.waitUntilFinish();
    assertEquals(2, counter(result, MetricNames.input(Side.SOURCE)));
    assertEquals(1, counter(result, MetricNames.blankLines(Side.SOURCE)));
  }

  private static long counter(org.apache.beam.sdk.PipelineResult result, String name) {
    long sum = 0;
    for (org.apache.beam.sdk.metrics.MetricResult<Long> c :
        result
            .metrics()
            .queryMetrics(
                org.apache.beam.sdk.metrics.MetricsFilter.builder()
                    .addNameFilter(
                        org.apache.beam.sdk.metrics.MetricNameFilter.named(
                            MetricNames.NAMESPACE, name))
                    .build())
            .getCounters()) {
      sum += c.getCommitted(); // attempted values may lag the end of a DirectRunner run
    }
    return sum;
  }

  @Test
  public void originIsAFileLine() {
    Origin o = Origin.fileLine("/x/a.jsonl", 7);
    assertEquals("/x/a.jsonl:7", o.describe());
  }
}
