package io.streamrecon.pipeline.io;

import io.streamrecon.json.ParseConfig;
import io.streamrecon.model.MetricNames;
import io.streamrecon.model.Origin;
import io.streamrecon.model.RawInput;
import io.streamrecon.model.Side;
import io.streamrecon.transforms.ModelCoders;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.util.Locale;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.io.FileIO;
import org.apache.beam.sdk.io.fs.EmptyMatchTreatment;
import org.apache.beam.sdk.io.range.OffsetRange;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.splittabledofn.RestrictionTracker;
import org.apache.beam.sdk.values.PBegin;
import org.apache.beam.sdk.values.PCollection;
import org.joda.time.Instant;

/**
 * Reads JSON Lines files (a path or glob on any Beam file system, compressed files by extension)
 * into one {@link RawInput} per non-blank line (every line is counted as input; blank lines, only
 * spaces, tabs or a carriage return, are counted as {@link MetricNames#blankLines} and skipped),
 * with the file and 1-based line number as its {@link Origin} and the read time as record time.
 * Lines are streamed, never whole files; a line longer than {@code maxEventBytes} is cut after
 * {@code maxEventBytes + 1} bytes, so parsing rejects it as too large without it ever being held
 * whole (a dead letter, never a blank line, even when what was kept of it is blank).
 */
public final class ReadJsonLines extends PTransform<PBegin, PCollection<RawInput>> {
  private final Side side;
  private final String filePattern;
  private final int maxEventBytes;

  private ReadJsonLines(Side side, String filePattern, int maxEventBytes) {
    this.side = side;
    this.filePattern = filePattern;
    this.maxEventBytes = maxEventBytes;
  }

  /** Reads {@code filePattern} as the given side; an empty match fails the run. */
  public static ReadJsonLines of(Side side, String filePattern) {
    if (side == null) {
      throw new IllegalArgumentException("side must be SOURCE or TARGET");
    }
    if (filePattern == null || filePattern.isBlank()) {
      throw new IllegalArgumentException("filePattern must be a non-empty path or glob");
    }
    return new ReadJsonLines(side, filePattern, 1 << 20);
  }

  /** Longest line kept whole (1 to 64 MiB); default 1 MiB. */
  public ReadJsonLines withMaxEventBytes(int maxEventBytes) {
    if (maxEventBytes < 1 || maxEventBytes > ParseConfig.MAX_EVENT_BYTES_LIMIT) {
      throw new IllegalArgumentException(
          "maxEventBytes must be 1 to "
              + ParseConfig.MAX_EVENT_BYTES_LIMIT
              + ", got "
              + maxEventBytes);
    }
    return new ReadJsonLines(side, filePattern, maxEventBytes);
  }

  @Override
  public PCollection<RawInput> expand(PBegin input) {
    return input
        .apply(
            "MatchFiles",
            FileIO.match()
                .filepattern(filePattern)
                .withEmptyMatchTreatment(EmptyMatchTreatment.DISALLOW))
        .apply("OpenFiles", FileIO.readMatches())
        .apply("ReadLines", ParDo.of(new ReadLinesFn(side, maxEventBytes)))
        .setCoder(ModelCoders.RawInputCoder.of());
  }

  /**
   * Streams each file's lines; keeps only the current line in memory.
   *
   * <p>Splittable only so that Beam's classic Spark runner streams its output: in batch that runner
   * collects every output of one input element in a list before passing any on, so this step held a
   * whole file's lines: heap followed file size. For a splittable DoFn it can instead hand outputs
   * on through a bounded queue (the experiment {@code use_bounded_concurrent_output_for_sdf}, which
   * the SparkRunner's {@code RunnerSupport} sets for a batch run). The restriction is the whole
   * file, one position that is never split: a part that starts inside a file would not know its
   * first line number, which every event's {@link Origin} carries. Runners that checkpoint a
   * splittable DoFn (Direct, Flink streaming) find nothing to split and read the file to its end.
   */
  @DoFn.BoundedPerElement
  static final class ReadLinesFn extends DoFn<FileIO.ReadableFile, RawInput> {
    private final Side side;
    private final int maxLineBytes;
    private final Counter lines;
    private final Counter blankLines;

    ReadLinesFn(Side side, int maxEventBytes) {
      this.side = side;
      this.maxLineBytes = maxEventBytes + 1;
      this.lines = Metrics.counter(MetricNames.NAMESPACE, MetricNames.input(side));
      this.blankLines = Metrics.counter(MetricNames.NAMESPACE, MetricNames.blankLines(side));
    }

    /** The whole file: one position, claimed before the first line is read. */
    @GetInitialRestriction
    public OffsetRange wholeFile(@Element FileIO.ReadableFile file) {
      return new OffsetRange(0, 1);
    }

    @GetRestrictionCoder
    public Coder<OffsetRange> restrictionCoder() {
      return OffsetRange.Coder.of();
    }

    @ProcessElement
    public void process(
        @Element FileIO.ReadableFile file,
        RestrictionTracker<OffsetRange, Long> tracker,
        OutputReceiver<RawInput> out)
        throws IOException {
      if (!tracker.tryClaim(tracker.currentRestriction().getFrom())) {
        return;
      }
      String name = file.getMetadata().resourceId().toString();
      try (InputStream in = Channels.newInputStream(file.open())) {
        LineReader reader = new LineReader(in, maxLineBytes);
        long lineNumber = 0;
        for (byte[] bytes = reader.next(); bytes != null; bytes = reader.next()) {
          lineNumber++;
          lines.inc();
          // A cut line is too large whatever its first bytes: blank it would vanish uncounted.
          if (!reader.lastLineCut() && isBlank(bytes)) {
            // Not an event, but not silently dropped either: the summary accounts for it.
            blankLines.inc();
            continue;
          }
          out.output(new RawInput(side, bytes, Origin.fileLine(name, lineNumber), Instant.now()));
        }
      }
    }

    private static boolean isBlank(byte[] bytes) {
      for (byte b : bytes) {
        if (b != ' ' && b != '\t' && b != '\r') {
          return false;
        }
      }
      return true;
    }
  }

  @Override
  public String toString() {
    return "ReadJsonLines[" + side.name().toLowerCase(Locale.ROOT) + " " + filePattern + "]";
  }
}
