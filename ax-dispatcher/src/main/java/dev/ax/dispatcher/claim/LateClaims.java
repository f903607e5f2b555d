package dev.ax.dispatcher.claim;

import dev.ax.common.time.SaturatingMillis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * Held events not due yet on this node's clock: emitted ahead by the ticker ({@code
 * AX_TICKER_EMIT_AHEAD}), or lost a claim because the ticker's clock is a little ahead. They are
 * claimed at their due time instead of now (the claim would lose) or by the reaper. Only those due
 * within {@link #MAX_WAIT}: an event due further ahead is not clock skew but a bogus or foreign
 * message, and holding it until then would be memory nobody bounds; the reaper re-emits its
 * instance if it really is unclaimed.
 *
 * <p>Not thread-safe: confined to the {@link ClaimLoop}'s thread.
 */
final class LateClaims {

  /** The furthest ahead of this node's clock a due event may be and still get a timed re-claim. */
  static final Duration MAX_WAIT = Duration.ofSeconds(60);

  private final PriorityQueue<PooledEvent> byDue =
      new PriorityQueue<>(Comparator.comparingLong(p -> p.event().dueAtMs()));

  /**
   * Keeps {@code event} for a claim at its due time; false (and nothing kept) when it is due
   * already or further ahead than {@link #MAX_WAIT}.
   */
  boolean add(PooledEvent event, long nowMs) {
    long delayMs = SaturatingMillis.subtract(event.event().dueAtMs(), nowMs);
    if (delayMs <= 0 || delayMs > MAX_WAIT.toMillis()) {
      return false;
    }
    byDue.add(event);
    return true;
  }

  /** Removes and returns the events due by {@code nowMs}, oldest due first. */
  List<PooledEvent> takeDue(long nowMs) {
    List<PooledEvent> due = new ArrayList<>();
    while (!byDue.isEmpty() && byDue.peek().event().dueAtMs() <= nowMs) {
      due.add(byDue.poll());
    }
    return due;
  }

  /** Removes and returns every event kept, due or not (for a hand-back). */
  List<PooledEvent> takeAll() {
    List<PooledEvent> all = new ArrayList<>(byDue);
    byDue.clear();
    return all;
  }

  /** The due time of the next event, or {@link Long#MAX_VALUE} when none waits. */
  long nextDueMs() {
    return byDue.isEmpty() ? Long.MAX_VALUE : byDue.peek().event().dueAtMs();
  }

  int size() {
    return byDue.size();
  }
}
