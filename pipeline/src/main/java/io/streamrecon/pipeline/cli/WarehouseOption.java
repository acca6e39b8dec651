package io.streamrecon.pipeline.cli;

import io.streamrecon.pipeline.ReconcileOptions;
import io.streamrecon.pipeline.run.Warehouse;
import picocli.CommandLine.Option;

/**
 * The {@code --warehouse} option of every command that reads or maintains the tables, declared once
 * and mixed into each ({@code @Mixin}). A run takes the same option as a Beam pipeline option
 * ({@code ReconcileOptions#getWarehouse}) with the same default and description: Beam options are
 * interfaces and picocli options are fields, so one declaration cannot serve both.
 */
public final class WarehouseOption {
  @Option(
      names = "--warehouse",
      defaultValue = ReconcileOptions.DEFAULT_WAREHOUSE,
      description = ReconcileOptions.WAREHOUSE_DESCRIPTION + " (default: ${DEFAULT-VALUE})")
  String location;

  /** The warehouse given. */
  public Warehouse get() {
    return Warehouse.of(location);
  }

  /** The location as given, for readers that take a string. */
  public String location() {
    return get().location();
  }

  /** Fails with a line naming the option when the table does not exist. */
  public void requireTable(String table) {
    get().requireTable(table);
  }
}
