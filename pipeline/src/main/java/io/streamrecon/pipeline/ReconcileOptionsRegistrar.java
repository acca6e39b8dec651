package io.streamrecon.pipeline;

import java.util.List;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsRegistrar;

/** Registers {@link ReconcileOptions} so that {@code --help=ReconcileOptions} lists them. */
public final class ReconcileOptionsRegistrar implements PipelineOptionsRegistrar {
  @Override
  public Iterable<Class<? extends PipelineOptions>> getPipelineOptions() {
    return List.of(ReconcileOptions.class);
  }
}
