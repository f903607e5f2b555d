package dev.ax.ticker.reaper;

import java.time.Duration;

/**
 * How long retention pauses between steps: {@code idle} (the reaper interval) once a cycle found
 * nothing more to delete, and between a standby's checks of its role; after a batch while behind,
 * as long as it takes to delete as fast as it may but never starves the live pipeline of the
 * database: at most {@code maxRowsPerSecond} rows a second ({@code AX_RETENTION_MAX_RATE}; rows of
 * the kinds the batches read, instances, tasks, ..., not the audit rows and dead letters that go
 * with an instance), and at most {@code busyPercent} of wall time in database work ({@code
 * AX_RETENTION_BUSY_PERCENT}). A batch that took {@code b} of database time and deleted {@code r}
 * rows is followed by a pause of {@code max(r / maxRate - b, b * (100 - busy) / busy)}: the longer
 * of what the rate cap and the busy cap ask for. At 100 % and a rate cap it cannot reach, batches
 * run back to back.
 *
 * <p>Immutable; thread-safe.
 */
public final class RetentionPace {

  private final int maxRowsPerSecond;
  private final int busyPercent;
  private final Duration idle;

  /**
   * @param maxRowsPerSecond most rows deleted a second, averaged over a batch and its pause
   * @param busyPercent share of wall time spent in batches, 1 to 100
   * @param idle the pause once caught up, and a standby's
   */
  public RetentionPace(int maxRowsPerSecond, int busyPercent, Duration idle) {
    if (maxRowsPerSecond < 1) {
      throw new IllegalArgumentException(
          "maxRowsPerSecond must be at least 1: " + maxRowsPerSecond);
    }
    if (busyPercent < 1 || busyPercent > 100) {
      throw new IllegalArgumentException("busyPercent must be 1 to 100: " + busyPercent);
    }
    this.maxRowsPerSecond = maxRowsPerSecond;
    this.busyPercent = busyPercent;
    this.idle = idle;
  }

  /** The pause once a cycle is caught up, and between a standby's checks of its role. */
  public Duration idle() {
    return idle;
  }

  /** The pause after a batch that deleted {@code rows} in {@code busy} of database time. */
  public Duration pauseAfter(int rows, Duration busy) {
    long busyNanos = Math.max(0, busy.toNanos());
    long forRateNanos = rows * 1_000_000_000L / maxRowsPerSecond - busyNanos;
    long forBusyNanos = busyNanos * (100 - busyPercent) / busyPercent;
    return Duration.ofNanos(Math.max(0, Math.max(forRateNanos, forBusyNanos)));
  }
}
