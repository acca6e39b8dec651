package io.streamrecon.pipeline;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.joda.time.Duration;
import org.joda.time.Period;
import org.joda.time.format.ISOPeriodFormat;

/**
 * Parses the duration options: ISO-8601 ({@code PT10M}, {@code PT1H30M}, {@code P1D}) or the short
 * forms people type ({@code 500ms}, {@code 30s}, {@code 10m}, {@code 2h}, {@code 1d}).
 */
public final class DurationParser {
  private static final Pattern SHORT = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");

  /**
   * The longest duration accepted: 10,000 years. Timers fire at an event time (years 0001..9999)
   * plus durations such as the timeout and the allowed lateness; Beam cannot hold a timestamp past
   * the year 294247, and a run asked for more failed inside the pipeline instead of being refused.
   */
  public static final Duration MAX = Duration.standardDays(3_650_000);

  /** {@link #MAX} as error messages print it. */
  public static final String MAX_TEXT = "3650000d";

  private DurationParser() {}

  /**
   * The duration {@code text} denotes.
   *
   * @param option the option name, used in the error message
   * @throws IllegalArgumentException naming the option and the accepted forms, or the longest
   *     duration accepted ({@value #MAX_TEXT})
   */
  public static Duration parse(String option, String text) {
    Duration d = parseUnbounded(option, text);
    if (d.isLongerThan(MAX)) {
      throw new IllegalArgumentException(
          "--" + option + "=" + text + " is too long: must be at most " + format(MAX));
    }
    return d;
  }

  private static Duration parseUnbounded(String option, String text) {
    if (text == null || text.isBlank()) {
      throw invalid(option, text);
    }
    String t = text.trim();
    Matcher m = SHORT.matcher(t.toLowerCase(Locale.ROOT));
    if (m.matches()) {
      long n;
      try {
        n = Long.parseLong(m.group(1));
      } catch (NumberFormatException e) {
        throw invalid(option, text);
      }
      try {
        return switch (m.group(2)) {
          case "ms" -> Duration.millis(n);
          case "s" -> Duration.standardSeconds(n);
          case "m" -> Duration.standardMinutes(n);
          case "h" -> Duration.standardHours(n);
          default -> Duration.standardDays(n);
        };
      } catch (ArithmeticException e) {
        throw invalid(option, text);
      }
    }
    if (t.length() > 1 && (t.charAt(0) == 'P' || t.charAt(0) == 'p')) {
      try {
        Period period = ISOPeriodFormat.standard().parsePeriod(t.toUpperCase(Locale.ROOT));
        // Months and years have no fixed length; a timeout in months is not a timeout anyone means.
        if (period.getYears() != 0 || period.getMonths() != 0) {
          throw invalid(option, text);
        }
        Duration d = period.toStandardDuration();
        if (d.isShorterThan(Duration.ZERO)) {
          throw invalid(option, text);
        }
        return d;
      } catch (IllegalArgumentException | UnsupportedOperationException | ArithmeticException e) {
        throw invalid(option, text);
      }
    }
    throw invalid(option, text);
  }

  /** Like {@link #parse} but also requires {@code min <= result}. */
  public static Duration parseAtLeast(String option, String text, Duration min) {
    Duration d = parse(option, text);
    if (d.isShorterThan(min)) {
      throw new IllegalArgumentException(
          "--" + option + "=" + text + " is too short: must be at least " + format(min));
    }
    return d;
  }

  /** Short human form: {@code 10m}, {@code 30s}, {@code 1500ms}. */
  public static String format(Duration d) {
    long ms = d.getMillis();
    if (ms != 0 && ms % 86_400_000L == 0) {
      return ms / 86_400_000L + "d";
    }
    if (ms != 0 && ms % 3_600_000L == 0) {
      return ms / 3_600_000L + "h";
    }
    if (ms != 0 && ms % 60_000L == 0) {
      return ms / 60_000L + "m";
    }
    if (ms != 0 && ms % 1000L == 0) {
      return ms / 1000L + "s";
    }
    return ms + "ms";
  }

  private static IllegalArgumentException invalid(String option, String text) {
    return new IllegalArgumentException(
        "--"
            + option
            + "="
            + (text == null ? "" : text)
            + " is not a duration: use ISO-8601 (PT10M, PT1H30M, P1D) or a number with a unit"
            + " ms, s, m, h or d (500ms, 30s, 10m, 2h, 1d), zero or more");
  }
}
