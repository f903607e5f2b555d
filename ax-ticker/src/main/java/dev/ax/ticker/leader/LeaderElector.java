package dev.ax.ticker.leader;

import dev.ax.common.store.LeaseFence;
import dev.ax.common.store.LeaseStore;
import dev.ax.common.store.LeaseStore.Lease;
import dev.ax.common.store.StoreException;
import dev.ax.common.thread.DaemonThreads;
import dev.ax.ticker.TickerConfig;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps this node's claim on a database lease: a standby tries to acquire it every heartbeat; the
 * leader renews it every heartbeat. The lease's expiry and the fencing epoch live in the database
 * (see {@link LeaseStore}); locally the elector also keeps a deadline on the monotonic clock (last
 * successful renewal + lease − one heartbeat), so a leader cut off from the database stops acting
 * before its lease can expire there.
 *
 * <p>A renewal that cannot reach the database keeps the lease locally: past the local deadline the
 * node does not act, and the first renewal that reaches the database again either extends the lease
 * at the same epoch (nobody took it: a database restart longer than the lease keeps the leader,
 * with nothing to reload) or finds it taken and turns standby. The heartbeat runs on the stage's
 * control pool, whose borrows, connects and reads fail within a second, so a renewal never waits
 * behind the stage's own work or a database that is away.
 *
 * <p>{@link #fence()} is what the ticker asks before every batch: a fence only while this node is
 * leader by both measures. Every write it makes is conditional on that fence in the database too,
 * so a leader paused past its lease (GC, VM freeze) still writes nothing.
 *
 * <p>Threading: one thread ({@code ax-ticker-lease}) talks to the database; {@link #fence()} and
 * {@link #epoch()} are safe from any thread (one volatile state).
 */
public final class LeaderElector implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(LeaderElector.class);

  private record State(Lease lease, long localDeadlineNanos) {}

  private final LeaseStore leases;
  private final String leaseName;
  private final String nodeId;
  private final Duration leaseDuration;
  private final Duration heartbeat;
  private final LongSupplier nanoTime;
  private final Thread thread;
  private final CountDownLatch stopping = new CountDownLatch(1);
  private volatile State state;

  /** Whether a heartbeat has reached the database, and when the last one did (monotonic). */
  private volatile boolean roleKnown;

  private volatile long roleKnownAtNanos;

  /** When the current database outage began (first failed heartbeat), or {@link #NONE}. */
  private volatile long outageStartedNanos = NONE;

  /** When the last database outage ended (first heartbeat that reached it again), or NONE. */
  private volatile long reachableAgainNanos = NONE;

  private static final long NONE = Long.MIN_VALUE;

  /** How many times this node took the lease; written by the lease thread alone. */
  private volatile long acquisitions;

  /**
   * @param config gives the lease's duration ({@code AX_TICKER_LEASE}) and the heartbeat ({@code
   *     AX_TICKER_HEARTBEAT}), which {@link TickerConfig} holds shorter
   */
  public LeaderElector(
      LeaseStore leases,
      String leaseName,
      String nodeId,
      TickerConfig config,
      LongSupplier nanoTime) {
    this.leaseDuration = config.lease();
    this.heartbeat = config.heartbeat(); // shorter than the lease: TickerConfig refuses otherwise
    this.leases = leases;
    this.leaseName = leaseName;
    this.nodeId = nodeId;
    this.nanoTime = nanoTime;
    this.thread = DaemonThreads.thread("ax-ticker-lease", this::run);
  }

  public LeaderElector start() {
    thread.start();
    return this;
  }

  /** The fence to put on writes, or empty when this node must not act as leader now. */
  public Optional<LeaseFence> fence() {
    State current = state;
    if (current == null || nanoTime.getAsLong() - current.localDeadlineNanos >= 0) {
      return Optional.empty();
    }
    return Optional.of(new LeaseFence(leaseName, nodeId, current.lease.epoch()));
  }

  /** The epoch this node leads at, or -1 when it is not leader. */
  public long epoch() {
    return fence().map(LeaseFence::epoch).orElse(-1L);
  }

  /** How many times this node took the lease, the first election included (a hand-over each). */
  public long acquisitions() {
    return acquisitions;
  }

  private void run() {
    try {
      long stepNanos;
      do {
        long startNanos = nanoTime.getAsLong();
        step();
        stepNanos = nanoTime.getAsLong() - startNanos;
      } while (!stopping.await(waitAfterNanos(heartbeat, stepNanos), TimeUnit.NANOSECONDS));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** One heartbeat: acquire when standby, renew when leader. Package-private for tests. */
  void step() {
    State current = state;
    long startNanos = nanoTime.getAsLong();
    try {
      if (current == null) {
        Optional<Lease> acquired = leases.tryAcquire(leaseName, nodeId, leaseDuration);
        markRoleKnown(startNanos);
        if (acquired.isPresent()) {
          state = new State(acquired.get(), deadline(startNanos));
          acquisitions++;
          log.info(
              "{} is now the {} leader at epoch {}", nodeId, leaseName, acquired.get().epoch());
        }
        return;
      }
      Optional<Lease> renewed = leases.renew(current.lease, leaseDuration);
      markRoleKnown(startNanos);
      if (renewed.isPresent()) {
        state = new State(renewed.get(), deadline(startNanos));
      } else {
        state = null;
        log.warn(
            "{} lost the {} lease at epoch {}: back to standby",
            nodeId,
            leaseName,
            current.lease.epoch());
      }
    } catch (StoreException e) {
      if (outageStartedNanos == NONE) {
        outageStartedNanos = startNanos;
      }
      // The lease is kept: fence() is empty past the local deadline, and the next renewal that
      // reaches the database either gets it back at the same epoch or finds it taken.
      if (current != null && startNanos - current.localDeadlineNanos >= 0) {
        log.warn(
            "{} cannot reach the database to renew the {} lease at epoch {}: not acting as leader"
                + " until a renewal succeeds ({})",
            nodeId,
            leaseName,
            current.lease.epoch(),
            e.getMessage());
      } else {
        log.warn("{} lease heartbeat failed, will retry: {}", leaseName, e.getMessage());
      }
    }
  }

  private void markRoleKnown(long atNanos) {
    roleKnownAtNanos = atNanos;
    roleKnown = true;
    if (outageStartedNanos != NONE) {
      reachableAgainNanos = atNanos;
      outageStartedNanos = NONE;
    }
  }

  /**
   * True when this node's heartbeats have reached the database for at least {@code steady}, or it
   * has seen no failed heartbeat at all: what the reaper asks before it takes back a run whose
   * lease expired. A run's lease can expire while the database is away without its dispatcher being
   * dead; the dispatcher renews as soon as the database answers again, and needs a moment.
   */
  public boolean databaseSteadyFor(Duration steady) {
    if (outageStartedNanos != NONE) {
      return false;
    }
    long back = reachableAgainNanos;
    return back == NONE || nanoTime.getAsLong() - back >= steady.toNanos();
  }

  /**
   * Empty while this node knows whether it leads or stands by: a heartbeat reached the database
   * within the last lease duration. Else why not, for the readiness probe.
   */
  public Optional<String> roleUnknown() {
    if (!roleKnown) {
      return Optional.of("no lease heartbeat has reached the database yet");
    }
    long ageNanos = nanoTime.getAsLong() - roleKnownAtNanos;
    if (ageNanos > leaseDuration.toNanos()) {
      return Optional.of(
          "no lease heartbeat has reached the database for " + ageNanos / 1_000_000 + " ms");
    }
    return Optional.empty();
  }

  /**
   * How long to wait after a step that took {@code stepNanos}: heartbeats start one heartbeat
   * apart, not one heartbeat after the last ended. The local deadline counts from a renewal's
   * start, so waiting a whole heartbeat after a slow step (a connect to a database just restarted)
   * would let the fence lapse before the next renewal, and the node stop acting as leader for a
   * moment. A step that fails fast waits the rest of the heartbeat, so the loop never spins.
   */
  static long waitAfterNanos(Duration heartbeat, long stepNanos) {
    return Math.max(0, heartbeat.toNanos() - stepNanos);
  }

  /** Local deadline: the renewal started at {@code startNanos}, minus one heartbeat of margin. */
  private long deadline(long startNanos) {
    return startNanos + leaseDuration.minus(heartbeat).toNanos();
  }

  /** Stops the heartbeat and gives the lease up, so a standby takes over at its next heartbeat. */
  @Override
  public void close() {
    stopHeartbeat();
    State current = state;
    state = null;
    if (current != null) {
      try {
        leases.release(current.lease);
        log.info("{} released the {} lease", nodeId, leaseName);
      } catch (StoreException e) {
        log.warn(
            "Could not release the {} lease; it expires by itself: {}", leaseName, e.getMessage());
      }
    }
  }

  /**
   * Stops acting as leader at once without giving the lease up, as a crash would (the lease expires
   * in the database). For failover tests.
   */
  public void halt() {
    stopHeartbeat();
    state = null;
  }

  private void stopHeartbeat() {
    stopping.countDown();
    try {
      thread.join(heartbeat.multipliedBy(2).toMillis() + 5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
