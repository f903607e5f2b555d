package dev.ax.dispatcher.intake;

import dev.ax.common.store.LeaseFence;
import dev.ax.common.store.LeaseStore;
import dev.ax.common.time.Clock;

/**
 * The ticker epochs the intake has seen on {@code ax.task.due}: a due event from an older epoch
 * than the newest seen was sent by a leader that has since lost its lease, and is dropped (the new
 * leader emits its instance again if it is still unclaimed). A due event whose epoch is newer than
 * any lease ever had was not sent by a ticker, and must not make every real event look stale: a new
 * epoch is believed only once the ticker lease has held it.
 *
 * <p>Not thread-safe: confined to the consumer thread.
 */
final class TickerEpochs {

  /**
   * A new leader's first event within this long of a lease read is dropped too (its instance is
   * emitted again by the reaper): a flood of forged epochs costs ten reads a second.
   */
  private static final long LEASE_REREAD_MS = 100;

  private final LeaseStore leases;
  private final Clock clock;

  /** The newest ticker epoch seen on {@code ax.task.due}. */
  private long newestEpoch = -1;

  /** The ticker lease's epoch as last read. */
  private long leaseEpochRead = -1;

  /** When {@link #leaseEpochRead} was read. */
  private long leaseReadAtMs = Long.MIN_VALUE / 2;

  TickerEpochs(LeaseStore leases, Clock clock) {
    this.leases = leases;
    this.clock = clock;
  }

  /**
   * Takes note of {@code epoch}; false when it is newer than any ticker lease has held (reading the
   * lease only for a new epoch), so the event is to be skipped.
   */
  boolean admit(long epoch) {
    if (epoch <= newestEpoch) {
      return true;
    }
    if (!leaderHadEpoch(epoch)) {
      return false;
    }
    newestEpoch = epoch;
    return true;
  }

  /** Whether {@code epoch} is older than the newest admitted: its sender has lost its lease. */
  boolean isStale(long epoch) {
    return epoch < newestEpoch;
  }

  long newest() {
    return newestEpoch;
  }

  /** The ticker lease's epoch as last read, for the log of a skipped event. */
  long leaseEpochRead() {
    return leaseEpochRead;
  }

  private boolean leaderHadEpoch(long epoch) {
    if (epoch <= leaseEpochRead) {
      return true;
    }
    long nowMs = clock.millis();
    if (nowMs - leaseReadAtMs < LEASE_REREAD_MS) {
      return false;
    }
    leaseReadAtMs = nowMs;
    leaseEpochRead = Math.max(leaseEpochRead, leases.newestEpoch(LeaseFence.TICKER));
    return epoch <= leaseEpochRead;
  }
}
