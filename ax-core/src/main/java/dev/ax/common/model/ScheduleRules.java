package dev.ax.common.model;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * How a periodic task's firings are shaped beyond its trigger: what happens on overlap, how late a
 * missed firing may still run, how far firings are spread, and which days they skip. Immutable.
 *
 * @param overlap what a firing does while the previous run is in flight
 * @param catchUpWindow how late a missed firing may still run (older ones are recorded as missed);
 *     null: the task's misfire policy decides instead
 * @param jitter each firing's due time is moved by a deterministic pseudo-random amount in {@code
 *     [0, jitter]} (or {@code [-jitter, jitter]} when {@code jitterSymmetric}); zero: none
 * @param jitterSymmetric whether jitter may also move a firing earlier than its slot
 * @param calendars names of exclusion calendars: a firing in an excluded period is recorded SKIPPED
 *     with the calendar's name, not run
 */
public record ScheduleRules(
    OverlapPolicy overlap,
    Duration catchUpWindow,
    Duration jitter,
    boolean jitterSymmetric,
    List<String> calendars) {

  /** The longest jitter a task may ask for. */
  public static final Duration MAX_JITTER = Duration.ofHours(1);

  /** The longest catch-up window a task may ask for. */
  public static final Duration MAX_CATCH_UP_WINDOW = Duration.ofDays(366);

  /** The most calendars one task may name. */
  public static final int MAX_CALENDARS = 10;

  /** The rules of a task that names none of them. */
  public static final ScheduleRules DEFAULT =
      new ScheduleRules(OverlapPolicy.DEFAULT, null, Duration.ZERO, false, List.of());

  public ScheduleRules {
    Objects.requireNonNull(overlap, "overlap");
    jitter = jitter == null ? Duration.ZERO : jitter;
    if (jitter.isNegative() || jitter.compareTo(MAX_JITTER) > 0) {
      throw new IllegalArgumentException("jitter must be in 0.." + MAX_JITTER + ": " + jitter);
    }
    if (catchUpWindow != null
        && (catchUpWindow.isNegative() || catchUpWindow.compareTo(MAX_CATCH_UP_WINDOW) > 0)) {
      throw new IllegalArgumentException(
          "catchUpWindow must be in 0.." + MAX_CATCH_UP_WINDOW + ": " + catchUpWindow);
    }
    calendars = calendars == null ? List.of() : List.copyOf(calendars);
    if (calendars.size() > MAX_CALENDARS) {
      throw new IllegalArgumentException(
          "at most " + MAX_CALENDARS + " calendars: " + calendars.size());
    }
  }

  /** These rules with another overlap policy. */
  public ScheduleRules withOverlap(OverlapPolicy newOverlap) {
    return new ScheduleRules(newOverlap, catchUpWindow, jitter, jitterSymmetric, calendars);
  }

  /** These rules with other calendar names (a namespace's qualified ones). */
  public ScheduleRules withCalendars(List<String> newCalendars) {
    return new ScheduleRules(overlap, catchUpWindow, jitter, jitterSymmetric, newCalendars);
  }
}
