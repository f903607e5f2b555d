package dev.ax.dispatcher.lease;

import dev.ax.common.thread.DaemonThreads;
import dev.ax.common.time.Clock;
import dev.ax.common.time.SaturatingMillis;
import dev.ax.dispatcher.run.Bulkheads;
import dev.ax.dispatcher.store.ClaimStore.LeaseRenewal;
import dev.ax.dispatcher.store.ClaimedInstance;
import dev.ax.dispatcher.store.RunKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps this dispatcher's run leases honest. The rules:
 *
 * <ul>
 *   <li><b>What is renewed:</b> every attempt queued or running here, and every attempt settled
 *       here whose outcome (or give-back) the database has not been seen to take yet ({@link
 *       Bulkheads#leased}). An attempt leaves the set when a renewal finds its row no longer
 *       RUNNING at that attempt for this node.
 *   <li><b>When:</b> every third of a lease (at least every second) while renewals succeed; after a
 *       failed one, every {@link #RETRY_AFTER_FAILURE}, so the first renewal after the database
 *       answers again comes within about a second of its return, not a third of a lease later.
 *   <li><b>Where:</b> on this renewer's own thread and its own small pool of connections ({@link
 *       Leases}, wired by the stage), never behind the stage's work for a connection.
 *   <li><b>Learning a run is lost:</b> a renewal that does not extend a lease says why (recorded,
 *       cancelled, taken back); an attempt still running or queued here is then interrupted like a
 *       timeout and nothing is recorded for it: its row is someone else's.
 *   <li><b>Giving up on an unrecorded outcome:</b> an attempt settled here that the database has
 *       not seen recorded after it answered every renewal for a full lease is no longer renewed
 *       (the recorder dropped it); the reaper takes it back once its lease ends, as after a crash.
 * </ul>
 *
 * <p>It also gives back the claimed attempts that waited in their pool's queue past its bound
 * ({@link #giveBack}): RUNNING → DISPATCHED as the same attempt, at once and again at each pass
 * until the database takes it.
 *
 * <p>Threading: its own scheduler thread does every renewal and give-back; it reads the leased
 * attempts from the thread-safe {@link Bulkheads}, takes give-backs through a concurrent queue and
 * shares nothing else. {@link #giveBack} and {@link #close()} from any thread.
 */
public final class LeaseRenewer implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(LeaseRenewer.class);

  /** How soon a pass is tried again after one that failed to reach the database. */
  static final Duration RETRY_AFTER_FAILURE = Duration.ofSeconds(1);

  /** What the renewer needs of the database: {@link RunLeases} in a stage, a fake in tests. */
  interface Leases {

    /** How long a renewal holds a run. */
    Duration lease();

    /** Extends the leases of {@code runs} still held; says which are not (and why). */
    LeaseRenewal renew(Collection<RunKey> runs, long nowMs);

    /** Gives back claims that never started; returns the instance ids given back. */
    List<String> releaseUnstarted(Collection<ClaimedInstance> unstarted, long nowMs);
  }

  private final Leases leases;
  private final Clock clock;
  private final long leaseMs;
  private final long renewEveryMs;
  private final ScheduledExecutorService timer =
      DaemonThreads.scheduler("ax-dispatcher-lease-renewal");
  private final Queue<ClaimedInstance> toGiveBack = new ConcurrentLinkedQueue<>();

  /** Set by {@link #start}, before the thread's first task (which the executor orders after it). */
  private Bulkheads bulkheads;

  /**
   * Renewer thread only: since when every pass that used the database reached it; {@link
   * #UNREACHABLE} after a failure until the next success.
   */
  private long reachableSinceMs = UNREACHABLE;

  /** Renewer thread only: whether the last renewal failed (its streak is logged once). */
  private boolean failing;

  private static final long UNREACHABLE = Long.MIN_VALUE;

  /** A renewer of {@code leases}; it renews the runs of the pools {@link #start} gives it. */
  public LeaseRenewer(Leases leases, Clock clock) {
    this.leases = leases;
    this.clock = clock;
    this.leaseMs = SaturatingMillis.toMillis(leases.lease());
    this.renewEveryMs = Math.max(1000, leaseMs / 3);
  }

  /**
   * Starts renewing the leases of the attempts {@code bulkheads} run. (Given here, not at
   * construction: the pools give their unstarted attempts back through this renewer.)
   */
  public void start(Bulkheads bulkheads) {
    this.bulkheads = bulkheads;
    schedule(renewEveryMs);
  }

  private void schedule(long delayMs) {
    try {
      timer.schedule(this::pass, delayMs, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      // Closed: no further pass.
    }
  }

  /**
   * Gives back {@code claimed}, an attempt that never started here, on this renewer's thread; any
   * thread, returns at once.
   */
  public void giveBack(ClaimedInstance claimed) {
    toGiveBack.add(claimed);
    try {
      timer.execute(this::giveBackQuietly);
    } catch (RejectedExecutionException e) {
      // Stopped: the row is taken back after its lease, as after a crash.
    }
  }

  /** One pass: give-backs, then renewals; the next pass sooner if this one failed. */
  private void pass() {
    boolean reached = giveBackQuietly() & renewQuietly();
    schedule(reached ? renewEveryMs : SaturatingMillis.toMillis(RETRY_AFTER_FAILURE));
  }

  /**
   * Releases the attempts waiting to be given back; those the database did not take wait for the
   * next pass. Returns false when it could not reach the database.
   */
  private boolean giveBackQuietly() {
    List<ClaimedInstance> batch = new ArrayList<>();
    ClaimedInstance next;
    while ((next = toGiveBack.poll()) != null) {
      batch.add(next);
    }
    if (batch.isEmpty()) {
      return true;
    }
    try {
      List<String> released = leases.releaseUnstarted(batch, clock.millis());
      log.info(
          "Gave back {} of {} claimed attempt(s) that waited past the queue bound; the reaper"
              + " emits them again after AX_REAPER_UNCLAIMED_AFTER",
          released.size(),
          batch.size());
      return true;
    } catch (RuntimeException e) {
      toGiveBack.addAll(batch);
      log.warn(
          "Could not give back {} claimed attempt(s) never started; retrying in {} ms: {}",
          batch.size(),
          RETRY_AFTER_FAILURE.toMillis(),
          e.toString());
      return false;
    }
  }

  /** Renews the leases; returns false when it could not reach the database. */
  private boolean renewQuietly() {
    Set<RunKey> runs = bulkheads.leased();
    if (runs.isEmpty()) {
      return true; // nothing to keep, and nothing learned about the database
    }
    long nowMs = clock.millis();
    LeaseRenewal renewal;
    try {
      renewal = leases.renew(runs, nowMs);
    } catch (RuntimeException e) {
      if (!failing) {
        log.warn(
            "Could not renew {} run lease(s); trying again every {} ms until the database"
                + " answers: {}",
            runs.size(),
            RETRY_AFTER_FAILURE.toMillis(),
            e.toString());
      }
      failing = true;
      reachableSinceMs = UNREACHABLE;
      return false;
    }
    if (failing) {
      log.info("Renewed {} run lease(s) again: the database answers", renewal.renewed());
      failing = false;
    }
    if (reachableSinceMs == UNREACHABLE) {
      reachableSinceMs = nowMs;
    }
    for (Map.Entry<RunKey, String> lost : renewal.lost().entrySet()) {
      RunKey run = lost.getKey();
      if (bulkheads.lost(run, lost.getValue())) {
        log.warn(
            "{} attempt {} is no longer this dispatcher's ({}): interrupted, nothing recorded",
            run.instanceId(),
            run.attempt(),
            lost.getValue());
      }
    }
    if (nowMs - reachableSinceMs >= leaseMs) {
      giveUpOnUnrecorded(nowMs);
    }
    return true;
  }

  /**
   * Stops renewing attempts settled a lease ago or more whose outcome is still not recorded, though
   * the database answered every renewal meanwhile: the recorder dropped them.
   */
  private void giveUpOnUnrecorded(long nowMs) {
    List<RunKey> forgotten = bulkheads.forgetSettledBefore(nowMs - leaseMs);
    if (!forgotten.isEmpty()) {
      log.warn(
          "{} attempt(s) ended here over a lease ago and their outcome is still not recorded,"
              + " though the database answered all along (e.g. {}): their leases are no longer"
              + " renewed and the reaper takes them back",
          forgotten.size(),
          forgotten.get(0));
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
