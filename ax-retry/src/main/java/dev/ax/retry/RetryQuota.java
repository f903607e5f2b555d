package dev.ax.retry;

/**
 * The retry stage's quota: a token bucket of {@code ratePerSecond} holding at most a tenth of a
 * second's worth (so a quiet spell banks no burst, and no one-second window sees more than 1.1
 * times the rate), and a bound on retried attempts in flight. A retry storm is flattened to the
 * rate instead of amplified. Owned by one thread; not thread-safe.
 */
final class RetryQuota {

  private final double ratePerSecond;
  private final long maxInFlight;
  private final double capacity;
  private double tokens;
  private long lastRefillMs;

  RetryQuota(double ratePerSecond, long maxInFlight, long nowMs) {
    if (ratePerSecond <= 0 || maxInFlight < 1) {
      throw new IllegalArgumentException(
          "rate and in-flight bound must be positive: " + ratePerSecond + ", " + maxInFlight);
    }
    this.ratePerSecond = ratePerSecond;
    this.maxInFlight = maxInFlight;
    this.capacity = Math.max(1, ratePerSecond / 10);
    this.tokens = 1;
    this.lastRefillMs = nowMs;
  }

  /**
   * How many of {@code wanted} retries may be dispatched now, given {@code inFlight} retried
   * attempts dispatched or running; the permits returned are spent.
   */
  int take(int wanted, long inFlight, long nowMs) {
    if (nowMs > lastRefillMs) {
      tokens = Math.min(capacity, tokens + (nowMs - lastRefillMs) * ratePerSecond / 1000.0);
      lastRefillMs = nowMs;
    }
    long byFlight = Math.max(0, maxInFlight - inFlight);
    int permits = (int) Math.min(Math.min(wanted, (long) tokens), byFlight);
    tokens -= permits;
    return permits;
  }
}
