package dev.ax.common.schedule;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Range questions answered for a slot sequence that can only step forward ({@code nextAfter}), as a
 * cron can. Quartz has no reliable "previous fire time", and walking every slot of a long outage of
 * an every-second cron would cost seconds, so:
 *
 * <ul>
 *   <li>{@link #latestIn} binary-searches the instant {@code x} where {@code nextAfter(x)} stops
 *       landing inside the range: about 45 steps for any range up to a thousand years, however
 *       dense the slots are.
 *   <li>{@link #newest} walks back from the latest slot in windows that grow 4x until one holds
 *       {@code n} slots (or reaches the floor): the walk costs a small multiple of {@code n} steps.
 *   <li>{@link #count} walks, but at most {@code limit} slots.
 * </ul>
 *
 * <p>All of it relies on {@code nextAfter} being monotone, which {@link Slots} promises.
 */
final class SlotSearch {

  private static final Duration FIRST_WINDOW = Duration.ofSeconds(1);
  private static final int WINDOW_GROWTH = 4;
  private static final Duration PRECISION = Duration.ofMillis(1);

  private SlotSearch() {}

  static Optional<Instant> latestIn(
      Function<Instant, Optional<Instant>> nextAfter, Instant floor, Instant ceiling) {
    if (!ceiling.isAfter(floor) || !landsIn(nextAfter.apply(floor), ceiling)) {
      return Optional.empty();
    }
    // Invariant: nextAfter(lo) <= ceiling (some slot after lo is in range), nextAfter(hi) is not.
    Instant lo = floor;
    Instant hi = ceiling;
    while (Duration.between(lo, hi).compareTo(PRECISION) > 0) {
      Instant mid = lo.plus(Duration.between(lo, hi).dividedBy(2));
      if (landsIn(nextAfter.apply(mid), ceiling)) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    // lo is within a millisecond of the latest slot: step forward to it (one or two steps).
    Instant latest = nextAfter.apply(lo).orElseThrow();
    for (Optional<Instant> next = nextAfter.apply(latest);
        landsIn(next, ceiling);
        next = nextAfter.apply(latest)) {
      latest = next.get();
    }
    return Optional.of(latest);
  }

  static SlotCount count(
      Function<Instant, Optional<Instant>> nextAfter, Instant floor, Instant ceiling, long limit) {
    long count = 0;
    Instant cursor = floor;
    while (true) {
      Optional<Instant> next = nextAfter.apply(cursor);
      if (!landsIn(next, ceiling)) {
        return SlotCount.exactly(count);
      }
      if (count == limit) {
        return new SlotCount(count, false);
      }
      count++;
      cursor = next.get();
    }
  }

  static List<Instant> newest(
      Function<Instant, Optional<Instant>> nextAfter, int n, Instant floor, Instant ceiling) {
    if (n < 1) {
      return List.of();
    }
    Optional<Instant> latest = latestIn(nextAfter, floor, ceiling);
    if (latest.isEmpty()) {
      return List.of();
    }
    Instant end = latest.get();
    Duration window = FIRST_WINDOW;
    while (true) {
      // Compared as a span first: end - window may lie before Instant.MIN for a far-past floor.
      Instant start =
          Duration.between(floor, end).compareTo(window) > 0 ? end.minus(window) : floor;
      Deque<Instant> kept = new ArrayDeque<>(n + 1);
      Instant cursor = start;
      for (Optional<Instant> next = nextAfter.apply(cursor);
          landsIn(next, end);
          next = nextAfter.apply(cursor)) {
        cursor = next.get();
        kept.addLast(cursor);
        if (kept.size() > n) {
          kept.removeFirst();
        }
      }
      if (kept.size() == n || start.equals(floor)) {
        return new ArrayList<>(kept);
      }
      window = window.multipliedBy(WINDOW_GROWTH);
    }
  }

  private static boolean landsIn(Optional<Instant> slot, Instant ceiling) {
    return slot.isPresent() && !slot.get().isAfter(ceiling);
  }
}
