package dev.ax.dispatcher;

import dev.ax.common.store.ClaimedInstance;
import dev.ax.common.thread.DaemonThreads;
import dev.ax.common.time.Clock;
import dev.ax.common.time.SaturatingMillis;
import dev.ax.dispatcher.run.Bulkheads;
import dev.ax.dispatcher.store.RunKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Extends the lease of every run in progress every third of a lease (at least every second), so
 * that only runs whose dispatcher died are taken back by the reaper, however long they run. When
 * some were not renewed, it asks which of those were CANCELLED meanwhile (a CANCEL with {@code
 * "interrupt": true}) and interrupts their attempts: the one moment a dispatcher learns of it.
 *
 * <p>It also gives back the claimed attempts that waited in their pool's queue past its bound
 * ({@link #giveBack}): RUNNING → DISPATCHED as the same attempt, at once and again at each renewal
 * until the database takes it.
 *
 * <p>Threading: its own scheduler thread does every renewal and give-back; it reads the running
 * attempts from the thread-safe {@link Bulkheads}, takes give-backs through a concurrent queue and
 * shares nothing else. {@link #giveBack} and {@link #close()} from any thread.
 */
final class LeaseRenewer implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(LeaseRenewer.class);

  /** Set by {@link #start}, before the thread's first task (which the executor orders after it). */
  private Bulkheads bulkheads;

  private final RunLeases leases;
  private final Clock clock;
  private final ScheduledExecutorService timer =
      DaemonThreads.scheduler("ax-dispatcher-lease-renewal");
  private final Queue<ClaimedInstance> toGiveBack = new ConcurrentLinkedQueue<>();

  /** A renewer of {@code leases}; it renews the runs of the pools {@link #start} gives it. */
  LeaseRenewer(RunLeases leases, Clock clock) {
    this.leases = leases;
    this.clock = clock;
  }

  /**
   * Starts renewing the leases of the attempts {@code bulkheads} run. (Given here, not at
   * construction: the pools give their unstarted attempts back through this renewer.)
   */
  void start(Bulkheads bulkheads) {
    this.bulkheads = bulkheads;
    long renewEveryMs = Math.max(1000, SaturatingMillis.toMillis(leases.lease()) / 3);
    timer.scheduleWithFixedDelay(
        this::renewQuietly, renewEveryMs, renewEveryMs, TimeUnit.MILLISECONDS);
  }

  /**
   * Gives back {@code claimed}, an attempt that never started here, on this renewer's thread; any
   * thread, returns at once.
   */
  void giveBack(ClaimedInstance claimed) {
    toGiveBack.add(claimed);
    try {
      timer.execute(this::giveBackQuietly);
    } catch (RejectedExecutionException e) {
      // Stopped: the row is taken back after its lease, as after a crash.
    }
  }

  /** Releases the attempts waiting to be given back; those the database did not take wait on. */
  private void giveBackQuietly() {
    List<ClaimedInstance> batch = new ArrayList<>();
    ClaimedInstance next;
    while ((next = toGiveBack.poll()) != null) {
      batch.add(next);
    }
    if (batch.isEmpty()) {
      return;
    }
    try {
      List<String> released = leases.releaseUnstarted(batch, clock.millis());
      log.info(
          "Gave back {} of {} claimed attempt(s) that waited past the queue bound; the reaper"
              + " emits them again after AX_REAPER_UNCLAIMED_AFTER",
          released.size(),
          batch.size());
    } catch (RuntimeException e) {
      toGiveBack.addAll(batch);
      log.warn(
          "Could not give back {} claimed attempt(s) never started; retrying at the next renewal:"
              + " {}",
          batch.size(),
          e.toString());
    }
  }

  private void renewQuietly() {
    giveBackQuietly();
    try {
      Set<RunKey> runs = bulkheads.running();
      int renewed = leases.renew(runs, clock.millis());
      if (renewed < runs.size()) {
        log.debug(
            "{} of {} run lease(s) not renewed: those runs finished, were taken back or cancelled",
            runs.size() - renewed,
            runs.size());
        for (RunKey cancelled : leases.cancelledAmong(runs)) {
          bulkheads.interrupt(cancelled, "its instance was cancelled (CANCEL with interrupt)");
        }
      }
    } catch (RuntimeException e) {
      log.warn("Could not renew run leases; retrying at the next interval: {}", e.toString());
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
