package dev.ax.bench;

import java.time.Duration;

/**
 * What {@code ax bench --history} loads before the measured workload: {@code rows} finished ONCE
 * tasks, each with its instance (SUCCESS) and the audit rows a successful run writes, finished
 * evenly over the last {@code retention}; {@code expiredPercent} of them finished up to an hour
 * before that, so retention has rows to delete while the workload runs and its rate can be read.
 * Immutable.
 *
 * @param rows finished instances (and as many ENDED tasks) to load; 0 loads nothing
 * @param expiredPercent the share, 0..100, already past the retention cutoff
 * @param retention {@code AX_RETENTION}; when it is 0 (retention off), 30 days
 */
record BenchHistory(long rows, int expiredPercent, Duration retention) {

  /** The most rows {@code --history} takes. */
  static final long MAX_ROWS = 200_000_000L;

  /** Expired rows finished within this span past the cutoff, oldest first. */
  static final Duration EXPIRED_SPAN = Duration.ofHours(1);

  /**
   * The youngest row finished this long ago (half the retention if that is shorter): older than any
   * measured run's rows.
   */
  static final Duration YOUNGEST = Duration.ofMinutes(1);

  private static final Duration NO_RETENTION_SPREAD = Duration.ofDays(30);

  BenchHistory {
    if (rows < 0 || rows > MAX_ROWS) {
      throw new IllegalArgumentException("rows must be in 0.." + MAX_ROWS + ": " + rows);
    }
    if (expiredPercent < 0 || expiredPercent > 100) {
      throw new IllegalArgumentException("expiredPercent must be in 0..100: " + expiredPercent);
    }
    if (retention.isZero()) {
      retention = NO_RETENTION_SPREAD;
    }
  }

  boolean asked() {
    return rows > 0;
  }

  /** How many rows finished before the retention cutoff. */
  long expiredRows() {
    return rows * expiredPercent / 100;
  }

  /**
   * How long ago row {@code index} (0 = the oldest) finished: the expired rows spread over the hour
   * past the cutoff, the others evenly from just inside the cutoff to a minute ago. Never increases
   * with the index.
   */
  long ageMs(long index) {
    long expired = expiredRows();
    long retentionMs = retention.toMillis();
    if (index < expired) {
      return retentionMs + EXPIRED_SPAN.toMillis() * (expired - index) / expired;
    }
    long live = rows - expired;
    long youngestMs = Math.min(YOUNGEST.toMillis(), retentionMs / 2);
    long spanMs = Math.max(0, retentionMs - youngestMs - 1);
    return retentionMs - 1 - spanMs * (index - expired) / live;
  }
}
