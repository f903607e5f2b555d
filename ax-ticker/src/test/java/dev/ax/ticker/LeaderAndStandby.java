package dev.ax.ticker;

import static org.awaitility.Awaitility.await;

import dev.ax.common.store.LeaseFence;
import dev.ax.common.store.LeaseStore;
import dev.ax.common.testing.TestRuntime;
import java.time.Duration;
import java.util.Map;

/**
 * Two tickers on one {@link TestRuntime}, as on two hosts: {@code ticker-a}, started first and
 * waited for until it holds the ticker lease, then {@code ticker-b}, its standby. {@link
 * #crashLeader()} stops the leader as a crash would, the lease not given up, and waits until the
 * standby holds it.
 *
 * <p>{@link #close()} stops the standby, and the leader too unless it was crashed. Not thread-safe:
 * started, crashed and closed by the test's thread.
 */
final class LeaderAndStandby implements AutoCloseable {

  /** A lease of 3 s renewed every 500 ms, and the window loaded every 200 ms: quick hand-overs. */
  static final Map<String, String> FAST_FAILOVER =
      Map.of(
          "AX_TICKER_LEASE", "3s",
          "AX_TICKER_HEARTBEAT", "500ms",
          "AX_TICKER_LOAD_INTERVAL", "200ms");

  /** Bound on taking the lease: the first load, or a lease expiry plus a heartbeat, and margin. */
  private static final Duration LEASE_TAKEN_WITHIN = Duration.ofSeconds(20);

  private final LeaseStore leases;
  private final TickerStage leader;
  private final TickerStage standby;
  private boolean leaderCrashed;

  private LeaderAndStandby(LeaseStore leases, TickerStage leader, TickerStage standby) {
    this.leases = leases;
    this.leader = leader;
    this.standby = standby;
  }

  /** Starts {@code ticker-a}, waits until it leads, then starts {@code ticker-b}. */
  /**
   * The runtime's {@code AX_TICKER_EMIT_AHEAD} in ms: a due event may be emitted that long before
   * its due time (only the claim waits for the due time), so the tickers' tests allow it and no
   * more.
   */
  static long emitAheadMs(TestRuntime runtime) {
    return TickerConfig.from(runtime.config()).emitAhead().toMillis();
  }

  static LeaderAndStandby start(TestRuntime runtime) {
    LeaseStore leases = new LeaseStore(runtime.dataSource());
    TickerStage leader =
        new TickerStage(runtime.context("ticker-a"), TickerConfig.from(runtime.config())).start();
    try {
      awaitHolder(leases, "ticker-a");
    } catch (RuntimeException e) {
      leader.close();
      throw e;
    }
    TickerStage standby =
        new TickerStage(runtime.context("ticker-b"), TickerConfig.from(runtime.config())).start();
    return new LeaderAndStandby(leases, leader, standby);
  }

  /** Halts the leader without giving up its lease, and waits until the standby holds the lease. */
  void crashLeader() {
    leader.halt();
    leaderCrashed = true;
    awaitHolder(leases, "ticker-b");
  }

  @Override
  public void close() {
    try {
      standby.close();
    } finally {
      if (!leaderCrashed) {
        leader.close();
      }
    }
  }

  private static void awaitHolder(LeaseStore leases, String nodeId) {
    await()
        .atMost(LEASE_TAKEN_WITHIN)
        .until(
            () ->
                leases
                    .current(LeaseFence.TICKER)
                    .map(LeaseStore.Lease::holder)
                    .orElse("")
                    .equals(nodeId));
  }
}
