package dev.ax.common.model;

/**
 * What happens to a firing of a non-concurrent task (one with {@code concurrent = false}) while its
 * previous instance is still running. Concurrent tasks ignore it.
 */
public enum ConcurrencyPolicy {
  /** The new instance is not run: it ends SKIPPED. The default. */
  SKIP,
  /** The new instance waits until the running one has ended, then runs. */
  DELAY;

  public static final ConcurrencyPolicy DEFAULT = SKIP;
}
