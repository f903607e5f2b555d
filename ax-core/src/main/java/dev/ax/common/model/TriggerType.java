package dev.ax.common.model;

/** The kinds of {@link Trigger}. */
public enum TriggerType {
  ONCE,
  CRON,
  FIXED_RATE,
  FIXED_DELAY,
  DEPENDENCY
}
