package dev.ax.common.model;

/**
 * What a periodic task (CRON, FIXED_RATE) does with the slots it missed while no ticker fired it
 * (an outage, a long pause): a slot is missed when it is older than the misfire threshold when the
 * ticker finally looks at it. The rules are in {@code dev.ax.common.schedule.MisfirePlanner}.
 */
public enum MisfirePolicy {
  /** One firing now for all missed slots, keyed by the latest missed slot. The default. */
  FIRE_ONCE_NOW,
  /** No firing for the missed slots; the task goes on with its next future slot. */
  SKIP,
  /** One firing per missed slot, oldest first, at most {@code maxFireAll} of them. */
  FIRE_ALL;

  public static final MisfirePolicy DEFAULT = FIRE_ONCE_NOW;

  /** How many missed slots FIRE_ALL fires when the task does not say. */
  public static final int DEFAULT_MAX_FIRE_ALL = 100;

  /** The most missed slots FIRE_ALL may be asked to fire at once. */
  public static final int MAX_FIRE_ALL_LIMIT = 10_000;

  /**
   * Checks a FIRE_ALL cap given in code (the JSON reader checks its own, with the field's path).
   *
   * @throws IllegalArgumentException unless it is in 1..{@link #MAX_FIRE_ALL_LIMIT}
   */
  public static void requireValidMaxFireAll(int maxFireAll) {
    if (maxFireAll < 1 || maxFireAll > MAX_FIRE_ALL_LIMIT) {
      throw new IllegalArgumentException(
          "maxFireAll must be in 1.." + MAX_FIRE_ALL_LIMIT + ": " + maxFireAll);
    }
  }
}
