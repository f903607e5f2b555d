package dev.ax.ticker;

import dev.ax.common.store.DueInstance;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The first ticker's due-time structure: instances ordered by due time, each held once.
 *
 * <p>Threading: one owning thread (the ticker's firing thread) calls {@link #drainHandOff}, {@link
 * #takeDue}, {@link #awaitHandOff} and {@link #release}; any thread may {@link #offer}. Offers go
 * through a bounded hand-off queue, so the ordered structure itself needs no lock. An offer that
 * finds the hand-off queue full, or the structure at {@code maxHeld}, is dropped: the instance
 * stays SCHEDULED in the database and the next load brings it back.
 *
 * <p>Replaced by the hierarchical time wheel in the ticker issue; the contract stays.
 */
final class DueQueue {

  private static final Comparator<DueInstance> BY_DUE_TIME =
      Comparator.comparingLong(DueInstance::dueAtMs).thenComparing(DueInstance::instanceId);

  private final BlockingQueue<DueInstance> handOff;
  private final PriorityQueue<DueInstance> ordered = new PriorityQueue<>(BY_DUE_TIME);
  private final Set<String> held = new HashSet<>();
  private final int maxHeld;

  DueQueue(int maxHeld) {
    if (maxHeld < 1) {
      throw new IllegalArgumentException("maxHeld must be positive: " + maxHeld);
    }
    this.maxHeld = maxHeld;
    this.handOff = new ArrayBlockingQueue<>(Math.min(maxHeld, 65_536));
  }

  /** Any thread. Returns false when dropped (the database still has it). */
  boolean offer(DueInstance instance) {
    return handOff.offer(instance);
  }

  /** Owner thread: moves handed-off instances into the ordered structure. */
  void drainHandOff() {
    DueInstance next;
    while ((next = handOff.poll()) != null) {
      add(next);
    }
  }

  /** Owner thread: waits up to {@code maxWaitMs} for an offer, then drains. */
  void awaitHandOff(long maxWaitMs) throws InterruptedException {
    if (maxWaitMs > 0) {
      DueInstance first = handOff.poll(maxWaitMs, TimeUnit.MILLISECONDS);
      if (first != null) {
        add(first);
      }
    }
    drainHandOff();
  }

  private void add(DueInstance instance) {
    if (held.size() >= maxHeld || !held.add(instance.instanceId())) {
      return;
    }
    ordered.add(instance);
  }

  /**
   * Owner thread: removes and returns up to {@code max} instances due at or before {@code nowMs},
   * oldest first. They stay "held" (re-offers are ignored) until {@link #release}.
   */
  List<DueInstance> takeDue(long nowMs, int max) {
    List<DueInstance> due = new ArrayList<>();
    while (due.size() < max && !ordered.isEmpty() && ordered.peek().dueAtMs() <= nowMs) {
      due.add(ordered.poll());
    }
    return due;
  }

  /** Owner thread: forgets instances that were fired (or lost to someone else). */
  void release(List<DueInstance> fired) {
    for (DueInstance instance : fired) {
      held.remove(instance.instanceId());
    }
  }

  /** Owner thread: puts back instances whose firing failed, to try again. */
  void putBack(List<DueInstance> instances) {
    ordered.addAll(instances);
  }

  /** Owner thread: the due time of the earliest held instance, or {@link Long#MAX_VALUE}. */
  long nextDueAtMs() {
    DueInstance first = ordered.peek();
    return first == null ? Long.MAX_VALUE : first.dueAtMs();
  }

  /** Owner thread: forgets everything (leadership lost); the database still has it all. */
  void clear() {
    handOff.clear();
    ordered.clear();
    held.clear();
  }

  int size() {
    return held.size();
  }
}
