package io.streamrecon.pipeline.samples;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * A deterministic migration sample for comparison rules (README "Comparison rules"): {@code
 * legacy.jsonl}, orders as an old system exports them, and {@code replacement.jsonl}, the same
 * orders from its replacement, which writes them differently but means the same:
 *
 * <ul>
 *   <li>{@code customerName} became {@code customer.name} (rename);
 *   <li>the id and quantities were strings ({@code "2"}), now numbers; prices were text with two
 *       decimals, now numbers (lenientTypes);
 *   <li>e-mail addresses keep their case and stray spaces in the legacy export, the replacement
 *       lower-cases them (normalize);
 *   <li>line items and tags come in another order (unordered);
 *   <li>the replacement computes totals in binary floating point, a cent off now and then
 *       (tolerance);
 *   <li>creation time was epoch milliseconds, now ISO-8601 text (instants);
 *   <li>each export stamps its own {@code meta.exportedAt} (ignore).
 * </ul>
 *
 * Every {@value #REAL_DIFFERENCE_EVERY}th order differs for real: a quantity, a missing line, a
 * customer name, a total off by more than a cent, an e-mail address.
 */
public final class RulesSample {
  /** Orders that differ for real, every {@code n}-th order. */
  static final int REAL_DIFFERENCE_EVERY = 40;

  /** Orders whose total is a cent off (within the sample's tolerance), every {@code n}-th. */
  static final int CENT_OFF_EVERY = 7;

  private static final Instant BASE = Instant.parse("2026-01-05T09:00:00Z");
  private static final String[] NAMES = {"Ann Lee", "Bo Chan", "Cy Diaz", "Dee Ekko", "Eli Fox"};
  private static final String[] TAGS = {"gift", "express", "b2b", "promo", "fragile"};

  private final List<String> legacy = new ArrayList<>();
  private final List<String> replacement = new ArrayList<>();

  private RulesSample() {}

  /** {@code orders} orders from {@code seed}; the same arguments always give the same bytes. */
  public static RulesSample generate(long seed, int orders) {
    RulesSample s = new RulesSample();
    Random r = new Random(seed);
    for (int i = 1; i <= orders; i++) {
      s.order(r, i);
    }
    return s;
  }

  public List<String> legacyLines() {
    return legacy;
  }

  public List<String> replacementLines() {
    return replacement;
  }

  /** Writes {@code legacy.jsonl} and {@code replacement.jsonl} into {@code dir}. */
  public void writeTo(Path dir) throws IOException {
    Files.createDirectories(dir);
    Files.write(dir.resolve("legacy.jsonl"), legacy, StandardCharsets.UTF_8);
    Files.write(dir.resolve("replacement.jsonl"), replacement, StandardCharsets.UTF_8);
  }

  private void order(Random r, int i) {
    int id = 100_000 + i;
    Instant time = BASE.plusSeconds(i * 3L);
    long createdMillis = time.minusSeconds(60 + r.nextInt(600)).toEpochMilli();
    String name = NAMES[r.nextInt(NAMES.length)];
    String user = name.toLowerCase(Locale.ROOT).replace(' ', '.');
    String email = user + "@example.com";
    String legacyEmail =
        switch (r.nextInt(3)) {
          case 0 -> Character.toUpperCase(email.charAt(0)) + email.substring(1);
          case 1 -> email.toUpperCase(Locale.ROOT) + " ";
          default -> email;
        };
    int lines = 1 + r.nextInt(4);
    List<int[]> items = new ArrayList<>(); // sku number, qty, price in cents
    for (int k = 0; k < lines; k++) {
      items.add(new int[] {100 + k * 7 + r.nextInt(7), 1 + r.nextInt(5), 199 + r.nextInt(9800)});
    }
    List<String> tags = new ArrayList<>();
    for (String t : TAGS) {
      if (r.nextInt(3) == 0) {
        tags.add(t);
      }
    }
    long totalCents = 0;
    for (int[] it : items) {
      totalCents += (long) it[1] * it[2];
    }
    BigDecimal total = BigDecimal.valueOf(totalCents, 2);

    // The replacement's view, with the real differences of every REAL_DIFFERENCE_EVERY-th order.
    String newName = name;
    String newEmail = email;
    BigDecimal newTotal = total;
    List<int[]> newItems = new ArrayList<>();
    for (int[] it : items) {
      newItems.add(it.clone());
    }
    if (i % REAL_DIFFERENCE_EVERY == 0) {
      switch ((i / REAL_DIFFERENCE_EVERY) % 5) {
        case 0 -> newItems.get(0)[1] += 1;
        case 1 -> {
          if (newItems.size() > 1) {
            newItems.remove(newItems.size() - 1);
          } else {
            newItems.get(0)[2] += 100;
          }
        }
        case 2 -> newName = name + "-Smith";
        case 3 -> newTotal = total.add(BigDecimal.ONE);
        default -> newEmail = "x" + email;
      }
    } else if (i % CENT_OFF_EVERY == 0) {
      newTotal = total.add(new BigDecimal("0.01"));
    }

    StringBuilder l = new StringBuilder();
    l.append("{\"id\":\"").append(id).append('"');
    l.append(",\"eventTime\":\"").append(time).append('"');
    l.append(",\"customerName\":\"").append(name).append('"');
    l.append(",\"email\":\"").append(legacyEmail).append('"');
    l.append(",\"items\":[");
    for (int k = 0; k < items.size(); k++) {
      int[] it = items.get(k);
      l.append(k == 0 ? "" : ",")
          .append("{\"sku\":\"SKU-")
          .append(it[0])
          .append("\",\"qty\":\"")
          .append(it[1])
          .append("\",\"price\":\"")
          .append(BigDecimal.valueOf(it[2], 2).toPlainString())
          .append("\"}");
    }
    l.append("],\"tags\":").append(stringArray(tags));
    l.append(",\"total\":").append(total.toPlainString());
    l.append(",\"createdAt\":").append(createdMillis);
    l.append(",\"meta\":{\"exportedAt\":\"").append(time.plusSeconds(3600)).append("\"}}");
    legacy.add(l.toString());

    Collections.reverse(newItems);
    List<String> newTags = new ArrayList<>(tags);
    Collections.reverse(newTags);
    StringBuilder t = new StringBuilder();
    t.append("{\"id\":").append(id);
    t.append(",\"eventTime\":\"").append(time).append('"');
    t.append(",\"customer\":{\"name\":\"").append(newName).append("\"}");
    t.append(",\"email\":\"").append(newEmail).append('"');
    t.append(",\"items\":[");
    for (int k = 0; k < newItems.size(); k++) {
      int[] it = newItems.get(k);
      t.append(k == 0 ? "" : ",")
          .append("{\"sku\":\"SKU-")
          .append(it[0])
          .append("\",\"qty\":")
          .append(it[1])
          .append(",\"price\":")
          .append(BigDecimal.valueOf(it[2], 2).stripTrailingZeros().toPlainString())
          .append('}');
    }
    t.append("],\"tags\":").append(stringArray(newTags));
    // Binary floating point, as the replacement computes it.
    t.append(",\"total\":").append(newTotal.setScale(2, RoundingMode.UNNECESSARY).doubleValue());
    t.append(",\"createdAt\":\"").append(Instant.ofEpochMilli(createdMillis)).append('"');
    t.append(",\"meta\":{\"exportedAt\":\"").append(time.plusSeconds(7200)).append("\"}}");
    replacement.add(t.toString());
  }

  private static String stringArray(List<String> values) {
    StringBuilder sb = new StringBuilder("[");
    for (int k = 0; k < values.size(); k++) {
      sb.append(k == 0 ? "" : ",").append('"').append(values.get(k)).append('"');
    }
    return sb.append(']').toString();
  }
}
