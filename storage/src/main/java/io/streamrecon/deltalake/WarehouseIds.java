package io.streamrecon.deltalake;

import java.util.regex.Pattern;

/**
 * The one form of an id that names a file or folder in a warehouse: a run id (its row key sidecars,
 * {@code <table>/_streamrecon_row_keys/<runId>}), a replay id ({@code _replays/<replayId>.json}), a
 * job name ({@code _checkpoints/<jobName>}), a rules id ({@code _rules/<rulesId>.json}), an erasure
 * id ({@code _erasures/<erasureId>.json}). Such an id must stay one path segment below its folder
 * whatever the file system does with it: {@code .} and {@code ..} resolve to the folder and its
 * parent, {@code /} makes a deeper path, and {@code :} makes Hadoop read a URI scheme. The ids the
 * commands generate ({@code run-20261204T210000Z-1a2b3c}, {@code replay-...}, {@code erasure-...},
 * {@code streamrecon-<hex>}, a SHA-256) all have this form.
 */
public final class WarehouseIds {
  private WarehouseIds() {}

  /** Longest id. */
  public static final int MAX_LENGTH = 128;

  /** The allowed form, as error messages state it. */
  public static final String FORM =
      "1 to "
          + MAX_LENGTH
          + " letters, digits, '_', '-' or '.', starting with a letter or digit, without '..'";

  private static final Pattern ID =
      Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0," + (MAX_LENGTH - 1) + "}");

  /** Whether {@code id} has the form of {@link #FORM}. */
  public static boolean isValid(String id) {
    return id != null && ID.matcher(id).matches() && !id.contains("..");
  }

  /**
   * Returns {@code id} when valid.
   *
   * @param option the command-line option that gave the id, without {@code --}
   * @throws IllegalArgumentException naming the option and the allowed form
   */
  public static String check(String option, String id) {
    return require("--" + option + "=" + id, id);
  }

  /**
   * Returns an id that did not come from the command line (a stored or generated one) when valid.
   *
   * @param what what the id is, e.g. {@code rules id}
   * @throws IllegalArgumentException naming it and the allowed form
   */
  public static String checkStored(String what, String id) {
    return require(what + " " + id, id);
  }

  private static String require(String named, String id) {
    if (!isValid(id)) {
      throw new IllegalArgumentException(named + " is not valid: " + FORM);
    }
    return id;
  }
}
