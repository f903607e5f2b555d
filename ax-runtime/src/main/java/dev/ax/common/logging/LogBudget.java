package dev.ax.common.logging;

import java.time.Duration;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * A budget for one kind of repeated log line whose rate an input decides (a rejected command per
 * record, say): at most {@code perWindow} lines each {@code window}, so no input can flood the log.
 * The first line allowed after some were held back says how many: the count is the operator's cue
 * to look at the metric and the topic that have them all.
 *
 * <p>Thread-safe (synchronized; one short critical section per line).
 */
public final class LogBudget {

  /**
   * Whether to log this line, and how many lines were held back since the last one logged.
   *
   * @param suppressedBefore lines held back since the last allowed one; 0 when none
   */
  public record Permit(boolean allowed, long suppressedBefore) {}

  /** Lines a standard budget allows each {@link #STANDARD_WINDOW}. */
  public static final int STANDARD_LINES = 20;

  /** The window of a standard budget. */
  public static final Duration STANDARD_WINDOW = Duration.ofSeconds(10);

  private final String what;
  private final String countedIn;
  private final int perWindow;
  private final long windowNanos;
  private final LongSupplier nanos;
  private long windowStartNanos;
  private int usedInWindow;
  private long suppressed;

  /**
   * The standard budget ({@link #STANDARD_LINES} a {@link #STANDARD_WINDOW}) on the system's
   * monotonic clock.
   *
   * @param what the lines' subject, plural, as in "3 more {@code failed attempt(s)} not logged"
   * @param countedIn where every one of them can still be found: a metric, a topic, a command
   */
  public static LogBudget standard(String what, String countedIn) {
    return new LogBudget(what, countedIn, STANDARD_LINES, STANDARD_WINDOW, System::nanoTime);
  }

  /**
   * @param what the lines' subject, plural, as in "3 more {@code failed attempt(s)} not logged"
   * @param countedIn where every one of them can still be found: a metric, a topic, a command
   * @param perWindow lines allowed per window, at least 1
   * @param nanos the monotonic clock ({@code System::nanoTime})
   */
  public LogBudget(
      String what, String countedIn, int perWindow, Duration window, LongSupplier nanos) {
    if (perWindow < 1 || window.isZero() || window.isNegative()) {
      throw new IllegalArgumentException(
          "a log budget needs a line and a time: " + perWindow + ", " + window);
    }
    this.what = what;
    this.countedIn = countedIn;
    this.perWindow = perWindow;
    this.windowNanos = window.toNanos();
    this.nanos = nanos;
    this.windowStartNanos = nanos.getAsLong();
  }

  /** Takes one line from the budget: allowed, or counted as held back. */
  public synchronized Permit take() {
    long now = nanos.getAsLong();
    if (now - windowStartNanos >= windowNanos) {
      windowStartNanos = now;
      usedInWindow = 0;
    }
    if (usedInWindow >= perWindow) {
      suppressed++;
      return new Permit(false, 0);
    }
    usedInWindow++;
    long before = suppressed;
    suppressed = 0;
    return new Permit(true, before);
  }

  /**
   * The line to log before an allowed one that follows held-back ones, saying how many were held
   * back and where they all are; empty when none was held back.
   */
  public Optional<String> heldBack(Permit permit) {
    if (!permit.allowed() || permit.suppressedBefore() == 0) {
      return Optional.empty();
    }
    return Optional.of(
        permit.suppressedBefore()
            + " more "
            + what
            + " not logged (at most "
            + perWindow
            + " a "
            + Duration.ofNanos(windowNanos).toSeconds()
            + " s): each is counted in "
            + countedIn);
  }
}
