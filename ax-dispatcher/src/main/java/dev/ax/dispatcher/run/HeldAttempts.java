package dev.ax.dispatcher.run;

import dev.ax.common.time.Clock;
import dev.ax.dispatcher.store.ClaimedInstance;
import dev.ax.dispatcher.store.RunKey;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The attempts an {@link AttemptRunner} holds: those in flight (queued or running, not settled),
 * counted against the runner's capacity, and those settled here whose row still waits for the
 * database. Both are what the dispatcher's lease renewer keeps alive ({@link #leased}).
 *
 * <p>Invariant: an attempt that settles with its row still to be written enters the settling set
 * before it leaves the in-flight map ({@link #settledAwaitingDatabase}), and {@link #leased} reads
 * the in-flight map first, so a renewal sees every such attempt in at least one of the two.
 *
 * <p>Thread-safe: concurrent maps and an atomic count, touched by submitting threads, workers, the
 * watchdog and the lease renewer. Which thread settles an attempt is decided by {@link
 * Attempt#settle()}, not here: each method that removes an attempt is called by the one settler.
 */
final class HeldAttempts {

  /** Threads plus queue: how many attempts may be in flight at once. */
  private final int capacity;

  private final AtomicInteger inFlight = new AtomicInteger();

  /** Attempts submitted and not settled: queued or running. */
  private final Map<RunKey, Attempt> running = new ConcurrentHashMap<>();

  /**
   * Attempts settled here whose row still waits for the database: their outcome handed to the sink,
   * or given back unstarted, and not yet known to be written. With the time each settled ({@link
   * Clock#millis}). Their leases are renewed like those of running attempts until {@link #lost}
   * says the row has moved on (or {@link #forgetSettledBefore} gives up on them): the recorder may
   * wait out a database outage, and a lease that lapsed meanwhile would let the reaper run an
   * attempt again that ran already.
   */
  private final Map<RunKey, Long> settling = new ConcurrentHashMap<>();

  HeldAttempts(int capacity) {
    this.capacity = capacity;
  }

  /** Holds {@code attempt}, just submitted, as in flight. */
  void add(Attempt attempt) {
    inFlight.incrementAndGet();
    running.put(attempt.key(), attempt);
  }

  /** The in-flight attempt {@code key}, or null. */
  Attempt get(RunKey key) {
    return running.get(key);
  }

  /** Lets go of in-flight attempt {@code key}, settled with nothing left to write for it. */
  void release(RunKey key) {
    inFlight.decrementAndGet();
    running.remove(key);
  }

  /**
   * Moves in-flight attempt {@code key}, settled at {@code settledAtMs}, to the settling set: its
   * lease is renewed until its row is seen to move on.
   */
  void settledAwaitingDatabase(RunKey key, long settledAtMs) {
    settling.put(key, settledAtMs);
    release(key);
  }

  /** Stops renewing the lease of settled attempt {@code key}: its row moved on. */
  void lost(RunKey key) {
    settling.remove(key);
  }

  /** The attempts whose run leases must be kept alive (see the class comment for the order). */
  Set<RunKey> leased() {
    Set<RunKey> all = new HashSet<>(running.keySet());
    all.addAll(settling.keySet());
    return all;
  }

  /**
   * Stops renewing the leases of the attempts settled at or before {@code cutoffMs}.
   *
   * @return the attempts forgotten
   */
  List<RunKey> forgetSettledBefore(long cutoffMs) {
    List<RunKey> forgotten = new ArrayList<>();
    settling.forEach(
        (key, settledAtMs) -> {
          if (settledAtMs <= cutoffMs && settling.remove(key, settledAtMs)) {
            forgotten.add(key);
          }
        });
    return forgotten;
  }

  /** Attempts in flight (running or queued). */
  int inFlight() {
    return inFlight.get();
  }

  /** Attempts that can still be taken without queueing beyond the capacity. */
  int freeCapacity() {
    return capacity - inFlight.get();
  }

  /**
   * Settles and lets go of the in-flight attempts whose runs {@code dequeued} holds: taken off the
   * queue by {@code shutdownNow}, so they can never run (a queued run is the very future the runner
   * queued for the attempt).
   *
   * @return the claims of those attempts, never started
   */
  List<ClaimedInstance> settleNeverStarted(List<Runnable> dequeued) {
    if (dequeued.isEmpty()) {
      return List.of();
    }
    Set<Runnable> neverRun = Collections.newSetFromMap(new IdentityHashMap<>());
    neverRun.addAll(dequeued);
    List<ClaimedInstance> unstarted = new ArrayList<>();
    for (Attempt attempt : running.values()) {
      Future<?> run = attempt.run().get();
      if (run instanceof Runnable queued && neverRun.contains(queued) && attempt.settle()) {
        attempt.cancelTimer();
        release(attempt.key());
        unstarted.add(attempt.claimed());
      }
    }
    return unstarted;
  }
}
