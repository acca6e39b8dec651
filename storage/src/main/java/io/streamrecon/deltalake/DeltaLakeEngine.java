package io.streamrecon.deltalake;

import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.engine.ExpressionHandler;
import io.delta.kernel.engine.FileSystemClient;
import io.delta.kernel.engine.JsonHandler;
import io.delta.kernel.engine.MetricsReporter;
import io.delta.kernel.engine.ParquetHandler;
import java.util.List;
import org.apache.hadoop.conf.Configuration;

/**
 * The Delta Kernel {@link Engine} of streamrecon: Kernel's default JSON, file system and expression
 * handlers and log stores, and our own Parquet handler ({@link HadoopParquetHandler}) on the
 * Parquet release that the Spark 3.5 distribution ships and our data files are written with.
 * Kernel's default Parquet handler needs a newer Parquet (it links geospatial types that Parquet
 * 1.13 lacks) and fails on the first checkpoint; docs/delta-kernel.md says why we keep Parquet
 * 1.13. No metrics reporters: Kernel's logging reporter logs at INFO per snapshot and transaction.
 *
 * <p>{@code file:} tables get {@link AtomicLocalLogStore} unless the configuration names a log
 * store for that scheme already.
 */
public final class DeltaLakeEngine implements Engine {
  private final Engine defaults;
  private final ParquetHandler parquet;

  private DeltaLakeEngine(Configuration conf) {
    this.defaults = DefaultEngine.create(conf);
    this.parquet = new HadoopParquetHandler(conf);
  }

  /** An engine on a copy of {@code conf} that uses {@link AtomicLocalLogStore} for local tables. */
  public static Engine create(Configuration conf) {
    return new DeltaLakeEngine(withAtomicLocalLogStore(conf));
  }

  /**
   * A copy of {@code conf} whose {@code file:} tables use {@link AtomicLocalLogStore} unless the
   * user chose a log store for {@code file:} already.
   */
  static Configuration withAtomicLocalLogStore(Configuration conf) {
    Configuration copy = new Configuration(conf);
    copy.setIfUnset(AtomicLocalLogStore.CONF_KEY, AtomicLocalLogStore.class.getName());
    return copy;
  }

  @Override
  public ExpressionHandler getExpressionHandler() {
    return defaults.getExpressionHandler();
  }

  @Override
  public JsonHandler getJsonHandler() {
    return defaults.getJsonHandler();
  }

  @Override
  public FileSystemClient getFileSystemClient() {
    return defaults.getFileSystemClient();
  }

  @Override
  public ParquetHandler getParquetHandler() {
    return parquet;
  }

  @Override
  public List<MetricsReporter> getMetricsReporters() {
    return List.of();
  }
}
