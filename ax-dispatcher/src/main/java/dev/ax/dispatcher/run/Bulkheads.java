package dev.ax.dispatcher.run;

import dev.ax.common.time.Clock;
import dev.ax.dispatcher.store.ClaimedInstance;
import dev.ax.dispatcher.store.RunKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;

/**
 * One bounded {@link AttemptRunner} per task group, so a group of slow tasks fills only its own
 * pool and cannot starve the others. Pool sizes come from {@code AX_DISPATCHER_GROUP_THREADS}
 * ({@code group=threads,...}), other groups get the default size; every pool has the same queue
 * bound. Pools are created on first use.
 *
 * <h2>Bounded</h2>
 *
 * The group names come from producers, so nothing here may grow with them:
 *
 * <ul>
 *   <li>At most {@code maxGroups} task groups get a pool of their own, the first ones seen (they
 *       keep it for the life of the dispatcher). Every later group shares the one {@link
 *       #OVERFLOW_GROUP} pool: it still runs, only without isolation from the other latecomers.
 *       Raise {@code AX_DISPATCHER_MAX_GROUPS} when that matters. A group named in {@code
 *       AX_DISPATCHER_GROUP_THREADS} always has its own pool, outside the cap (the operator chose
 *       it, and a producer's new groups must not take it away).
 *   <li>Worker threads end when idle for {@code idleKeepAlive}, so an idle group costs no thread.
 *   <li>All pools share one watchdog thread for attempts' timeouts.
 * </ul>
 *
 * So there are at most {@code maxGroups + 2} pools, plus the configured ones, ({@link
 * #RETRY_GROUP}, {@link #OVERFLOW_GROUP}) and one watchdog, whatever the number of groups.
 *
 * <h2>Pool names</h2>
 *
 * Names beginning with {@code __} are AX's own. A task group is turned into its pool's name by
 * {@link #poolFor}, which never returns {@link #RETRY_GROUP} for a task group: a task whose group
 * is reserved (the command reader rejects those, but a stored task may predate it) runs in the
 * overflow pool, never in the retry pool. {@link #runnerFor} takes pool names.
 *
 * <p>Thread-safe.
 */
public final class Bulkheads {

  /** The pool retried attempts run in, whatever their task's group. */
  public static final String RETRY_GROUP = "__retry";

  /** The pool shared by the task groups beyond {@code maxGroups} and by reserved names. */
  public static final String OVERFLOW_GROUP = "__overflow";

  /** The prefix of AX's internal pool names; no task group gets a pool of such a name. */
  public static final String RESERVED_PREFIX = "__";

  private final Clock clock;
  private final BulkheadLimits limits;
  private final Consumer<Completion> sink;
  private final QueueBound queueBound;
  private final ScheduledExecutorService watchdog = AttemptWatchdog.newTimers();

  /** Task groups with a pool of their own; at most {@code maxGroups}, never removed. */
  private final Set<String> ownPools = ConcurrentHashMap.newKeySet();

  private final Object admission = new Object();
  private final ConcurrentHashMap<String, AttemptRunner> runners = new ConcurrentHashMap<>();

  /**
   * @param limits the pools' sizes, queue bound, idle keep-alive and the cap on task groups
   * @param queueBound how long a claimed attempt may wait in any pool's queue before it starts
   */
  public Bulkheads(
      Clock clock, BulkheadLimits limits, QueueBound queueBound, Consumer<Completion> sink) {
    this.clock = clock;
    this.limits = limits;
    this.sink = sink;
    this.queueBound = queueBound;
  }

  /**
   * The pool a task of {@code taskGroup} runs in: its own while fewer than {@code maxGroups} groups
   * have one (or it has one already), else {@link #OVERFLOW_GROUP}; a reserved name ({@code __...})
   * always gets the overflow pool.
   */
  public String poolFor(String taskGroup) {
    if (taskGroup == null || taskGroup.startsWith(RESERVED_PREFIX)) {
      return OVERFLOW_GROUP;
    }
    if (ownPools.contains(taskGroup) || limits.threadsByGroup().containsKey(taskGroup)) {
      return taskGroup; // a group the operator sized always has its pool, outside the cap
    }
    synchronized (admission) { // check and add as one step, so the cap holds under races
      if (ownPools.size() < limits.maxGroups()) {
        ownPools.add(taskGroup);
        return taskGroup;
      }
    }
    return OVERFLOW_GROUP;
  }

  /**
   * The runner of a pool. {@code pool} is a name from {@link #poolFor} or {@link #RETRY_GROUP}; any
   * other name goes through {@link #poolFor} first, so no caller can create a pool beyond the cap.
   */
  public AttemptRunner runnerFor(String pool) {
    String name = pool.equals(RETRY_GROUP) || pool.equals(OVERFLOW_GROUP) ? pool : poolFor(pool);
    return runners.computeIfAbsent(
        name,
        g ->
            new AttemptRunner(
                clock,
                limits.threadsOf(g),
                limits.queuePerGroup(),
                limits.idleKeepAlive(),
                watchdog,
                queueBound,
                sink));
  }

  public int freeCapacity(String pool) {
    return runnerFor(pool).freeCapacity();
  }

  /** Attempts of a pool started or queued and not yet settled. */
  public int inFlight(String pool) {
    return runnerFor(pool).inFlight();
  }

  /** Pools created so far (at most {@code maxGroups + 2}). */
  public int pools() {
    return runners.size();
  }

  /** Worker threads alive now, over all pools. */
  public int liveWorkerThreads() {
    int threads = 0;
    for (AttemptRunner runner : runners.values()) {
      threads += runner.liveThreads();
    }
    return threads;
  }

  /**
   * Every attempt whose run lease must be kept alive, in any pool ({@link AttemptRunner#leased}).
   */
  public Set<RunKey> leased() {
    Set<RunKey> all = new HashSet<>();
    runners.values().forEach(r -> all.addAll(r.leased()));
    return all;
  }

  /**
   * The row of {@code run} is no longer this dispatcher's: see {@link AttemptRunner#lost}; whether
   * it was still running or queued here (and is now interrupted, nothing recorded).
   */
  public boolean lost(RunKey run, String why) {
    boolean interrupted = false;
    for (AttemptRunner runner : runners.values()) {
      interrupted |= runner.lost(run, why);
    }
    return interrupted;
  }

  /** See {@link AttemptRunner#forgetSettledBefore}, over every pool. */
  public List<RunKey> forgetSettledBefore(long cutoffMs) {
    List<RunKey> forgotten = new ArrayList<>();
    runners.values().forEach(r -> forgotten.addAll(r.forgetSettledBefore(cutoffMs)));
    return forgotten;
  }

  /**
   * Lets running attempts finish within {@code grace} (shared by all groups), then stops.
   *
   * @return the attempts still queued when the grace ran out, never started (see {@link
   *     AttemptRunner#shutdown})
   */
  public List<ClaimedInstance> shutdown(Duration grace) {
    long deadlineNanos = System.nanoTime() + grace.toNanos();
    List<ClaimedInstance> unstarted = new ArrayList<>();
    for (AttemptRunner runner : runners.values()) {
      long leftNanos = Math.max(0, deadlineNanos - System.nanoTime());
      unstarted.addAll(runner.shutdown(Duration.ofNanos(leftNanos)));
    }
    watchdog.shutdownNow();
    return unstarted;
  }
}
