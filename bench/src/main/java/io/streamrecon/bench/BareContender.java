package io.streamrecon.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamrecon.json.ComparisonRules;
import io.streamrecon.json.EventParser;
import io.streamrecon.json.InvalidEventException;
import io.streamrecon.json.JsonDiff;
import io.streamrecon.json.JsonSupport;
import io.streamrecon.json.ParseConfig;
import io.streamrecon.model.Difference;
import io.streamrecon.model.Event;
import io.streamrecon.model.Origin;
import io.streamrecon.model.RawInput;
import io.streamrecon.model.Side;
import io.streamrecon.model.Status;
import io.streamrecon.model.Verdict;
import io.streamrecon.pipeline.io.LineReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import org.joda.time.Instant;

/**
 * Contender 1, the machine's limit for the logic: one thread, everything in memory, no Beam, no
 * Delta Lake. Parses with streamrecon's {@link EventParser} (canonical SHA-256 included), pairs
 * with {@link Pairing} keeping each payload inline, diffs every emitted MISMATCH with {@link
 * JsonDiff}. It reads file i of both sides as micro-batch i, handles a micro-batch's events in
 * event-time order and moves its watermark between micro-batches as the Spark peer does, so it
 * reports the streaming counts. With {@code --rules} it measures the cost of comparison rules.
 */
final class BareContender {
  private final Expected expected;
  private final Path dataDir;
  private final ComparisonRules rules;
  private final EventParser parser;

  long duplicates;
  long superseded;
  long late;
  long matchesEmitted;
  long mismatchesEmitted;
  long differences;
  long parseErrors;
  long matchesWithinTolerance;
  long maxOpenEntries;
  final Map<Status, Long> finals = new HashMap<>();

  BareContender(Path dataDir, Expected expected) {
    this(dataDir, expected, ComparisonRules.none());
  }

  /**
   * With comparison rules (docs/design.md#comparison-rules): parsing normalises before hashing,
   * every MISMATCH is diffed under the rules, and one whose diff is empty (within tolerance) counts
   * as a MATCH.
   */
  BareContender(Path dataDir, Expected expected, ComparisonRules rules) {
    this.dataDir = dataDir;
    this.expected = expected;
    this.rules = rules;
    this.parser = new EventParser(ParseConfig.defaults(), rules);
  }

  /** Runs the whole data set; returns final verdict counts. */
  VerdictCounts run() throws IOException {
    long timeout = expected.config().timeout().toMillis();
    long delay = expected.config().watermarkDelay().toMillis();
    Pairing<byte[]> pairing = new Pairing<>(timeout);
    Map<String, Pairing.Entry<byte[]>> open = new HashMap<>();
    // (expiry, id) of entries; stale when the id's entry changed since
    PriorityQueue<Object[]> timers =
        new PriorityQueue<>((a, b) -> Long.compare((long) a[0], (long) b[0]));
    Pairing.Sink<byte[]> sink = new Sink();
    List<Path> sources = Generator.files(dataDir.resolve(Generator.SOURCE_DIR));
    List<Path> targets = Generator.files(dataDir.resolve(Generator.TARGET_DIR));
    long watermark = Long.MIN_VALUE;
    long maxEventTime = Long.MIN_VALUE;
    EventParser.Scratch scratch = new EventParser.Scratch();
    for (int i = 0; i < sources.size(); i++) {
      List<Event> batch = new ArrayList<>();
      for (Path file : List.of(sources.get(i), targets.get(i))) {
        Side side =
            file.startsWith(dataDir.resolve(Generator.SOURCE_DIR)) ? Side.SOURCE : Side.TARGET;
        long line = 0;
        try (LineReader in =
            new LineReader(Files.newInputStream(file), ParseConfig.MAX_EVENT_BYTES_LIMIT)) {
          for (byte[] bytes = in.next(); bytes != null; bytes = in.next()) {
            if (bytes.length == 0) {
              continue;
            }
            line++;
            try {
              batch.add(
                  parser.parse(
                      new RawInput(
                          side, bytes, Origin.fileLine(file.toString(), line), Instant.EPOCH),
                      scratch));
            } catch (InvalidEventException ex) {
              parseErrors++;
            }
          }
        }
      }
      // A micro-batch holds a span of both streams; in event-time order, as the two would have
      // interleaved (and as the peer orders each key's events within a micro-batch).
      batch.sort(Comparator.comparingLong((Event e) -> e.eventTime().getMillis()));
      for (Event e : batch) {
        long t = e.eventTime().getMillis();
        if (t < watermark) {
          late++;
          continue;
        }
        maxEventTime = Math.max(maxEventTime, t);
        Pairing.Entry<byte[]> before = open.get(e.naturalId());
        Pairing.Entry<byte[]> after =
            pairing.onEvent(e.naturalId(), before, e.side(), t, e.sha256(), e.payload(), sink);
        if (after != before) {
          open.put(e.naturalId(), after);
          timers.add(new Object[] {after.expiresAt(timeout), e.naturalId(), after});
        }
      }
      maxOpenEntries = Math.max(maxOpenEntries, open.size());
      // End of micro-batch: the watermark moves, entries behind it expire.
      watermark = Math.max(watermark, maxEventTime - delay);
      expire(timers, open, pairing, sink, watermark);
    }
    expire(timers, open, pairing, sink, Long.MAX_VALUE);
    return new VerdictCounts(
        finals.getOrDefault(Status.MATCH, 0L),
        finals.getOrDefault(Status.MISMATCH, 0L),
        finals.getOrDefault(Status.MISSING_IN_TARGET, 0L),
        finals.getOrDefault(Status.MISSING_IN_SOURCE, 0L),
        duplicates,
        late);
  }

  private static void expire(
      PriorityQueue<Object[]> timers,
      Map<String, Pairing.Entry<byte[]>> open,
      Pairing<byte[]> pairing,
      Pairing.Sink<byte[]> sink,
      long watermark) {
    while (!timers.isEmpty() && (long) timers.peek()[0] < watermark) {
      Object[] timer = timers.poll();
      String id = (String) timer[1];
      if (open.get(id) == timer[2]) {
        @SuppressWarnings("unchecked")
        Pairing.Entry<byte[]> entry = (Pairing.Entry<byte[]>) timer[2];
        open.remove(id);
        pairing.finish(id, entry, sink);
      }
    }
  }

  private final class Sink implements Pairing.Sink<byte[]> {
    @Override
    public void verdict(
        String naturalId,
        Verdict verdict,
        Pairing.Kept<byte[]> source,
        Pairing.Kept<byte[]> target) {
      if (verdict.status() == Status.MATCH) {
        matchesEmitted++;
        return;
      }
      mismatchesEmitted++;
      try {
        JsonNode s = JsonSupport.parse(source.ref());
        JsonNode t = JsonSupport.parse(target.ref());
        JsonDiff.Result result = JsonDiff.diff(s, t, rules);
        List<Difference> diff = result.differences();
        if (diff.isEmpty() && result.withinTolerance() > 0) {
          matchesWithinTolerance++;
          return;
        }
        if (diff.isEmpty()) {
          throw new IllegalStateException("hashes differ but no difference for " + naturalId);
        }
        differences += diff.size();
      } catch (InvalidEventException e) {
        throw new IllegalStateException("a stored payload no longer parses", e);
      }
    }

    @Override
    public void finished(
        String naturalId, Status status, Pairing.Kept<byte[]> source, Pairing.Kept<byte[]> target) {
      finals.merge(status, 1L, Long::sum);
    }

    @Override
    public void duplicate() {
      duplicates++;
    }

    @Override
    public void superseded() {
      superseded++;
    }
  }
}
