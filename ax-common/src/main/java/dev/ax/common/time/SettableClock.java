package dev.ax.common.time;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/** A clock for tests: it moves only when told to. Thread-safe. */
public final class SettableClock implements Clock {

  private final AtomicLong nowMs;

  public SettableClock(Instant start) {
    this.nowMs = new AtomicLong(start.toEpochMilli());
  }

  @Override
  public long millis() {
    return nowMs.get();
  }

  public void set(Instant instant) {
    nowMs.set(instant.toEpochMilli());
  }

  public void tick(Duration duration) {
    nowMs.addAndGet(duration.toMillis());
  }
}
