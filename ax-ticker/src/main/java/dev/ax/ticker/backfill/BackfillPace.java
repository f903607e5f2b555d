package dev.ax.ticker.backfill;

import java.util.ArrayList;
import java.util.List;

/**
 * How many backfill firings a pass may create: a token bucket filled at {@code firingsPerSecond}
 * ({@code AX_BACKFILL_RATE}) and holding at most one second of them, so a pass that comes late (the
 * chores thread was busy with a long reaper pass) creates at most a second's worth at once, never a
 * burst of everything it missed. What a pass takes is shared between the running backfills ({@link
 * #shares}), so one large backfill does not hold up the others.
 *
 * <p>Time comes in as {@code System.nanoTime()} readings, from the caller, so a test steps it. Not
 * thread-safe: used by the chores thread only.
 */
final class BackfillPace {

  private static final long NANOS_PER_SECOND = 1_000_000_000L;

  private final int firingsPerSecond;
  private double tokens;
  private long lastNanos;
  private boolean started;

  /**
   * @param firingsPerSecond the most backfill firings created a second, every backfill together
   */
  BackfillPace(int firingsPerSecond) {
    if (firingsPerSecond < 1) {
      throw new IllegalArgumentException(
          "firingsPerSecond must be at least 1: " + firingsPerSecond);
    }
    this.firingsPerSecond = firingsPerSecond;
  }

  /** The firings a pass at {@code nowNanos} may create; none at the first reading. */
  int available(long nowNanos) {
    if (!started) {
      started = true;
      lastNanos = nowNanos;
      return 0;
    }
    long elapsed = Math.max(0, nowNanos - lastNanos);
    lastNanos = nowNanos;
    tokens =
        Math.min(firingsPerSecond, tokens + (double) elapsed * firingsPerSecond / NANOS_PER_SECOND);
    return (int) Math.floor(tokens);
  }

  /** Takes {@code firings} created from the bucket (at most what {@link #available} said). */
  void spend(int firings) {
    tokens = Math.max(0, tokens - firings);
  }

  /**
   * {@code budget} shared between {@code backfills} running backfills: equal shares, the remainder
   * one each to the first ones (the oldest requests).
   */
  static List<Integer> shares(int budget, int backfills) {
    List<Integer> shares = new ArrayList<>(backfills);
    if (backfills == 0) {
      return shares;
    }
    int each = budget / backfills;
    int rest = budget % backfills;
    for (int i = 0; i < backfills; i++) {
      shares.add(each + (i < rest ? 1 : 0));
    }
    return shares;
  }
}
