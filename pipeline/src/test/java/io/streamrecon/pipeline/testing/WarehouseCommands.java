package io.streamrecon.pipeline.testing;

import static org.junit.Assert.assertEquals;

import io.streamrecon.pipeline.cli.StreamRecon;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The {@code streamrecon} commands as the remote-warehouse tests run them in this JVM, and the
 * parts of their output that a run on another file system must print alike.
 */
public final class WarehouseCommands {
  private WarehouseCommands() {}

  /** Runs a command line in this JVM, asserts exit code 0 and returns what it printed. */
  public static String cli(String... args) {
    PrintStream old = System.out;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    int code;
    try {
      code = StreamRecon.execute(args);
    } finally {
      System.setOut(old);
    }
    String printed = out.toString(StandardCharsets.UTF_8);
    assertEquals(String.join(" ", args) + "\n" + printed, 0, code);
    return printed;
  }

  /**
   * The summary's lines that do not depend on arrival order: what was read and stored.
   * (Whether a resolved mismatch was reported before it resolved does.)
   */
  public static List<String> storedCounts(String summary) {
    return summary.lines()
        .filter(l -> l.startsWith("input") || l.startsWith("blank") || l.startsWith("dead")
            || l.startsWith("raw events") || l.startsWith("counts add up: input"))
        .map(l -> l.replaceAll(";.*", ""))
        .toList();
  }

  /** A report page without its location and the time it was made. */
  public static String page(Path file, String warehouse) throws IOException {
    return Files.readString(file)
        .replace(warehouse, "WH")
        .replaceAll("[0-9T:.-]+Z · all times UTC", "(made) · all times UTC");
  }
}
