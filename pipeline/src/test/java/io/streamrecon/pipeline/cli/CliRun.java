package io.streamrecon.pipeline.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** A command line run in this JVM, with what it wrote to stderr. */
record CliRun(int code, String err) {
  static CliRun execute(String... args) {
    PrintStream old = System.err;
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      int code = StreamRecon.execute(args);
      return new CliRun(code, err.toString(StandardCharsets.UTF_8));
    } finally {
      System.setErr(old);
    }
  }
}
