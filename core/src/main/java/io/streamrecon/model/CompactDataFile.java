package io.streamrecon.model;

import java.time.DateTimeException;
import java.time.LocalDate;

/**
 * A {@code raw_events} data file path of the shape the writers give it, {@code
 * side=<SOURCE|TARGET>/event_date=<yyyy-mm-dd>/part-<uuid>.snappy.parquet}, held as side, day and
 * UUID bits so that {@link ModelBytes#writeDataFile} stores it in 26 bytes or fewer. Parsed and
 * printed by hand: on Spark streaming every pointer of a pairing bucket is coded each time the
 * bucket is stored, and a regex with {@link LocalDate#parse} and {@link java.util.UUID#fromString}
 * there was a large share of the pairing's time.
 */
record CompactDataFile(boolean source, long epochDay, long uuidHigh, long uuidLow) {
  private static final String SOURCE_PREFIX = "side=SOURCE/event_date=";
  private static final String TARGET_PREFIX = "side=TARGET/event_date=";
  private static final String NAME_PREFIX = "/" + DataFileName.PREFIX;
  private static final int DATE_AT = SOURCE_PREFIX.length();
  private static final int UUID_AT = DATE_AT + 10 + NAME_PREFIX.length();
  private static final int SUFFIX_AT = UUID_AT + 36;
  private static final int LENGTH = SUFFIX_AT + DataFileName.SUFFIX.length();
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  /** The compact form of {@code path}, or {@code null} when it does not have the writers' shape. */
  static CompactDataFile parse(String path) {
    if (path.length() != LENGTH
        || !path.startsWith(NAME_PREFIX, DATE_AT + 10)
        || !path.startsWith(DataFileName.SUFFIX, SUFFIX_AT)) {
      return null;
    }
    boolean source = path.startsWith(SOURCE_PREFIX);
    if (!source && !path.startsWith(TARGET_PREFIX)) {
      return null;
    }
    int year = digits(path, DATE_AT, 4);
    int month = digits(path, DATE_AT + 5, 2);
    int day = digits(path, DATE_AT + 8, 2);
    if (year < 0
        || month < 0
        || day < 0
        || path.charAt(DATE_AT + 4) != '-'
        || path.charAt(DATE_AT + 7) != '-') {
      return null;
    }
    long epochDay;
    try {
      epochDay = LocalDate.of(year, month, day).toEpochDay();
    } catch (DateTimeException notADate) {
      return null;
    }
    long high = hex(path, UUID_AT, 8);
    long mid = hex(path, UUID_AT + 9, 4);
    long version = hex(path, UUID_AT + 14, 4);
    long variant = hex(path, UUID_AT + 19, 4);
    long node = hex(path, UUID_AT + 24, 12);
    if ((high | mid | version | variant | node) < 0
        || path.charAt(UUID_AT + 8) != '-'
        || path.charAt(UUID_AT + 13) != '-'
        || path.charAt(UUID_AT + 18) != '-'
        || path.charAt(UUID_AT + 23) != '-') {
      return null;
    }
    return new CompactDataFile(
        source, epochDay, (high << 32) | (mid << 16) | version, (variant << 48) | node);
  }

  /** The path this stands for, as the writers named it. */
  String path() {
    LocalDate date = LocalDate.ofEpochDay(epochDay);
    if (date.getYear() < 0 || date.getYear() > 9999) {
      // Never written by parse (four digits); printed as LocalDate does rather than wrongly.
      return (source ? SOURCE_PREFIX : TARGET_PREFIX)
          + date
          + NAME_PREFIX
          + new java.util.UUID(uuidHigh, uuidLow)
          + DataFileName.SUFFIX;
    }
    char[] chars = new char[LENGTH];
    (source ? SOURCE_PREFIX : TARGET_PREFIX).getChars(0, DATE_AT, chars, 0);
    putDigits(chars, DATE_AT, date.getYear(), 4);
    chars[DATE_AT + 4] = '-';
    putDigits(chars, DATE_AT + 5, date.getMonthValue(), 2);
    chars[DATE_AT + 7] = '-';
    putDigits(chars, DATE_AT + 8, date.getDayOfMonth(), 2);
    NAME_PREFIX.getChars(0, NAME_PREFIX.length(), chars, DATE_AT + 10);
    putHex(chars, UUID_AT, uuidHigh >>> 32, 8);
    chars[UUID_AT + 8] = '-';
    putHex(chars, UUID_AT + 9, uuidHigh >>> 16, 4);
    chars[UUID_AT + 13] = '-';
    putHex(chars, UUID_AT + 14, uuidHigh, 4);
    chars[UUID_AT + 18] = '-';
    putHex(chars, UUID_AT + 19, uuidLow >>> 48, 4);
    chars[UUID_AT + 23] = '-';
    putHex(chars, UUID_AT + 24, uuidLow, 12);
    DataFileName.SUFFIX.getChars(0, DataFileName.SUFFIX.length(), chars, SUFFIX_AT);
    return new String(chars);
  }

  /** The decimal value of {@code n} ASCII digits at {@code from}, or -1. */
  private static int digits(String s, int from, int n) {
    int value = 0;
    for (int i = from; i < from + n; i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return value;
  }

  /** The value of {@code n} lower-case hex digits at {@code from}, or -1. */
  private static long hex(String s, int from, int n) {
    long value = 0;
    for (int i = from; i < from + n; i++) {
      char c = s.charAt(i);
      int digit;
      if (c >= '0' && c <= '9') {
        digit = c - '0';
      } else if (c >= 'a' && c <= 'f') {
        digit = c - 'a' + 10;
      } else {
        return -1;
      }
      value = (value << 4) | digit;
    }
    return value;
  }

  private static void putDigits(char[] chars, int at, int value, int n) {
    for (int i = at + n - 1; i >= at; i--) {
      chars[i] = (char) ('0' + value % 10);
      value /= 10;
    }
  }

  private static void putHex(char[] chars, int at, long value, int n) {
    for (int i = at + n - 1; i >= at; i--) {
      chars[i] = HEX[(int) (value & 0xf)];
      value >>>= 4;
    }
  }
}
