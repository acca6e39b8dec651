package io.streamrecon.fuzz;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/**
 * The generators of {@link CliFuzzTest}: JSON Lines inputs (valid events and mutations of them),
 * rules files (valid, per docs/comparison-rules.md, and mutated), {@code run} options (valid and
 * invalid values, repeated options, ids that try to leave the warehouse) and the commands that
 * follow a run. Inputs stay tiny: every case runs a DirectRunner pipeline.
 */
final class FuzzCases {
  private FuzzCases() {}

  /** Natural ids the events use: few, so that both sides pair and versions supersede. */
  private static final List<String> IDS = List.of("o-1", "o-2", "o-3", "o-4");

  /** Ids that are not one path segment, too long, empty, or carry control characters. */
  private static final List<String> HOSTILE_IDS =
      List.of(
          "..",
          ".",
          "../outside",
          "../../outside/x",
          "a/b",
          "a:b",
          "",
          " ",
          "-x",
          "x".repeat(129),
          "\u00e9t\u00e9",
          "a*b",
          "%2e%2e",
          "a\tb");

  static Arbitrary<FuzzCase> cases() {
    Arbitrary<Optional<byte[]>> rules =
        Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(3, Arbitraries.just(Optional.<byte[]>empty())),
            net.jqwik.api.Tuple.of(2, rulesFile().map(Optional::of)));
    return Combinators.combine(jsonLines(), jsonLines(), rules, runOptions(), followUps())
        .as(
            (source, target, r, options, followUps) ->
                new FuzzCase(source, target, r, withRules(options, r.isPresent()), followUps));
  }

  /**
   * A rules file given, it is named by the run, sometimes through a path with {@code ..} (through a
   * folder that exists before the run: the system resolves {@code ..} after its folder).
   */
  private static List<String> withRules(List<String> options, boolean rules) {
    if (!rules) {
      return options;
    }
    List<String> all = new ArrayList<>(options);
    all.add(
        "--rules="
            + FuzzCase.CASE
            + (options.size() % 2 == 0 ? "" : "/outside/..")
            + "/in/rules.json");
    return all;
  }

  // ---------------------------------------------------------------- JSON Lines

  /** A file of 0 to 24 lines, each newline-terminated except, sometimes, the last. */
  static Arbitrary<byte[]> jsonLines() {
    return Combinators.combine(
            line().list().ofMinSize(0).ofMaxSize(24), Arbitraries.of(true, true, false))
        .as(
            (lines, finalNewline) -> {
              ByteArrayOutputStream out = new ByteArrayOutputStream();
              for (int i = 0; i < lines.size(); i++) {
                out.writeBytes(lines.get(i));
                if (i < lines.size() - 1 || finalNewline) {
                  out.write('\n');
                }
              }
              return out.toByteArray();
            });
  }

  static Arbitrary<byte[]> line() {
    return Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(10, validEvent().map(FuzzCases::utf8)),
        net.jqwik.api.Tuple.of(
            2,
            Combinators.combine(
                    Arbitraries.of(" ", "\t", "  \t", "\r"),
                    validEvent(),
                    Arbitraries.of("", " ", "\r"))
                .as((before, e, after) -> utf8(before + e + after))),
        net.jqwik.api.Tuple.of(6, mutatedEvent()),
        net.jqwik.api.Tuple.of(
            2,
            Arbitraries.of("", " ", "\t", "\r", " \t\r", " ".repeat(20) + "\r")
                .map(FuzzCases::utf8)));
  }

  static Arbitrary<String> validEvent() {
    Arbitrary<String> id =
        Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(8, Arbitraries.of(IDS).map(FuzzCases::jsonString)),
            net.jqwik.api.Tuple.of(1, Arbitraries.integers().between(1, 4).map(String::valueOf)));
    return Combinators.combine(
            id, eventTime(), amount(), note(), Arbitraries.integers().between(0, 3))
        .as(
            (i, t, a, n, items) -> {
              StringBuilder b = new StringBuilder("{\"id\":").append(i);
              b.append(",\"eventTime\":").append(t);
              b.append(",\"amount\":").append(a);
              b.append(",\"note\":").append(n);
              b.append(",\"items\":[");
              for (int k = 0; k < items; k++) {
                b.append(k == 0 ? "" : ",")
                    .append("{\"sku\":\"S")
                    .append(k)
                    .append("\",\"qty\":")
                    .append(k + 1)
                    .append('}');
              }
              return b.append("]}").toString();
            });
  }

  /**
   * Event times within one hour. Not generated, because of a known problem: versions of one natural
   * id far apart in event time against the timeout (1970 and 2024 with {@code --timeout=1s}) make
   * the pairing's expiry walk every index slot between them (PairEventsFn sweep, a slot per
   * timeout/16), a run that does not end in any useful time; with {@code 10s} it takes about 20 s.
   * docs/known-problems.md has it.
   */
  private static Arbitrary<String> eventTime() {
    return Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(
            6,
            Arbitraries.integers()
                .between(0, 59)
                .map(m -> "\"2024-03-01T08:" + String.format("%02d", m) + ":00Z\"")),
        net.jqwik.api.Tuple.of(
            2, Arbitraries.longs().between(1709280000000L, 1709283600000L).map(String::valueOf)),
        net.jqwik.api.Tuple.of(
            1, Arbitraries.of("\"2024-03-01T09:00:00+01:00\"", "\"2024-03-01T08:30:00.123Z\"")));
  }

  private static Arbitrary<String> amount() {
    return Arbitraries.oneOf(
        Arbitraries.integers().between(-5, 100).map(String::valueOf),
        Arbitraries.of("1.5", "0.01", "-0.0", "1e3", "10.00"));
  }

  private static Arbitrary<String> note() {
    return Arbitraries.oneOf(
        Arbitraries.of(
            "\"a\"", "\"\"", "null", "\"caf\u00e9\"", "\"\\u0000\\n\"", "\"\ud83d\ude00\""),
        Arbitraries.strings().alpha().ofMaxLength(8).map(FuzzCases::jsonString));
  }

  /** An event broken or stretched in one of the ways a producer gets wrong. */
  static Arbitrary<byte[]> mutatedEvent() {
    Arbitrary<String> valid = validEvent();
    return Arbitraries.oneOf(
        // Truncated anywhere.
        Combinators.combine(valid, Arbitraries.doubles().between(0, 1))
            .as((e, f) -> utf8(e.substring(0, (int) (e.length() * f)))),
        // Wrong types for the key and time fields.
        Combinators.combine(
                Arbitraries.of("{}", "[]", "null", "true", "1.5", "\"\"", "{\"x\":1}"),
                Arbitraries.of("id", "eventTime"))
            .as(
                (v, field) ->
                    utf8(
                        field.equals("id")
                            ? "{\"id\":" + v + ",\"eventTime\":\"2024-03-01T08:00:00Z\"}"
                            : "{\"id\":\"o-1\",\"eventTime\":" + v + "}")),
        // Missing fields, other JSON values than an object, duplicate members.
        Arbitraries.of(
                "{\"eventTime\":\"2024-03-01T08:00:00Z\"}",
                "{\"id\":\"o-1\"}",
                "{}",
                "[]",
                "42",
                "\"o-1\"",
                "null",
                "{\"id\":\"o-1\",\"id\":\"o-2\",\"eventTime\":\"2024-03-01T08:00:00Z\"}",
                "{\"id\":\"o-1\",\"eventTime\":\"2024-03-01T08:00:00Z\"}{\"id\":\"o-2\"}",
                "{\"id\":\"o-1\",\"eventTime\":\"2024-03-01T08:00:00Z\"} trailing",
                "{\"id\":\"o-1\",\"eventTime\":\"2024-13-45T99:00:00Z\"}",
                "{\"id\":\"o-1\",\"eventTime\":-99999999999999999}",
                "{\"id\":\"o-1\",\"eventTime\":1e300}",
                "\ufeff{\"id\":\"o-1\",\"eventTime\":\"2024-03-01T08:00:00Z\"}")
            .map(FuzzCases::utf8),
        // Huge and odd numbers.
        Combinators.combine(
                Arbitraries.of(IDS),
                Arbitraries.of(
                    "1e400",
                    "-1e400",
                    "123456789012345678901234567890123456789",
                    "NaN",
                    "Infinity",
                    "0x10",
                    "01",
                    "1.",
                    "-",
                    "4.9e-325"))
            .as(
                (i, n) ->
                    utf8(
                        "{\"id\":\""
                            + i
                            + "\",\"eventTime\":\"2024-03-01T08:00:00Z\",\"amount\":"
                            + n
                            + "}")),
        // Deep nesting: up to a little past the JSON parser's limit of 1000 levels.
        Combinators.combine(
                Arbitraries.of(IDS),
                Arbitraries.integers().between(1, 1100),
                Arbitraries.of("[", "{\"a\":"))
            .as(
                (i, depth, open) -> {
                  String close = open.equals("[") ? "]" : "}";
                  return utf8(
                      "{\"id\":\""
                          + i
                          + "\",\"eventTime\":\"2024-03-01T08:00:00Z\",\"deep\":"
                          + open.repeat(depth)
                          + "1"
                          + close.repeat(depth)
                          + "}");
                }),
        // Raw control characters inside a string (invalid JSON) and outside one.
        Combinators.combine(
                Arbitraries.of(IDS),
                Arbitraries.chars().range('\u0000', '\u001f').filter(c -> c != '\n'))
            .as(
                (i, c) ->
                    utf8("{\"id\":\"" + i + c + "\",\"eventTime\":\"2024-03-01T08:00:00Z\"}" + c)),
        // Invalid UTF-8: a lone continuation byte, a truncated sequence, an overlong form, 0xFF.
        Combinators.combine(
                Arbitraries.of(IDS),
                Arbitraries.of(
                    new byte[] {(byte) 0x80},
                    new byte[] {(byte) 0xc3},
                    new byte[] {(byte) 0xc0, (byte) 0xaf},
                    new byte[] {(byte) 0xff},
                    new byte[] {(byte) 0xed, (byte) 0xa0, (byte) 0x80}),
                Arbitraries.of("id", "note"))
            .as(
                (i, bad, where) -> {
                  ByteArrayOutputStream out = new ByteArrayOutputStream();
                  out.writeBytes(
                      utf8(
                          where.equals("id")
                              ? "{\"id\":\"" + i
                              : "{\"id\":\"" + i + "\",\"note\":\"x"));
                  out.writeBytes(bad);
                  out.writeBytes(
                      utf8(
                          where.equals("id")
                              ? "\",\"eventTime\":\"2024-03-01T08:00:00Z\"}"
                              : "\",\"eventTime\":\"2024-03-01T08:00:00Z\"}"));
                  return out.toByteArray();
                }));
  }

  // ---------------------------------------------------------------- rules files

  /** A rules file: valid members of docs/comparison-rules.md, or a broken one. */
  static Arbitrary<byte[]> rulesFile() {
    Arbitrary<String> member =
        Arbitraries.of(
            "\"rename\":{\"/note\":\"/remark\"}",
            "\"rename\":{\"/items/*/qty\":\"/items/*/quantity\"}",
            "\"ignore\":[\"/note\"]",
            "\"ignore\":[\"/items/*/sku\"]",
            "\"lenientTypes\":[\"/id\",\"/amount\"]",
            "\"normalize\":{\"/note\":[\"trim\",\"lowercase\",\"collapseSpaces\"]}",
            "\"unordered\":{\"/items\":\"/sku\"}",
            "\"unordered\":{\"/items\":null}",
            "\"tolerance\":{\"/amount\":{\"abs\":0.5}}",
            "\"tolerance\":{\"/amount\":{\"rel\":0.1}}",
            "\"instants\":[\"/eventTime\"]");
    Arbitrary<String> valid =
        member
            .list()
            .uniqueElements(m -> m.substring(0, m.indexOf(':')))
            .ofMaxSize(4)
            .map(ms -> "{" + String.join(",", ms) + "}");
    Arbitrary<String> broken =
        Arbitraries.of(
            "",
            " ",
            "{",
            "[]",
            "42",
            "null",
            "\"rules\"",
            "{\"sort\":[\"/items\"]}",
            "{\"tolerance\":{\"/amount\":{\"abs\":-0.01}}}",
            "{\"tolerance\":{\"/amount\":{\"abs\":\"x\"}}}",
            "{\"tolerance\":{\"/amount\":{}}}",
            "{\"ignore\":\"/note\"}",
            "{\"ignore\":[\"note\"]}",
            "{\"ignore\":[\"/~2\"]}",
            "{\"ignore\":[null]}",
            "{\"normalize\":{\"/note\":[\"upcase\"]}}",
            "{\"normalize\":{\"/note\":\"trim\"}}",
            "{\"rename\":{\"/items/*/qty\":\"/qty\"}}",
            "{\"rename\":{\"/a\":1}}",
            "{\"unordered\":{\"/items\":5}}",
            "{\"instants\":[\"/eventTime\"],\"instants\":[]}",
            "{\"ignore\":[\"/note\"]} trailing");
    Arbitrary<String> deep =
        Arbitraries.integers()
            .between(1, 1100)
            .map(d -> "{\"ignore\":" + "[".repeat(d) + "]".repeat(d) + "}");
    return Arbitraries.oneOf(
        valid.map(FuzzCases::utf8),
        valid.map(FuzzCases::utf8).map(FuzzCases::truncateHalf),
        broken.map(FuzzCases::utf8),
        deep.map(FuzzCases::utf8),
        Arbitraries.just(new byte[] {'{', '"', (byte) 0xff, '"', ':', '1', '}'}));
  }

  private static byte[] truncateHalf(byte[] b) {
    return java.util.Arrays.copyOf(b, b.length / 2);
  }

  // ---------------------------------------------------------------- options

  /**
   * The run's options: the inputs and warehouse (mostly plain, sometimes spelled through {@code ..}
   * or missing), then 0 to 4 fuzzed options, sometimes one of them twice.
   */
  static Arbitrary<List<String>> runOptions() {
    Arbitrary<String> source =
        Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(
                8, Arbitraries.just("--source=" + FuzzCase.CASE + "/in/source.jsonl")),
            net.jqwik.api.Tuple.of(
                1, Arbitraries.just("--source=" + FuzzCase.CASE + "/outside/../in/source.jsonl")),
            net.jqwik.api.Tuple.of(
                1,
                Arbitraries.of(
                    "--source=" + FuzzCase.CASE + "/in/missing.jsonl", "--source=", "--source")));
    Arbitrary<String> warehouse =
        Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(8, Arbitraries.just("--warehouse=" + FuzzCase.WAREHOUSE)),
            net.jqwik.api.Tuple.of(
                1,
                Arbitraries.of(
                    "--warehouse=" + FuzzCase.CASE + "/in/../wh",
                    "--warehouse=" + FuzzCase.WAREHOUSE + "/")),
            // The input files are no warehouse: refused, nothing written there.
            net.jqwik.api.Tuple.of(1, Arbitraries.just("--warehouse=" + FuzzCase.CASE + "/in")));
    Arbitrary<List<String>> fuzzed =
        option().list().ofMaxSize(4).uniqueElements(o -> o.split("=", 2)[0]);
    return Combinators.combine(source, warehouse, fuzzed, Arbitraries.integers().between(0, 9))
        .as(
            (s, w, f, repeat) -> {
              List<String> all = new ArrayList<>();
              all.add("--runner=DirectRunner");
              all.add(s);
              all.add("--target=" + FuzzCase.CASE + "/in/target.jsonl");
              all.add(w);
              all.addAll(f);
              if (repeat == 0 && !f.isEmpty()) {
                all.add(f.get(0));
              }
              return all;
            });
  }

  /** One option, its value valid three times in four. */
  static Arbitrary<String> option() {
    return Arbitraries.oneOf(
        option("--runId", Arbitraries.of("r-1", "Run_2.b", "9"), Arbitraries.of(HOSTILE_IDS)),
        option(
            "--keyField",
            Arbitraries.of("/id", "/items/0/sku", "/note"),
            Arbitraries.of("id", "", "/", "/~2")),
        option(
            "--timeField",
            Arbitraries.of("/eventTime", "/amount", "/note"),
            Arbitraries.of("eventTime", "")),
        // No timeout under 1s: with event times an hour apart, the expiry walk of the problem
        // named at eventTime() costs 3.6 million slot reads at 1ms.
        option("--timeout", validDurations(), invalidDurations()),
        option(
            "--allowedLateness",
            Arbitraries.oneOf(validDurations(), Arbitraries.just("1ms")),
            invalidDurations()),
        option(
            "--ignoreFields",
            Arbitraries.of("/note", "/note,/items", "/items/*/qty", "/eventTime"),
            Arbitraries.of("", "note", "/~9", ",")),
        option("--emitMatches", Arbitraries.of("true", "false"), Arbitraries.of("maybe", "")),
        // Lines longer than the limit are cut after limit + 1 bytes and become dead letters.
        option(
            "--maxEventBytes",
            Arbitraries.of("1", "2", "16", "64", "100000"),
            Arbitraries.of("0", "-1", "abc", "2147483648", "")),
        Arbitraries.of("--emitMatches", "--timeout", "--bogus=1", "--", "-x", "positional"));
  }

  private static Arbitrary<String> option(
      String name, Arbitrary<String> valid, Arbitrary<String> invalid) {
    return Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(3, valid), net.jqwik.api.Tuple.of(1, invalid))
        .map(v -> name + "=" + v);
  }

  private static Arbitrary<String> validDurations() {
    return Arbitraries.of("10m", "1s", "1h", "30d", "PT1M");
  }

  private static Arbitrary<String> invalidDurations() {
    return Arbitraries.of("0s", "-1m", "forever", "", "1", "m", "99999999999d", "1.5m");
  }

  /** Valid run or replay ids, and ids that try to name a path. */
  static Arbitrary<String> ids() {
    return Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(1, Arbitraries.of("r-1", "Run_2.b", "9")),
        net.jqwik.api.Tuple.of(1, Arbitraries.of(HOSTILE_IDS)));
  }

  /** Natural ids for explain and forget: stored ones, unknown ones, hostile ones. */
  static Arbitrary<String> naturalIds() {
    return Arbitraries.oneOf(
        Arbitraries.of(IDS),
        Arbitraries.of("1", "o-9", "*", "%", "'", "\"o-1\"", "o-1,o-2", "o-1\n"),
        Arbitraries.of(HOSTILE_IDS));
  }

  // ---------------------------------------------------------------- commands after the run

  /** Zero to three commands on the run's warehouse. */
  static Arbitrary<List<List<String>>> followUps() {
    String wh = "--warehouse=" + FuzzCase.WAREHOUSE;
    Arbitrary<List<String>> command =
        Arbitraries.oneOf(
            Arbitraries.of("deltas", "dead-letters", "late-events", "nonsense")
                .map(t -> List.of("show", t, wh)),
            naturalIds().map(id -> List.of("explain", "--naturalId=" + id, wh)),
            Arbitraries.just(
                List.of("report", wh, "--out=" + FuzzCase.CASE + "/" + FuzzCase.REPORT)),
            naturalIds().map(id -> List.of("forget", "--naturalId=" + id, "--allowMissing", wh)),
            Arbitraries.just(List.of("compact", wh)),
            Arbitraries.just(List.of("vacuum", wh)),
            Combinators.combine(
                    Arbitraries.of(Optional.<String>empty(), Optional.of("r-1")),
                    Arbitraries.frequencyOf(
                        net.jqwik.api.Tuple.of(2, Arbitraries.just(Optional.<String>empty())),
                        net.jqwik.api.Tuple.of(1, ids().map(Optional::of))))
                .as(
                    (runId, replayId) -> {
                      List<String> c =
                          new ArrayList<>(List.of("replay", "--runner=DirectRunner", wh));
                      c.add(runId.isPresent() ? "--runId=" + runId.get() : "--since=1970-01-01");
                      replayId.ifPresent(r -> c.add("--replayId=" + r));
                      return c;
                    }));
    return command.list().ofMaxSize(3);
  }

  private static String jsonString(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
