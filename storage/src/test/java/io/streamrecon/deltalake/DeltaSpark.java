package io.streamrecon.deltalake;

import java.nio.file.Paths;
import org.apache.spark.sql.SparkSession;

/** A local Spark session with delta-spark, as the interop tests read and change our tables. */
public final class DeltaSpark {
  private DeltaSpark() {}

  /** A {@code local[2]} session with Delta's SQL extension and catalog, on loopback, in UTC. */
  public static SparkSession start(String appName) {
    return SparkSession.builder()
        .master("local[2]")
        .appName(appName)
        .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
        .config(
            "spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.databricks.delta.snapshotPartitions", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .getOrCreate();
  }

  /** The SQL name of table {@code name} of {@code warehouse}: {@code delta.`<path>`}. */
  public static String table(String warehouse, String name) {
    return "delta.`" + Paths.get(warehouse, name) + "`";
  }
}
