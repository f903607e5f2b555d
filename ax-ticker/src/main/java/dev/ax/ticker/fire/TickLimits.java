package dev.ax.ticker.fire;

import dev.ax.ticker.TickerConfig;

/**
 * How much a {@link TickLoop} holds and fires, from {@link TickerConfig}. Immutable.
 *
 * @param tickMs the wheel's bucket width
 * @param wheelSize buckets per level of the wheel
 * @param maxPending most instances held (in the wheel, and waiting to be handed over)
 * @param maxBatch most instances fired in one batch
 * @param horizonMs successors due within it go straight into the wheel
 * @param emitAheadMs instances are fired this long before their due time (the dispatcher claims
 *     them at it)
 */
public record TickLimits(
    long tickMs, int wheelSize, int maxPending, int maxBatch, long horizonMs, long emitAheadMs) {

  public TickLimits {
    if (emitAheadMs < 0) {
      throw new IllegalArgumentException("emitAheadMs must not be negative: " + emitAheadMs);
    }
  }

  /** Limits that fire each instance at its due time. */
  public TickLimits(long tickMs, int wheelSize, int maxPending, int maxBatch, long horizonMs) {
    this(tickMs, wheelSize, maxPending, maxBatch, horizonMs, 0);
  }

  public static TickLimits of(TickerConfig config) {
    return new TickLimits(
        config.tick().toMillis(),
        config.wheelSize(),
        config.maxHeld(),
        config.maxBatch(),
        config.horizon().toMillis(),
        config.emitAhead().toMillis());
  }
}
