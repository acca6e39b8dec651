package io.streamrecon.json;

import java.math.BigDecimal;
import java.time.OffsetDateTime;
import java.time.chrono.IsoChronology;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.format.ResolverStyle;
import java.util.Locale;

/**
 * What an event time may be (docs/design.md#events-and-natural-ids), in one place for every reader
 * of it: the parser ({@link EventParser}), the Kafka timestamp policy ({@link EventTimeExtractor})
 * and the comparison rules' time fields ({@code RulesNormalizer}). An event time is an ISO-8601
 * date-time with an offset ({@code 2026-01-01T00:00:00Z}, {@code 2026-01-01T02:00:00.123+02:00};
 * {@code +0200} and {@code +02} are accepted too) or an integral number of epoch milliseconds;
 * sub-millisecond digits are truncated; it lies in years 0001..9999 (what Delta Lake and Spark
 * timestamps hold).
 */
public final class EventTimes {
  /** 0001-01-01T00:00:00Z. */
  public static final long MIN_MILLIS = -62135596800000L;

  /** 9999-12-31T23:59:59.999Z. */
  public static final long MAX_MILLIS = 253402300799999L;

  /** How an event time outside {@link #MIN_MILLIS}..{@link #MAX_MILLIS} is described. */
  static final String OUT_OF_RANGE =
      "is outside the supported range 0001-01-01T00:00:00Z..9999-12-31T23:59:59.999Z";

  private static final DateTimeFormatter ISO_WITH_OFFSET =
      new DateTimeFormatterBuilder()
          .append(DateTimeFormatter.ISO_LOCAL_DATE_TIME)
          // Z, +02:00 (ISO extended), +0200 (ISO basic) or +02; the first that fits wins.
          .optionalStart()
          .appendOffset("+HH:MM:ss", "Z")
          .optionalEnd()
          .optionalStart()
          .appendOffset("+HHMM", "Z")
          .optionalEnd()
          .optionalStart()
          .appendOffset("+HH", "Z")
          .optionalEnd()
          .toFormatter(Locale.ROOT)
          .withChronology(IsoChronology.INSTANCE)
          .withResolverStyle(ResolverStyle.STRICT);

  private EventTimes() {}

  /**
   * Epoch milliseconds of an ISO-8601 date-time with offset as accepted for event times, within
   * years 0001..9999, or null.
   */
  public static Long isoMillis(String text) {
    try {
      long millis = parseIso(text);
      return inRange(millis) ? millis : null;
    } catch (DateTimeParseException | ArithmeticException e) {
      return null;
    }
  }

  /**
   * Epoch milliseconds of a JSON number as accepted for event times (integral, within years
   * 0001..9999), or null.
   */
  public static Long numberMillis(BigDecimal millis) {
    return inRange(millis) && isIntegral(millis) ? millis.longValueExact() : null;
  }

  /** Whether epoch milliseconds lie within years 0001..9999. */
  static boolean inRange(long millis) {
    return millis >= MIN_MILLIS && millis <= MAX_MILLIS;
  }

  /**
   * Whether a number of epoch milliseconds lies within years 0001..9999. Checked before any digit
   * work, as it bounds the magnitude of numbers such as 1e999999999.
   */
  static boolean inRange(BigDecimal millis) {
    return millis.compareTo(BigDecimal.valueOf(MIN_MILLIS)) >= 0
        && millis.compareTo(BigDecimal.valueOf(MAX_MILLIS)) <= 0;
  }

  /** Whether a number (already {@linkplain #inRange(BigDecimal) in range}) has no fraction. */
  static boolean isIntegral(BigDecimal millis) {
    return millis.signum() == 0 || millis.stripTrailingZeros().scale() <= 0;
  }

  /**
   * Epoch milliseconds of an ISO-8601 date-time with offset, sub-milliseconds truncated, whatever
   * its year.
   *
   * @throws DateTimeParseException when the text is not one
   * @throws ArithmeticException when it does not fit in a long
   */
  static long parseIso(String text) {
    long fast = fastIsoMillis(text);
    return fast != NOT_FAST ? fast : formatterMillis(text);
  }

  /** The general path: the formatter, for every shape {@link #fastIsoMillis} leaves to it. */
  static long formatterMillis(String text) {
    return OffsetDateTime.parse(text, ISO_WITH_OFFSET).toInstant().toEpochMilli();
  }

  /** What {@link #fastIsoMillis} returns for text it leaves to the full formatter. */
  static final long NOT_FAST = Long.MIN_VALUE;

  /**
   * The common shape, {@code yyyy-MM-ddTHH:mm:ss[.f{1,9}](Z|±HH:MM)}, read without the formatter's
   * general machinery (which cost a tenth of the bare logic's time). Returns exactly what {@code
   * OffsetDateTime.parse(text, ISO_WITH_OFFSET)} would, or {@link #NOT_FAST} for anything else,
   * valid or not (lower-case separators, other offset forms, out-of-range fields), which the
   * formatter then accepts or rejects as before. A test compares both on many inputs.
   */
  static long fastIsoMillis(String t) {
    int len = t.length();
    if (len < 20
        || t.charAt(4) != '-'
        || t.charAt(7) != '-'
        || t.charAt(10) != 'T'
        || t.charAt(13) != ':'
        || t.charAt(16) != ':') {
      return NOT_FAST;
    }
    int year = digits(t, 0, 4);
    int month = digits(t, 5, 2);
    int day = digits(t, 8, 2);
    int hour = digits(t, 11, 2);
    int minute = digits(t, 14, 2);
    int second = digits(t, 17, 2);
    if ((year | month | day | hour | minute | second) < 0
        || month < 1
        || month > 12
        || day < 1
        || day > java.time.Month.of(month).length(java.time.Year.isLeap(year))
        || hour > 23
        || minute > 59
        || second > 59) {
      return NOT_FAST;
    }
    int i = 19;
    int millis = 0;
    if (t.charAt(i) == '.') {
      int start = ++i;
      while (i < len && i - start < 9 && t.charAt(i) >= '0' && t.charAt(i) <= '9') {
        if (i - start < 3) {
          millis = millis * 10 + (t.charAt(i) - '0');
        }
        i++;
      }
      int n = i - start;
      if (n == 0) {
        return NOT_FAST;
      }
      for (; n < 3; n++) {
        millis *= 10;
      }
    }
    int offsetSeconds;
    if (i == len - 1 && t.charAt(i) == 'Z') {
      offsetSeconds = 0;
    } else if (i == len - 6
        && (t.charAt(i) == '+' || t.charAt(i) == '-')
        && t.charAt(i + 3) == ':') {
      int oh = digits(t, i + 1, 2);
      int om = digits(t, i + 4, 2);
      if (oh < 0 || om < 0 || oh > 17 || om > 59 || (oh == 0 && om == 0 && t.charAt(i) == '-')) {
        return NOT_FAST;
      }
      offsetSeconds = (t.charAt(i) == '-' ? -1 : 1) * (oh * 3600 + om * 60);
    } else {
      return NOT_FAST;
    }
    long epochDay = java.time.LocalDate.of(year, month, day).toEpochDay();
    long epochSecond = epochDay * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds;
    return epochSecond * 1000 + millis;
  }

  /** The value of {@code n} ASCII digits at {@code from}, or -1. */
  private static int digits(String t, int from, int n) {
    int v = 0;
    for (int i = from; i < from + n; i++) {
      char c = t.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      v = v * 10 + (c - '0');
    }
    return v;
  }
}
