package dev.ax.common.time;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The local wall clock, made monotonic: if the wall clock steps back, this clock holds still until
 * the wall clock catches up. Thread-safe.
 */
public final class SystemClock implements Clock {

  private final AtomicLong lastMs = new AtomicLong(Long.MIN_VALUE);

  @Override
  public long millis() {
    long wallMs = System.currentTimeMillis();
    return lastMs.accumulateAndGet(wallMs, Math::max);
  }
}
