package io.streamrecon.pipeline.samples;

import io.streamrecon.model.Status;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * Writes a deterministic pair of JSON Lines streams ({@code source.jsonl}, {@code target.jsonl})
 * that covers every verdict kind: matches (some with reordered keys and {@code 12.5} written as
 * {@code 12.50}, equal by the canonical form), mismatches with 1–3 changed fields (top-level,
 * nested object, array element, a field only on one side), missing on each side, redelivered
 * duplicates, new versions of an event, and a few bad lines. The same seed and size always give the
 * same bytes. {@link #expectations()} says what each natural id must end as.
 */
public final class SampleGenerator {
  /** The final outcome expected for a natural id (after supersession). */
  public enum Kind {
    MATCH,
    MISMATCH,
    MISSING_IN_TARGET,
    MISSING_IN_SOURCE,
    DUPLICATE,
    NEW_VERSION
  }

  private static final Instant BASE = Instant.parse("2024-03-01T08:00:00Z");
  private static final String[] CITIES = {"Lyon", "Porto", "Gent", "Turku", "Brno", "Cork"};
  private static final String[] STATUSES = {"NEW", "PAID", "SHIPPED", "DELIVERED"};

  private final long seed;
  private final int ids;
  private final List<String> source = new ArrayList<>();
  private final List<String> target = new ArrayList<>();
  private final Map<String, Kind> expectations = new TreeMap<>();
  private final Map<String, List<String>> mismatchPaths = new TreeMap<>();
  private int badLines;

  private SampleGenerator(long seed, int ids) {
    this.seed = seed;
    this.ids = ids;
  }

  /** Generates {@code ids} natural ids (at least 20) from {@code seed}. */
  public static SampleGenerator generate(long seed, int ids) {
    if (ids < 20) {
      throw new IllegalArgumentException("ids must be at least 20 to cover every kind, got " + ids);
    }
    SampleGenerator g = new SampleGenerator(seed, ids);
    g.build();
    return g;
  }

  /** Writes {@code source.jsonl} and {@code target.jsonl} into {@code dir}. */
  public void writeTo(Path dir) throws IOException {
    Files.createDirectories(dir);
    write(dir.resolve("source.jsonl"), source);
    write(dir.resolve("target.jsonl"), target);
  }

  /** Lines of the source stream, in file order. */
  public List<String> sourceLines() {
    return Collections.unmodifiableList(source);
  }

  /** Lines of the target stream, in file order. */
  public List<String> targetLines() {
    return Collections.unmodifiableList(target);
  }

  /** What each natural id must end as. */
  public Map<String, Kind> expectations() {
    return Collections.unmodifiableMap(expectations);
  }

  /** For each MISMATCH id, the JSON Pointer paths that differ (sorted). */
  public Map<String, List<String>> mismatchPaths() {
    return Collections.unmodifiableMap(mismatchPaths);
  }

  /** Lines that must become dead letters (both files together). */
  public int badLines() {
    return badLines;
  }

  /** The status of the DeltaRecord an id must end with, or {@code null} for none. */
  public static Status expectedStatus(Kind kind) {
    return switch (kind) {
      case MISMATCH -> Status.MISMATCH;
      case MISSING_IN_TARGET -> Status.MISSING_IN_TARGET;
      case MISSING_IN_SOURCE -> Status.MISSING_IN_SOURCE;
      default -> null;
    };
  }

  private void build() {
    Random random = new Random(seed);
    for (int i = 0; i < ids; i++) {
      String id = String.format(Locale.ROOT, "ord-%05d", i + 1);
      Instant t = BASE.plusSeconds(2L * i);
      Order order = Order.random(id, t, random);
      Kind kind = pickKind(i, random);
      expectations.put(id, kind);
      switch (kind) {
        case MATCH -> {
          source.add(order.json(false));
          target.add(order.json(random.nextBoolean()));
        }
        case MISMATCH -> {
          source.add(order.json(false));
          Order changed = order;
          List<String> paths = new ArrayList<>();
          int n = 1 + random.nextInt(3);
          List<Integer> changes = new ArrayList<>(List.of(0, 1, 2, 3, 4));
          Collections.shuffle(changes, random);
          for (int c : changes.subList(0, n)) {
            changed = changed.change(c, random, paths);
          }
          Collections.sort(paths);
          mismatchPaths.put(id, paths);
          target.add(changed.json(random.nextBoolean()));
        }
        case MISSING_IN_TARGET -> source.add(order.json(false));
        case MISSING_IN_SOURCE -> target.add(order.json(false));
        case DUPLICATE -> {
          source.add(order.json(false));
          source.add(order.json(false));
          target.add(order.json(false));
          if (random.nextBoolean()) {
            target.add(order.json(false));
          }
        }
        case NEW_VERSION -> {
          // v1 then v2 thirty seconds later on the source; the target only ever saw v2.
          Order v2 = order.withStatus("CANCELLED", t.plusSeconds(30));
          source.add(order.json(false));
          source.add(v2.json(false));
          target.add(v2.json(false));
        }
        default -> throw new IllegalStateException(kind.name());
      }
    }
    addBadLines(random);
    shuffleLocally(source, random);
    shuffleLocally(target, random);
  }

  private static Kind pickKind(int i, Random random) {
    // The first ids cover every kind even in a tiny scenario; the rest are drawn.
    Kind[] all = Kind.values();
    if (i < all.length * 2) {
      return all[i % all.length];
    }
    int r = random.nextInt(100);
    if (r < 62) {
      return Kind.MATCH;
    }
    if (r < 78) {
      return Kind.MISMATCH;
    }
    if (r < 84) {
      return Kind.MISSING_IN_TARGET;
    }
    if (r < 90) {
      return Kind.MISSING_IN_SOURCE;
    }
    if (r < 95) {
      return Kind.DUPLICATE;
    }
    return Kind.NEW_VERSION;
  }

  private void addBadLines(Random random) {
    List<String> bad =
        List.of(
            "{\"id\":\"ord-bad-1\",\"eventTime\":\"2024-03-01T08:00:00Z\",\"status\":",
            "this is not json",
            "{\"eventTime\":\"2024-03-01T08:00:00Z\",\"status\":\"PAID\"}",
            "{\"id\":null,\"eventTime\":\"2024-03-01T08:00:00Z\"}",
            "{\"id\":[1,2],\"eventTime\":\"2024-03-01T08:00:00Z\"}",
            "{\"id\":\"ord-bad-2\",\"eventTime\":\"last tuesday\"}",
            "{\"id\":\"ord-bad-3\"}",
            "[\"an\",\"array\"]");
    for (int i = 0; i < bad.size(); i++) {
      List<String> side = i % 2 == 0 ? source : target;
      side.add(random.nextInt(side.size() + 1), bad.get(i));
      badLines++;
    }
  }

  /** Mostly time-ordered, as real streams are, with neighbours swapped now and then. */
  private static void shuffleLocally(List<String> lines, Random random) {
    for (int i = 0; i + 1 < lines.size(); i++) {
      if (random.nextInt(4) == 0) {
        Collections.swap(lines, i, i + 1);
      }
    }
  }

  private static void write(Path file, List<String> lines) throws IOException {
    try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      for (String line : lines) {
        w.write(line);
        w.write('\n');
      }
    }
  }

  /** An order event; {@code json} writes it by hand to control key order and number text. */
  private record Order(
      String id,
      Instant eventTime,
      String status,
      long amountCents,
      String customerId,
      String city,
      String zip,
      List<long[]> items,
      String note) {

    static Order random(String id, Instant t, Random r) {
      List<long[]> items = new ArrayList<>();
      int n = 1 + r.nextInt(3);
      for (int i = 0; i < n; i++) {
        items.add(new long[] {100 + r.nextInt(900), 1 + r.nextInt(5), 50 + r.nextInt(5000)});
      }
      return new Order(
          id,
          t,
          STATUSES[r.nextInt(STATUSES.length)],
          100 + r.nextInt(100_000),
          "c-" + (1 + r.nextInt(500)),
          CITIES[r.nextInt(CITIES.length)],
          String.format(Locale.ROOT, "%05d", r.nextInt(100_000)),
          items,
          null);
    }

    Order withStatus(String newStatus, Instant t) {
      return new Order(id, t, newStatus, amountCents, customerId, city, zip, items, note);
    }

    Order change(int what, Random r, List<String> paths) {
      switch (what) {
        case 0 -> {
          paths.add("/status");
          String s = status.equals("PAID") ? "REFUNDED" : "PAID";
          return new Order(id, eventTime, s, amountCents, customerId, city, zip, items, note);
        }
        case 1 -> {
          paths.add("/customer/address/city");
          String c = city.equals("Lyon") ? "Lille" : "Lyon";
          return new Order(id, eventTime, status, amountCents, customerId, c, zip, items, note);
        }
        case 2 -> {
          paths.add("/items/0/qty");
          List<long[]> copy = new ArrayList<>();
          for (long[] item : items) {
            copy.add(item.clone());
          }
          copy.get(0)[1] = copy.get(0)[1] + 1;
          return new Order(id, eventTime, status, amountCents, customerId, city, zip, copy, note);
        }
        case 3 -> {
          paths.add("/amount");
          return new Order(
              id,
              eventTime,
              status,
              amountCents + 1 + r.nextInt(99),
              customerId,
              city,
              zip,
              items,
              note);
        }
        default -> {
          paths.add("/note");
          return new Order(
              id, eventTime, status, amountCents, customerId, city, zip, items, "late fix");
        }
      }
    }

    String json(boolean alternativeSpelling) {
      String amount =
          alternativeSpelling
              ? String.format(Locale.ROOT, "%d.%02d0", amountCents / 100, amountCents % 100)
              : decimal(amountCents);
      StringBuilder items = new StringBuilder("[");
      for (int i = 0; i < this.items.size(); i++) {
        long[] it = this.items.get(i);
        if (i > 0) {
          items.append(',');
        }
        items
            .append("{\"sku\":\"SKU-")
            .append(it[0])
            .append("\",\"qty\":")
            .append(it[1])
            .append(",\"price\":")
            .append(decimal(it[2]))
            .append('}');
      }
      items.append(']');
      String address = "{\"city\":\"" + city + "\",\"zip\":\"" + zip + "\"}";
      String customer = "{\"id\":\"" + customerId + "\",\"address\":" + address + "}";
      String noteField = note == null ? "" : ",\"note\":\"" + note + "\"";
      if (alternativeSpelling) {
        // Same content, other key order and number text: equal by the canonical form.
        return "{\"items\":"
            + items
            + ",\"amount\":"
            + amount
            + ",\"customer\":"
            + customer
            + ",\"status\":\""
            + status
            + "\",\"eventTime\":\""
            + eventTime
            + "\",\"id\":\""
            + id
            + "\""
            + noteField
            + "}";
      }
      return "{\"id\":\""
          + id
          + "\",\"eventTime\":\""
          + eventTime
          + "\",\"status\":\""
          + status
          + "\",\"amount\":"
          + amount
          + ",\"customer\":"
          + customer
          + ",\"items\":"
          + items
          + noteField
          + "}";
    }

    private static String decimal(long cents) {
      return cents % 100 == 0
          ? Long.toString(cents / 100)
          : String.format(Locale.ROOT, "%d.%02d", cents / 100, cents % 100);
    }
  }
}
