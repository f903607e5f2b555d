package dev.ax.bench;

import java.time.Duration;

/**
 * {@code ax bench --soak}: ONCE tasks at a steady {@code ratePerSecond} for {@code duration}, each
 * due {@code dueIn} after its send slot, judged in windows of {@code window}. Task {@code i} is due
 * at {@code firstDueMs + i * 1000 / rate}. Immutable.
 */
record SoakPlan(Duration duration, int ratePerSecond, Duration window, Duration dueIn) {

  static final int MAX_RATE = 20_000;
  static final Duration MIN_DURATION = Duration.ofSeconds(10);
  static final Duration MAX_DURATION = Duration.ofDays(1);
  static final Duration MIN_WINDOW = Duration.ofSeconds(10);

  SoakPlan {
    if (duration.compareTo(MIN_DURATION) < 0 || duration.compareTo(MAX_DURATION) > 0) {
      throw new IllegalArgumentException("duration must be in 10s..1d: " + duration);
    }
    if (ratePerSecond < 1 || ratePerSecond > MAX_RATE) {
      throw new IllegalArgumentException("rate must be in 1.." + MAX_RATE + ": " + ratePerSecond);
    }
    if (window.compareTo(MIN_WINDOW) < 0 || window.compareTo(duration) > 0) {
      throw new IllegalArgumentException("window must be in 10s..duration: " + window);
    }
  }

  /** Every task of the soak (at most 1,728,000,000: 20,000/s for a day). */
  int tasks() {
    return (int) (duration.toMillis() * ratePerSecond / 1000);
  }

  /** Task {@code i}'s due time after the first one's, in ms. */
  long dueOffsetMs(long index) {
    return index * 1000 / ratePerSecond;
  }

  /**
   * How many tasks are due before {@code offsetMs} after the first one (index of the first not).
   */
  int tasksBefore(long offsetMs) {
    if (offsetMs <= 0) {
      return 0;
    }
    // the smallest i with i * 1000 / rate >= offsetMs
    long i = (offsetMs * ratePerSecond + 999) / 1000;
    while (i > 0 && dueOffsetMs(i - 1) >= offsetMs) {
      i--;
    }
    while (dueOffsetMs(i) < offsetMs) {
      i++;
    }
    return (int) Math.min(i, tasks());
  }

  int windows() {
    return (int) ((duration.toMillis() + window.toMillis() - 1) / window.toMillis());
  }
}
