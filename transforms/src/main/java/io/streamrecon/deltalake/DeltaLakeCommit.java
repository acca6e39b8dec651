package io.streamrecon.deltalake;

import java.util.Objects;

/**
 * One commit made by a {@link DeltaLakeIO} writer: the table, the table version it created (or
 * that had already recorded this batch, when {@code replayed}), the idempotency key ({@code appId}
 * and {@code txnVersion} of its {@code SetTransaction}) and what it added.
 *
 * @param replayed the batch had been committed before (a retried bundle); nothing was added again
 */
public record DeltaLakeCommit(
    String table,
    long tableVersion,
    String appId,
    long txnVersion,
    long files,
    long rows,
    boolean replayed) {
  public DeltaLakeCommit {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(appId, "appId");
  }
}
