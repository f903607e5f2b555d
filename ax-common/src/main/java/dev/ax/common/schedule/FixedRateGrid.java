package dev.ax.common.schedule;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The slots of a FIXED_RATE trigger: {@code originMs + k * intervalMs} for every {@code k >= 0}.
 * Each slot is computed from the origin, never from the previous slot, so the grid cannot drift
 * however long it runs; every question is answered in constant time (or {@code O(n)} for {@link
 * #newest}). Millisecond precision, like instance ids. Immutable and thread-safe.
 */
public final class FixedRateGrid implements Slots {

  private final long originMs;
  private final long intervalMs;

  /**
   * @param origin the first slot (the trigger's {@code startAt}, or the task's first fire time)
   * @param interval at least one millisecond
   */
  public FixedRateGrid(Instant origin, Duration interval) {
    Objects.requireNonNull(origin, "origin");
    Objects.requireNonNull(interval, "interval");
    if (interval.toMillis() < 1) {
      throw new IllegalArgumentException("interval must be at least 1 ms: " + interval);
    }
    this.originMs = origin.toEpochMilli();
    this.intervalMs = interval.toMillis();
  }

  public Instant origin() {
    return Instant.ofEpochMilli(originMs);
  }

  public Duration interval() {
    return Duration.ofMillis(intervalMs);
  }

  @Override
  public Optional<Instant> nextAfter(Instant after) {
    long afterMs = after.toEpochMilli();
    if (afterMs < originMs) {
      return Optional.of(origin());
    }
    return Optional.of(slot(Math.floorDiv(afterMs - originMs, intervalMs) + 1));
  }

  @Override
  public Optional<Instant> latestIn(Instant floor, Instant ceiling) {
    long last = lastIndexAtOrBefore(ceiling);
    if (last < 0 || last <= lastIndexAtOrBefore(floor)) {
      return Optional.empty();
    }
    return Optional.of(slot(last));
  }

  @Override
  public SlotCount count(Instant floor, Instant ceiling, long limit) {
    return SlotCount.exactly(
        Math.max(0, lastIndexAtOrBefore(ceiling) - lastIndexAtOrBefore(floor)));
  }

  @Override
  public List<Instant> newest(int n, Instant floor, Instant ceiling) {
    long last = lastIndexAtOrBefore(ceiling);
    long first = Math.max(lastIndexAtOrBefore(floor) + 1, last - n + 1);
    List<Instant> slots = new ArrayList<>();
    for (long k = first; k <= last; k++) {
      slots.add(slot(k));
    }
    return slots;
  }

  /** The index of the last slot at or before {@code t}; -1 when {@code t} is before the origin. */
  private long lastIndexAtOrBefore(Instant t) {
    long ms = t.toEpochMilli();
    return ms < originMs ? -1 : Math.floorDiv(ms - originMs, intervalMs);
  }

  private Instant slot(long k) {
    return Instant.ofEpochMilli(Math.addExact(originMs, Math.multiplyExact(k, intervalMs)));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FixedRateGrid other
        && originMs == other.originMs
        && intervalMs == other.intervalMs;
  }

  @Override
  public int hashCode() {
    return Long.hashCode(originMs) * 31 + Long.hashCode(intervalMs);
  }

  @Override
  public String toString() {
    return "FixedRateGrid[originMs=" + originMs + ", intervalMs=" + intervalMs + "]";
  }
}
