package io.streamrecon.pipeline;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The thresholds of {@code --failOn} (docs/operations.md#gating-a-pipeline): a comma-separated list
 * of rules {@code METRIC>VALUE} or {@code METRIC>=VALUE}, where VALUE is a whole count or a
 * percentage ({@code 0.1%}) of the whole the metric is part of ({@link Metric#whole}). A run whose
 * summary ({@link Counts}) breaches any rule ends with its own exit code, so a CI step can stop on
 * it.
 */
public record FailOnRules(List<Rule> rules) {
  /** The option these rules come from, named in every error. */
  static final String OPTION = "--failOn";

  private static final Pattern RULE = Pattern.compile("([A-Za-z]+)\\s*(>=|>)\\s*(.*)");
  private static final Pattern COUNT = Pattern.compile("[0-9]+");
  private static final Pattern PERCENT = Pattern.compile("[0-9]+(\\.[0-9]+)?");
  private static final BigDecimal HUNDRED = BigDecimal.valueOf(100);

  private static final String GRAMMAR =
      "rules are METRIC>VALUE or METRIC>=VALUE, comma-separated, METRIC one of "
          + Metric.names()
          + ", VALUE a whole count (like 0 or 10) or a percentage from 0% to 100% (like 0.1%)";

  public FailOnRules {
    rules = List.copyOf(rules);
  }

  /**
   * The counts of a run's summary that the rules judge. The settings hold the rules before a run
   * starts; the summary that implements this is gathered by the run, a layer above them.
   */
  public interface Counts {
    long mismatch();

    long missingInTarget();

    long missingInSource();

    long deadLetters();

    long late();

    long duplicate();

    long superseded();

    /** Verdicts of every status. */
    long verdicts();

    /** Input lines and records read, blank lines included. */
    long input();

    long blankLines();

    /** Events stored in raw_events. */
    long raw();
  }

  /** No rules: nothing can be breached. */
  public static FailOnRules none() {
    return new FailOnRules(List.of());
  }

  /** True when there is no rule. */
  public boolean isEmpty() {
    return rules.isEmpty();
  }

  /**
   * Parses the option's value; null or blank gives {@link #none()}.
   *
   * @throws IllegalArgumentException one line naming {@code --failOn}, the bad item and what is
   *     valid: an unknown metric, an empty item, a value that is no whole count or percentage, a
   *     negative value, a percentage over 100, or a metric named twice
   */
  public static FailOnRules parse(String text) {
    if (text == null || text.isBlank()) {
      return none();
    }
    List<Rule> rules = new ArrayList<>();
    Set<Metric> seen = EnumSet.noneOf(Metric.class);
    // -1 keeps trailing empty items, so "mismatch>0," is refused like ",mismatch>0".
    for (String raw : text.split(",", -1)) {
      String item = raw.strip();
      if (item.isEmpty()) {
        throw bad("'" + text.strip() + "' has an empty rule", "");
      }
      Rule rule = parseRule(item);
      if (!seen.add(rule.metric())) {
        throw bad(
            "'" + item + "' names " + rule.metric().optionName() + " a second time",
            ": give each metric once");
      }
      rules.add(rule);
    }
    return new FailOnRules(rules);
  }

  private static Rule parseRule(String item) {
    Matcher m = RULE.matcher(item);
    if (!m.matches()) {
      throw bad("'" + item + "' is not a rule", "");
    }
    Metric metric = Metric.named(m.group(1));
    if (metric == null) {
      throw bad("'" + item + "' names no metric '" + m.group(1) + "'", "");
    }
    boolean orEqual = m.group(2).equals(">=");
    String value = m.group(3).strip();
    if (value.startsWith("-")) {
      throw bad("'" + item + "' has a negative value", "");
    }
    if (value.endsWith("%")) {
      String number = value.substring(0, value.length() - 1).strip();
      if (!PERCENT.matcher(number).matches()) {
        throw bad("'" + item + "' has no valid percentage", "");
      }
      BigDecimal percent = new BigDecimal(number);
      if (percent.compareTo(HUNDRED) > 0) {
        throw bad("'" + item + "' has a percentage over 100%", "");
      }
      return new Rule(metric, orEqual, null, percent);
    }
    if (!COUNT.matcher(value).matches()) {
      throw bad("'" + item + "' has no valid count", "");
    }
    try {
      return new Rule(metric, orEqual, Long.parseLong(value), null);
    } catch (NumberFormatException e) {
      throw bad("'" + item + "' has a count too large", "");
    }
  }

  private static IllegalArgumentException bad(String what, String hint) {
    return new IllegalArgumentException(OPTION + ": " + what + hint + "; " + GRAMMAR);
  }

  /** The rules {@code summary} breaches, in the order given. */
  public List<Breach> breaches(Counts summary) {
    List<Breach> breached = new ArrayList<>();
    for (Rule r : rules) {
      if (r.breachedBy(summary)) {
        breached.add(
            new Breach(
                r, r.metric().count(summary), r.isPercent() ? r.metric().whole(summary) : null));
      }
    }
    return breached;
  }

  /** What a rule measures: a count of the summary, and the whole it is part of. */
  public enum Metric {
    MISMATCH("mismatch", "verdicts"),
    MISSING_IN_TARGET("missingInTarget", "verdicts"),
    MISSING_IN_SOURCE("missingInSource", "verdicts"),
    MISSING("missing", "verdicts"),
    DEAD_LETTERS("deadLetters", "non-blank input lines/records"),
    LATE("late", "raw events"),
    DUPLICATE("duplicate", "raw events"),
    SUPERSEDED("superseded", "raw events");

    private final String optionName;
    private final String wholeName;

    Metric(String optionName, String wholeName) {
      this.optionName = optionName;
      this.wholeName = wholeName;
    }

    /** The name a rule uses: the summary's label, in camel case. */
    public String optionName() {
      return optionName;
    }

    /** What a percentage of this metric is a share of, in words. */
    public String wholeName() {
      return wholeName;
    }

    /** The metric's count in {@code s}, as the summary prints it. */
    public long count(Counts s) {
      return switch (this) {
        case MISMATCH -> s.mismatch();
        case MISSING_IN_TARGET -> s.missingInTarget();
        case MISSING_IN_SOURCE -> s.missingInSource();
        case MISSING -> s.missingInTarget() + s.missingInSource();
        case DEAD_LETTERS -> s.deadLetters();
        case LATE -> s.late();
        case DUPLICATE -> s.duplicate();
        case SUPERSEDED -> s.superseded();
      };
    }

    /**
     * The whole a percentage is a share of: verdicts for the verdict statuses (a share of the
     * records compared), the non-blank input for dead letters (a share of what was read), raw
     * events for the events that reach no verdict of their own.
     */
    public long whole(Counts s) {
      return switch (this) {
        case MISMATCH, MISSING_IN_TARGET, MISSING_IN_SOURCE, MISSING -> s.verdicts();
        case DEAD_LETTERS -> s.input() - s.blankLines();
        case LATE, DUPLICATE, SUPERSEDED -> s.raw();
      };
    }

    static Metric named(String name) {
      for (Metric m : values()) {
        if (m.optionName.equals(name)) {
          return m;
        }
      }
      return null;
    }

    static String names() {
      return Arrays.stream(values()).map(Metric::optionName).collect(Collectors.joining(", "));
    }
  }

  /**
   * One threshold: breached when the metric's count is over {@code count}, or its share of the
   * whole over {@code percent}; {@code orEqual} also breaches at the value itself. Exactly one of
   * {@code count} and {@code percent} is set.
   */
  public record Rule(Metric metric, boolean orEqual, Long count, BigDecimal percent) {
    /** True for a percentage rule. */
    public boolean isPercent() {
      return percent != null;
    }

    boolean breachedBy(Counts s) {
      int cmp;
      if (isPercent()) {
        long whole = metric.whole(s);
        // Exact: count / whole against percent / 100, without rounding. Nothing of nothing is 0%.
        BigDecimal share =
            whole <= 0 ? BigDecimal.ZERO : BigDecimal.valueOf(metric.count(s)).multiply(HUNDRED);
        cmp = share.compareTo(percent.multiply(BigDecimal.valueOf(Math.max(whole, 0))));
      } else {
        cmp = Long.compare(metric.count(s), count);
      }
      return orEqual ? cmp >= 0 : cmp > 0;
    }

    /** The rule as a user writes it, for example {@code mismatch>0} or {@code missing>=0.1%}. */
    @Override
    public String toString() {
      return metric.optionName()
          + (orEqual ? ">=" : ">")
          + (isPercent() ? percent.toPlainString() + "%" : count.toString());
    }
  }

  /**
   * A rule a run breached, with the count it saw and, for a percentage rule, the whole ({@code
   * null} for a count rule).
   */
  public record Breach(Rule rule, long observed, Long whole) {
    /** The observed share in percent, rounded to 4 decimals; null for a count rule. */
    public BigDecimal observedPercent() {
      if (whole == null) {
        return null;
      }
      if (whole <= 0) {
        return BigDecimal.ZERO;
      }
      return BigDecimal.valueOf(observed)
          .multiply(HUNDRED)
          .divide(BigDecimal.valueOf(whole), 4, RoundingMode.HALF_UP)
          .stripTrailingZeros();
    }

    /** One line for the terminal: the rule and what was observed. */
    public String line() {
      String seen =
          whole == null
              ? String.format(Locale.ROOT, "%s %d", rule.metric().optionName(), observed)
              : String.format(
                  Locale.ROOT,
                  "%s %d of %d %s (%s%%)",
                  rule.metric().optionName(),
                  observed,
                  whole,
                  rule.metric().wholeName(),
                  observedPercent().toPlainString());
      return OPTION + " rule " + rule + " breached: " + seen;
    }
  }
}
