package io.streamrecon.deltalake;

import java.util.Objects;

/**
 * One commit made by a {@code DeltaLakeIO} writer: the table, the table version it created (or that
 * holds the batch's rows, when {@code replayed}), the writer ({@code appId} of its {@code
 * SetTransaction}), the pane index ({@code txnVersion}) and what it added.
 *
 * @param files data files added
 * @param rows rows added
 * @param replayed every row of the batch had been stored before (a replay); nothing was added
 * @param recognised rows of the batch not stored again because this writer had stored them before
 */
public record DeltaLakeCommit(
    String table,
    long tableVersion,
    String appId,
    long txnVersion,
    long files,
    long rows,
    boolean replayed,
    long recognised) {
  public DeltaLakeCommit {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(appId, "appId");
  }
}
