package io.streamrecon.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code bin/bench generate}: writes one data set. */
@Command(
    name = "generate",
    description = "Writes a generated source/target data set as JSON Lines.")
final class GenerateCommand implements Callable<Integer> {
  @Option(names = "--out", required = true, description = "empty directory to write into")
  Path out;

  @Option(
      names = "--records",
      defaultValue = "10000",
      description = "records (about N events per side)")
  int records;

  @Option(names = "--seed", defaultValue = "42")
  long seed;

  @Option(names = "--mismatch", defaultValue = "0.05")
  double mismatch;

  @Option(names = "--missing-in-target", defaultValue = "0.02")
  double missingInTarget;

  @Option(names = "--missing-in-source", defaultValue = "0.02")
  double missingInSource;

  @Option(names = "--late", defaultValue = "0.002")
  double late;

  @Option(names = "--duplicates", defaultValue = "0.02")
  double duplicates;

  @Option(names = "--new-versions", defaultValue = "0.02")
  double newVersions;

  @Option(names = "--payload-min", defaultValue = "300")
  int payloadMin;

  @Option(names = "--payload-max", defaultValue = "10000")
  int payloadMax;

  @Option(names = "--skew", defaultValue = "UNIFORM", description = "UNIFORM or ZIPF")
  GeneratorConfig.Skew skew;

  @Option(names = "--zipf-exponent", defaultValue = "1.1")
  double zipfExponent;

  @Option(names = "--zipf-keys", defaultValue = "0", description = "distinct ids (0 = records / 4)")
  int zipfKeys;

  @Option(
      names = "--records-per-file",
      defaultValue = "0",
      description = "0 = max(1000, records / 50)")
  int recordsPerFile;

  @Option(names = "--disorder", defaultValue = "PT5S")
  Duration disorder;

  @Option(names = "--timeout", defaultValue = "PT60S")
  Duration timeout;

  @Override
  public Integer call() throws Exception {
    Expected e = new Generator(config()).generate(out);
    System.out.printf(
        "%s: %d records, %d + %d events, %d files per side, %.1f MB%n  batch:     %s%n  streaming: %s%n",
        out,
        e.records(),
        e.sourceEvents(),
        e.targetEvents(),
        e.files(),
        e.payloadBytes() / 1e6,
        e.batch().brief(),
        e.streaming().brief());
    return 0;
  }

  GeneratorConfig config() {
    int perFile = recordsPerFile > 0 ? recordsPerFile : Math.max(1000, records / 50);
    GeneratorConfig d = GeneratorConfig.defaults();
    return d.withSeed(seed)
        .withRecords(records)
        .withShares(mismatch, missingInTarget, missingInSource, late, duplicates, newVersions)
        .withPayloadBytes(payloadMin, payloadMax)
        .withSkew(skew, zipfExponent, zipfKeys)
        .withTiming(d.spacing(), disorder, perFile, timeout);
  }
}
