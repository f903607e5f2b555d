package dev.ax.common.schedule;

import dev.ax.common.time.SaturatingMillis;
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
 * #newest}). Millisecond precision, like instance ids.
 *
 * <p>Bounded: the grid ends at {@link SaturatingMillis#FAR_FUTURE_MS}. A slot that would lie beyond
 * it (an interval near {@code Long.MAX_VALUE} ms, an origin in the year one billion) does not
 * exist, so {@link #nextAfter} is empty there and the task's chain ends instead of the arithmetic
 * overflowing. All index arithmetic saturates, so no input makes a method throw. Immutable and
 * thread-safe.
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
    long intervalMs = SaturatingMillis.toMillis(interval);
    if (intervalMs < 1) {
      throw new IllegalArgumentException("interval must be at least 1 ms: " + interval);
    }
    this.originMs = SaturatingMillis.epochMillis(origin);
    this.intervalMs = intervalMs;
  }

  public Instant origin() {
    return Instant.ofEpochMilli(originMs);
  }

  public Duration interval() {
    return Duration.ofMillis(intervalMs);
  }

  @Override
  public Optional<Instant> nextAfter(Instant after) {
    long afterMs = SaturatingMillis.epochMillis(after);
    long next =
        afterMs < originMs
            ? 0
            : SaturatingMillis.add(
                Math.floorDiv(SaturatingMillis.subtract(afterMs, originMs), intervalMs), 1);
    long slotMs = slotMs(next);
    // Past the far-future bound there are no slots (and an epoch millisecond of exactly the
    // bound is "never" too): the chain ends.
    return SaturatingMillis.isNever(slotMs)
        ? Optional.empty()
        : Optional.of(Instant.ofEpochMilli(slotMs));
  }

  @Override
  public Optional<Instant> latestIn(Instant floor, Instant ceiling) {
    long last = lastIndexAtOrBefore(ceiling);
    if (last < 0 || last <= lastIndexAtOrBefore(floor)) {
      return Optional.empty();
    }
    return Optional.of(Instant.ofEpochMilli(slotMs(last)));
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
      slots.add(Instant.ofEpochMilli(slotMs(k)));
    }
    return slots;
  }

  /** The index of the last slot at or before {@code t}; -1 when {@code t} is before the origin. */
  private long lastIndexAtOrBefore(Instant t) {
    long ms = SaturatingMillis.epochMillis(t);
    return ms < originMs ? -1 : Math.floorDiv(ms - originMs, intervalMs);
  }

  /**
   * Slot {@code k}'s epoch millisecond, clamped to the far-future bound. Exact for every slot at or
   * before a time this grid was asked about (those lie between the origin and that time).
   */
  private long slotMs(long k) {
    return SaturatingMillis.atMs(originMs, SaturatingMillis.multiply(k, intervalMs));
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
