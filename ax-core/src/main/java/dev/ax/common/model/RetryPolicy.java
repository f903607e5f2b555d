package dev.ax.common.model;

import dev.ax.common.time.SaturatingMillis;
import java.time.Duration;

/**
 * How often and how far apart failed attempts are retried: {@code min(base * 2^(n-1), max)} before
 * retry {@code n}, with jitter when enabled. Immutable.
 */
public record RetryPolicy(
    int maxRetries, Duration backoffBase, Duration backoffMax, boolean jitter) {

  public static final int DEFAULT_MAX_RETRIES = 3;
  public static final Duration DEFAULT_BACKOFF_BASE = Duration.ofSeconds(1);
  public static final Duration DEFAULT_BACKOFF_MAX = Duration.ofSeconds(60);
  public static final RetryPolicy DEFAULT =
      new RetryPolicy(DEFAULT_MAX_RETRIES, DEFAULT_BACKOFF_BASE, DEFAULT_BACKOFF_MAX, true);

  public RetryPolicy {
    if (maxRetries < 0) {
      throw new IllegalArgumentException("maxRetries must not be negative: " + maxRetries);
    }
    if (backoffBase.isNegative() || backoffBase.isZero()) {
      throw new IllegalArgumentException("backoffBase must be positive: " + backoffBase);
    }
    if (backoffMax.compareTo(backoffBase) < 0) {
      throw new IllegalArgumentException(
          "backoffMax must be at least backoffBase: " + backoffMax + " < " + backoffBase);
    }
  }

  /**
   * The backoff before retry {@code n} (1-based), without jitter: {@code min(base * 2^(n-1), max)},
   * computed with saturating arithmetic, so it grows monotonically to {@code max} and stays there
   * whatever the numbers (a doubling that overflows is "longer than max", never a wrap to a short
   * or negative backoff).
   */
  public Duration backoffBeforeRetry(int n) {
    if (n < 1) {
      throw new IllegalArgumentException("retry number starts at 1: " + n);
    }
    long baseMs = SaturatingMillis.toMillis(backoffBase);
    long maxMs = SaturatingMillis.toMillis(backoffMax);
    // 2^62 is the largest power of two a long holds; beyond it the product saturates anyway.
    long factor = 1L << Math.min(n - 1, 62);
    long millis = SaturatingMillis.multiply(baseMs, factor);
    return Duration.ofMillis(Math.min(millis, maxMs));
  }

  /**
   * The delay before retry {@code n} (1-based): {@link #backoffBeforeRetry(int)}, and with jitter a
   * uniform pick between half of it and all of it ("equal jitter"), so that instances which failed
   * together come back spread out, none sooner than half its backoff and none later than all of it.
   *
   * @param random a number in [0, 1)
   */
  public Duration delayBeforeRetry(int n, double random) {
    Duration backoff = backoffBeforeRetry(n);
    if (!jitter) {
      return backoff;
    }
    long backoffMs = backoff.toMillis(); // exact: backoffBeforeRetry returns whole millis in range
    long half = backoffMs / 2;
    long spread = (long) (random * (double) (backoffMs - half + 1));
    return Duration.ofMillis(Math.min(backoffMs, SaturatingMillis.add(half, spread)));
  }
}
