package io.streamrecon.pipeline.io;

import static org.junit.Assert.assertEquals;

import io.streamrecon.model.Side;
import java.util.HashSet;
import java.util.Set;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.io.Read;
import org.apache.beam.sdk.runners.TransformHierarchy;
import org.junit.Test;

/**
 * An unbounded Kafka read splits the topic as it is told ({@code RunnerProfile#kafkaSplits}); a
 * bounded read always reads as KafkaIO does.
 */
public class ReadKafkaSplitsTest {
  private static final InputSpec TOPIC = InputSpec.parse("source", "kafka://127.0.0.1:9/t");

  /** The simple names of the wrapped sources the read applies. */
  private static Set<String> wrappers(ReadKafka read) {
    Pipeline p = Pipeline.create();
    p.apply("Read", read);
    Set<String> found = new HashSet<>();
    p.traverseTopologically(
        new Pipeline.PipelineVisitor.Defaults() {
          @Override
          public CompositeBehavior enterCompositeTransform(TransformHierarchy.Node node) {
            note(node);
            return CompositeBehavior.ENTER_TRANSFORM;
          }

          @Override
          public void visitPrimitiveTransform(TransformHierarchy.Node node) {
            note(node);
          }

          private void note(TransformHierarchy.Node node) {
            if (node.getTransform() instanceof Read.Unbounded<?> r) {
              String name = r.getSource().getClass().getSimpleName();
              if (name.equals("OneSplitSource") || name.equals("SplitPrimingSource")) {
                found.add(name);
              }
            }
          }
        });
    return found;
  }

  @Test
  public void anUnboundedReadSplitsAsTold() {
    ReadKafka read = ReadKafka.of(Side.SOURCE, TOPIC);
    assertEquals(Set.of(), wrappers(read));
    assertEquals(Set.of(), wrappers(read.withSplits(ReadKafka.Splits.KAFKA_IO)));
    assertEquals(Set.of("OneSplitSource"), wrappers(read.withSplits(ReadKafka.Splits.ONE_SPLIT)));
    assertEquals(Set.of("SplitPrimingSource"), wrappers(read.withSplits(ReadKafka.Splits.PRIMED)));
  }

  @Test
  public void aBoundedReadIsKafkaIOsWhateverTheSplits() {
    ReadKafka bounded = ReadKafka.of(Side.SOURCE, TOPIC).withMaxRecords(10);
    assertEquals(Set.of(), wrappers(bounded.withSplits(ReadKafka.Splits.ONE_SPLIT)));
    assertEquals(Set.of(), wrappers(bounded.withSplits(ReadKafka.Splits.PRIMED)));
  }
}
