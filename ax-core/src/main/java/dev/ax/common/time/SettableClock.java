package dev.ax.common.time;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock for tests: it moves only when told to, and is stable ({@link Clock#isStable()}) unless
 * told otherwise. Thread-safe.
 */
public final class SettableClock implements Clock {

  private final AtomicLong nowMs;
  private volatile boolean stable = true;

  public SettableClock(Instant start) {
    this.nowMs = new AtomicLong(start.toEpochMilli());
  }

  @Override
  public long millis() {
    return nowMs.get();
  }

  @Override
  public boolean isStable() {
    return stable;
  }

  /** Makes the clock unstable (false) or stable again (true), as a clock whose source drifted. */
  public void setStable(boolean stable) {
    this.stable = stable;
  }

  public void set(Instant instant) {
    nowMs.set(instant.toEpochMilli());
  }

  public void tick(Duration duration) {
    nowMs.addAndGet(duration.toMillis());
  }
}
