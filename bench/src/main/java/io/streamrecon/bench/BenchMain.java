package io.streamrecon.bench;

import io.streamrecon.bench.deltalake.AutoCompactBench;
import io.streamrecon.bench.deltalake.DeltaLakeLogBench;
import io.streamrecon.bench.deltalake.ExplainLookupBench;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of {@code bin/bench}. */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description = "streamrecon benchmark: generator, contenders, report.",
    subcommands = {
      GenerateCommand.class,
      RunCommand.class,
      SoakCommand.class,
      SustainCommand.class,
      StreamingChart.class,
      ContenderMain.class,
      ReportScaleCommand.class,
      DeltaLakeLogBench.class,
      ExplainLookupBench.class,
      AutoCompactBench.class
    })
public final class BenchMain {
  public static void main(String[] args) {
    // A bench stopped from outside (Ctrl-C, kill) takes its broker and pipeline JVMs with it:
    // they would otherwise go on using the cores and the disk of the next trial.
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> ProcessHandle.current().descendants().forEach(ProcessHandle::destroyForcibly),
                "kill-bench-children"));
    System.exit(new CommandLine(new BenchMain()).execute(args));
  }
}
