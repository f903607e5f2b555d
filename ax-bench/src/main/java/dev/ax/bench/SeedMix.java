package dev.ax.bench;

import java.time.Duration;

/**
 * {@code ax bench --mix seed}'s options: how many tasks of the seeds' mix ({@link SeedSchedule}),
 * for how long they are measured, and the seed their expressions are drawn with. Immutable.
 *
 * @param tasks tasks registered (the seeds': 20,000)
 * @param duration how long firings are counted, from the moment every task is stored
 * @param seed draws the expressions: the same seed, the same task set
 */
record SeedMix(int tasks, Duration duration, long seed) {

  static final int MAX_TASKS = 200_000;
  static final Duration MIN_DURATION = Duration.ofSeconds(10);
  static final Duration MAX_DURATION = Duration.ofDays(1);

  SeedMix {
    if (tasks < 1 || tasks > MAX_TASKS) {
      throw new IllegalArgumentException("tasks must be in 1.." + MAX_TASKS + ": " + tasks);
    }
    if (duration.compareTo(MIN_DURATION) < 0 || duration.compareTo(MAX_DURATION) > 0) {
      throw new IllegalArgumentException("duration must be in 10s..1d: " + duration);
    }
  }
}
