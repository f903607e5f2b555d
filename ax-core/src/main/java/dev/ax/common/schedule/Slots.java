package dev.ax.common.schedule;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The fire times ("slots") of a periodic trigger: a strictly increasing sequence of instants fixed
 * by the trigger alone, so every ticker computes the same slots and so the same instance ids
 * ({@code taskId@fireTimeMillis}).
 *
 * <p>Ranges are half-open, {@code (floor, ceiling]}: a slot equal to {@code floor} is the one
 * already handled, a slot equal to {@code ceiling} is in. Slots have millisecond precision (cron
 * slots whole seconds); instants with finer precision are compared as they are.
 *
 * <p>Implementations are immutable and thread-safe.
 */
public sealed interface Slots permits CronSchedule, FixedRateGrid, BoundedSlots {

  /** The first slot strictly after {@code after}; empty when there is none (a cron that ended). */
  Optional<Instant> nextAfter(Instant after);

  /** The latest slot in {@code (floor, ceiling]}; empty when the range holds none. */
  Optional<Instant> latestIn(Instant floor, Instant ceiling);

  /**
   * How many slots {@code (floor, ceiling]} holds. A cron can only count by walking its slots, so
   * it stops at {@code limit} and says the count is not exact; a fixed rate counts exactly.
   */
  SlotCount count(Instant floor, Instant ceiling, long limit);

  /** The newest (at most) {@code n} slots in {@code (floor, ceiling]}, oldest first. */
  List<Instant> newest(int n, Instant floor, Instant ceiling);
}
