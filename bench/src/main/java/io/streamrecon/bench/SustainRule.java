package io.streamrecon.bench;

import java.util.List;
import java.util.Locale;

/**
 * Whether a soak trial held its produce rate (the question: the highest produce rate each engine
 * holds for 5 minutes with consumer lag bounded). Pure: it judges the lag samples the soak took.
 *
 * <p>Lag is what the producer had sent minus what the pipeline had stored in {@code raw_events}, in
 * seconds of production (events divided by the produce rate), so trials at different rates compare.
 * Storage is the pipeline's first stage and every engine commits it at least every {@code
 * --commitInterval} (5 s) or micro-batch, so a healthy lag is a few seconds. The first {@link
 * #WARM_UP_SECONDS} of production are not judged: JIT and the first checkpoint.
 *
 * <p>A trial holds when all of these are true:
 *
 * <ol>
 *   <li><b>Bounded</b>: every judged sample is below {@link #MAX_LAG_SECONDS}.
 *   <li><b>Not growing</b>: the mean of the last third of the judged samples is at most the mean of
 *       the first third plus {@link #MAX_GROWTH_SECONDS}. An engine that consumes slower than the
 *       producer shows a backlog that grows with time, even while it is still below the bound.
 *   <li><b>Drained</b>: every produced event was stored at most {@link #MAX_DRAIN_SECONDS} after
 *       production ended.
 *   <li><b>Rate met</b>: the producer itself kept the plan (production ended within 5% of its
 *       planned length), or the trial measured the producer, not the engine.
 * </ol>
 *
 * <p>On an engine with a batch schedule (Spark streaming), the samples also carry how far the last
 * completed micro-batch's time is behind wall time. Beam's Spark source reads whatever is in Kafka
 * when a batch runs, so a late batch reads more and the storage lag can look bounded while the
 * batches fall further behind their schedule, and every verdict with them. That schedule lag must
 * stay below {@link #MAX_SCHEDULE_LAG_SECONDS} and must not grow either (same rule as the storage
 * lag).
 *
 * <p>Wrong verdicts are not judged here: they fail the soak outright.
 */
final class SustainRule {
  static final double WARM_UP_SECONDS = 60;
  static final double MAX_LAG_SECONDS = 30;
  static final double MAX_GROWTH_SECONDS = 5;
  static final double MAX_DRAIN_SECONDS = 30;
  static final double MAX_SCHEDULE_LAG_SECONDS = 60;
  static final double MAX_PRODUCTION_OVERRUN = 0.05;

  /**
   * One sample: seconds since production began, events produced minus events stored, and the batch
   * schedule's lag in seconds (NaN where the engine has no batch schedule).
   */
  record Sample(double atSeconds, long lagEvents, double scheduleLagSeconds) {
    Sample(double atSeconds, long lagEvents) {
      this(atSeconds, lagEvents, Double.NaN);
    }
  }

  /** The judgement, with the figures it rests on (lags in seconds of production). */
  record Verdict(
      boolean held,
      String reason,
      double maxLagSeconds,
      double firstThirdSeconds,
      double lastThirdSeconds,
      double drainSeconds) {
    String markdownRow() {
      return String.format(
          Locale.ROOT,
          "%s | %.1f | %.1f | %.1f | %.0f | %s",
          held ? "held" : "**not held**",
          maxLagSeconds,
          firstThirdSeconds,
          lastThirdSeconds,
          drainSeconds,
          reason);
    }
  }

  private SustainRule() {}

  /**
   * @param samples lag samples taken during production, in time order
   * @param eventsPerSecond the planned produce rate, both topics together
   * @param plannedSeconds the planned length of production
   * @param productionSeconds how long production really took
   * @param drainSeconds from the end of production until every event was stored; negative if it
   *     never was
   */
  static Verdict judge(
      List<Sample> samples,
      double eventsPerSecond,
      double plannedSeconds,
      double productionSeconds,
      double drainSeconds) {
    if (eventsPerSecond <= 0) {
      throw new IllegalArgumentException("eventsPerSecond must be > 0, not " + eventsPerSecond);
    }
    List<Sample> judged = samples.stream().filter(s -> s.atSeconds() > WARM_UP_SECONDS).toList();
    double max = judged.stream().mapToDouble(s -> s.lagEvents() / eventsPerSecond).max().orElse(0);
    int third = Math.max(1, judged.size() / 3);
    double first = mean(judged.subList(0, Math.min(third, judged.size())), eventsPerSecond);
    double last =
        mean(judged.subList(Math.max(0, judged.size() - third), judged.size()), eventsPerSecond);
    List<Sample> scheduled =
        judged.stream().filter(x -> !Double.isNaN(x.scheduleLagSeconds())).toList();
    int schedThird = Math.max(1, scheduled.size() / 3);
    double schedMax = scheduled.stream().mapToDouble(Sample::scheduleLagSeconds).max().orElse(0);
    double schedFirst =
        scheduled.stream()
            .limit(schedThird)
            .mapToDouble(Sample::scheduleLagSeconds)
            .average()
            .orElse(0);
    double schedLast =
        scheduled.stream()
            .skip(Math.max(0, scheduled.size() - schedThird))
            .mapToDouble(Sample::scheduleLagSeconds)
            .average()
            .orElse(0);
    String reason;
    if (judged.size() < 3) {
      reason = "fewer than 3 samples after the warm-up: production too short to judge";
    } else if (productionSeconds > plannedSeconds * (1 + MAX_PRODUCTION_OVERRUN)) {
      reason =
          String.format(
              Locale.ROOT,
              "the producer fell behind its plan (%.0f s for %.0f s): the trial measured the producer",
              productionSeconds,
              plannedSeconds);
    } else if (max > MAX_LAG_SECONDS) {
      reason =
          String.format(Locale.ROOT, "lag reached %.1f s (bound %.0f s)", max, MAX_LAG_SECONDS);
    } else if (last > first + MAX_GROWTH_SECONDS) {
      reason =
          String.format(
              Locale.ROOT,
              "lag grew from %.1f s to %.1f s (allowed +%.0f s)",
              first,
              last,
              MAX_GROWTH_SECONDS);
    } else if (schedMax > MAX_SCHEDULE_LAG_SECONDS) {
      reason =
          String.format(
              Locale.ROOT,
              "micro-batches fell %.0f s behind schedule (bound %.0f s)",
              schedMax,
              MAX_SCHEDULE_LAG_SECONDS);
    } else if (schedLast > schedFirst + MAX_GROWTH_SECONDS) {
      reason =
          String.format(
              Locale.ROOT,
              "micro-batches fell further behind schedule, from %.0f s to %.0f s (allowed +%.0f s)",
              schedFirst,
              schedLast,
              MAX_GROWTH_SECONDS);
    } else if (drainSeconds < 0 || drainSeconds > MAX_DRAIN_SECONDS) {
      reason =
          drainSeconds < 0
              ? "not every event was stored"
              : String.format(
                  Locale.ROOT,
                  "storing the backlog took %.0f s after production (bound" + " %.0f s)",
                  drainSeconds,
                  MAX_DRAIN_SECONDS);
    } else {
      return new Verdict(true, "lag bounded and flat", max, first, last, drainSeconds);
    }
    return new Verdict(false, reason, max, first, last, drainSeconds);
  }

  private static double mean(List<Sample> s, double eventsPerSecond) {
    return s.stream().mapToDouble(x -> x.lagEvents() / eventsPerSecond).average().orElse(0);
  }
}
