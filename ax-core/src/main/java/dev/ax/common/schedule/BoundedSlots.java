package dev.ax.common.schedule;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The slots of a periodic trigger within its active period: none before {@code startAt}, none after
 * {@code endAt} (both inclusive; either may be null: unbounded on that side). Every question is
 * asked of the unbounded slots with the range clamped, so a fixed rate still counts in constant
 * time. Immutable and thread-safe.
 */
record BoundedSlots(Slots inner, Instant startAt, Instant endAt) implements Slots {

  /** {@code slots} bounded by {@code startAt} and {@code endAt}, or itself when both are null. */
  static Slots of(Slots slots, Instant startAt, Instant endAt) {
    return startAt == null && endAt == null ? slots : new BoundedSlots(slots, startAt, endAt);
  }

  @Override
  public Optional<Instant> nextAfter(Instant after) {
    return inner.nextAfter(floor(after)).filter(this::notAfterEnd);
  }

  @Override
  public Optional<Instant> latestIn(Instant floor, Instant ceiling) {
    Instant low = floor(floor);
    Instant high = ceiling(ceiling);
    return low.isBefore(high) ? inner.latestIn(low, high) : Optional.empty();
  }

  @Override
  public SlotCount count(Instant floor, Instant ceiling, long limit) {
    Instant low = floor(floor);
    Instant high = ceiling(ceiling);
    return low.isBefore(high) ? inner.count(low, high, limit) : new SlotCount(0, true);
  }

  @Override
  public List<Instant> newest(int n, Instant floor, Instant ceiling) {
    Instant low = floor(floor);
    Instant high = ceiling(ceiling);
    return low.isBefore(high) ? inner.newest(n, low, high) : List.of();
  }

  /** The exclusive floor: no slot before {@code startAt}, which itself may be one. */
  private Instant floor(Instant floor) {
    if (startAt == null) {
      return floor;
    }
    Instant beforeStart = startAt.minusNanos(1);
    return floor.isBefore(beforeStart) ? beforeStart : floor;
  }

  private Instant ceiling(Instant ceiling) {
    return endAt != null && ceiling.isAfter(endAt) ? endAt : ceiling;
  }

  private boolean notAfterEnd(Instant slot) {
    return endAt == null || !slot.isAfter(endAt);
  }
}
