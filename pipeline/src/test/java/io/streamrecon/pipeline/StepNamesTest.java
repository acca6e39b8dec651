package io.streamrecon.pipeline;

import static org.junit.Assert.assertEquals;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.runners.TransformHierarchy;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * Pins the full name of every transform of the graph, composite or not, for a run on files and a
 * run on Kafka. A restored streaming job finds its state by these names, so a rename must be a
 * decision: it fails here, and the checked-in lists ({@code step-names-*.txt} next to this test's
 * package in the test resources) change with it.
 */
public class StepNamesTest {
  @Rule public final TemporaryFolder tmp = new TemporaryFolder();

  private static List<String> stepNames(Pipeline pipeline) {
    List<String> names = new ArrayList<>();
    pipeline.traverseTopologically(
        new Pipeline.PipelineVisitor.Defaults() {
          @Override
          public CompositeBehavior enterCompositeTransform(TransformHierarchy.Node node) {
            if (!node.isRootNode()) {
              names.add(node.getFullName());
            }
            return CompositeBehavior.ENTER_TRANSFORM;
          }

          @Override
          public void visitPrimitiveTransform(TransformHierarchy.Node node) {
            names.add(node.getFullName());
          }
        });
    return names;
  }

  private static List<String> expected(String resource) throws IOException {
    try (InputStream in = StepNamesTest.class.getResourceAsStream(resource)) {
      if (in == null) {
        return List.of();
      }
      String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      return Arrays.stream(text.split("\n")).filter(l -> !l.isBlank()).toList();
    }
  }

  private static void assertNames(String resource, Pipeline pipeline) throws IOException {
    List<String> actual = stepNames(pipeline);
    assertEquals(
        "the graph's step names changed; a restored streaming job would lose its state. If the"
            + " change is intended, replace pipeline/src/test/resources/io/streamrecon/pipeline/"
            + resource
            + " with:\n"
            + String.join("\n", actual)
            + "\n",
        expected(resource),
        actual);
  }

  private Pipeline graph(String... args) {
    ReconcileOptions options = PipelineOptionsFactory.fromArgs(args).as(ReconcileOptions.class);
    return ReconcilePipeline.build(Pipeline.create(options), options);
  }

  @Test
  public void aRunOnFilesKeepsItsStepNames() throws IOException {
    File f = tmp.newFile("x.jsonl");
    assertNames(
        "step-names-files.txt",
        graph("--source=" + f, "--target=" + f, "--warehouse=" + tmp.newFolder("wh")));
  }

  @Test
  public void aRunOnKafkaKeepsItsStepNames() throws IOException {
    assertNames(
        "step-names-kafka.txt",
        graph(
            "--source=kafka://127.0.0.1:9/source-topic",
            "--target=kafka://127.0.0.1:9/target-topic",
            "--warehouse=" + tmp.newFolder("wh")));
  }
}
