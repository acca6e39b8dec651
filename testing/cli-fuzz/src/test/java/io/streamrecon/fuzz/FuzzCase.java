package io.streamrecon.fuzz;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One generated case: the input files, an optional rules file, the {@code run} options and the
 * commands that follow it on the same warehouse. Command lines hold {@link #CASE} where the case
 * directory goes, so that a case prints the same whatever directory it ran in.
 */
record FuzzCase(
    byte[] source,
    byte[] target,
    Optional<byte[]> rules,
    List<String> runOptions,
    List<List<String>> followUps) {

  /** Stands for the case directory in command lines. */
  static final String CASE = "{case}";

  /** The warehouse every command of a case names (possibly through another spelling). */
  static final String WAREHOUSE = CASE + "/wh";

  /** The report a {@code report} command writes: the one output a case declares. */
  static final String REPORT = "report.html";

  /** The command lines, in order: {@code run} first. */
  List<List<String>> commands() {
    List<List<String>> all = new ArrayList<>();
    List<String> run = new ArrayList<>();
    run.add("run");
    run.addAll(runOptions);
    all.add(run);
    all.addAll(followUps);
    return all;
  }

  /** A command line with the case directory filled in. */
  static String[] resolve(List<String> command, Path caseDir) {
    return command.stream().map(a -> a.replace(CASE, caseDir.toString())).toArray(String[]::new);
  }

  /** Lines of a file as the reader counts them: split at {@code \n}, none after a final one. */
  static List<byte[]> lines(byte[] file) {
    List<byte[]> lines = new ArrayList<>();
    int start = 0;
    for (int i = 0; i < file.length; i++) {
      if (file[i] == '\n') {
        lines.add(java.util.Arrays.copyOfRange(file, start, i));
        start = i + 1;
      }
    }
    if (start < file.length) {
      lines.add(java.util.Arrays.copyOfRange(file, start, file.length));
    }
    return lines;
  }

  /**
   * Blank as the reader defines it: only spaces, tabs or carriage returns, and not longer than
   * {@code maxEventBytes + 1} bytes before its terminator (a longer line is cut, and too large).
   */
  static boolean isBlank(byte[] line, int maxEventBytes) {
    int content = line.length > 0 && line[line.length - 1] == '\r' ? line.length - 1 : line.length;
    if (content > (long) maxEventBytes + 1) {
      return false;
    }
    for (byte b : line) {
      if (b != ' ' && b != '\t' && b != '\r') {
        return false;
      }
    }
    return true;
  }

  /** The run's {@code --maxEventBytes}, or its default; only asked of runs that exited 0. */
  int maxEventBytes() {
    return runOptions.stream()
        .filter(o -> o.startsWith("--maxEventBytes="))
        .map(o -> Integer.parseInt(o.substring("--maxEventBytes=".length())))
        .findFirst()
        .orElse(io.streamrecon.json.ParseConfig.DEFAULT_MAX_EVENT_BYTES);
  }

  /** Everything needed to replay the case by hand: command lines and the files' bytes. */
  @Override
  public String toString() {
    StringBuilder b = new StringBuilder("case:\n");
    for (List<String> c : commands()) {
      b.append("  $ streamrecon");
      for (String a : c) {
        b.append(' ').append(quote(a));
      }
      b.append('\n');
    }
    file(b, "in/source.jsonl", source);
    file(b, "in/target.jsonl", target);
    rules.ifPresent(r -> file(b, "in/rules.json", r));
    return b.toString();
  }

  private static void file(StringBuilder b, String name, byte[] bytes) {
    b.append("  ")
        .append(CASE)
        .append('/')
        .append(name)
        .append(" (")
        .append(bytes.length)
        .append(" bytes; one line per line, bytes outside printable ASCII as \\xNN):\n");
    for (byte[] line : lines(bytes)) {
      b.append("    |").append(escape(line)).append('\n');
    }
  }

  /** Printable ASCII as is, every other byte as {@code \xNN}: invalid UTF-8 stays visible. */
  static String escape(byte[] bytes) {
    StringBuilder b = new StringBuilder();
    for (byte x : bytes) {
      int v = x & 0xff;
      if (v >= 0x20 && v < 0x7f && v != '\\') {
        b.append((char) v);
      } else {
        b.append(String.format("\\x%02x", v));
      }
    }
    return b.toString();
  }

  /** An argument as a shell would need it, control characters escaped. */
  static String quote(String arg) {
    String escaped = escape(arg.getBytes(StandardCharsets.UTF_8));
    return escaped.matches("[\\w./:=,{}@+-]*") && !escaped.isEmpty()
        ? escaped
        : "'" + escaped.replace("'", "'\\''") + "'";
  }
}
