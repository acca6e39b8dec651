package io.streamrecon.pipeline;

import io.streamrecon.model.DeadLetter;
import io.streamrecon.model.MetricNames;
import io.streamrecon.model.Side;
import java.util.EnumMap;
import java.util.Map;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.DoFn;

/** Counts dead letters per side for the summary; passes them through. */
final class CountDeadLettersFn extends DoFn<DeadLetter, DeadLetter> {
  private final Map<Side, Counter> counters = new EnumMap<>(Side.class);

  CountDeadLettersFn() {
    for (Side side : Side.values()) {
      counters.put(side, Metrics.counter(MetricNames.NAMESPACE, MetricNames.deadLetters(side)));
    }
  }

  @ProcessElement
  public void process(@Element DeadLetter d, OutputReceiver<DeadLetter> out) {
    counters.get(d.side()).inc();
    out.output(d);
  }
}
