package io.streamrecon.pipeline;

import io.streamrecon.model.EventRef;
import io.streamrecon.model.MetricNames;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.DoFn;

/** Counts events stored in raw_events for the summary; outputs nothing. */
final class CountRawEventsFn extends DoFn<EventRef, Void> {
  private final Counter raw = Metrics.counter(MetricNames.NAMESPACE, MetricNames.RAW_EVENTS);

  @ProcessElement
  public void process(@Element EventRef e) {
    raw.inc();
  }
}
