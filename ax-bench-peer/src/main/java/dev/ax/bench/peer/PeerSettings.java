package dev.ax.bench.peer;

import com.github.kagkarlsson.scheduler.SchedulerBuilder;
import java.time.Duration;
import java.util.Locale;

/**
 * How db-scheduler is tuned for the comparison: its two polling strategies, an executor of {@code
 * threads} and a polling interval. The defaults are the throughput settings db-scheduler's README
 * recommends for MySQL 8 and MariaDB (lock-and-fetch with {@code SELECT ... FOR UPDATE SKIP
 * LOCKED}, lower limit half the threads, upper limit all of them) with 20 threads and a 10 ms poll.
 * Immutable.
 *
 * @param poolSize connections in the peer's HikariCP pool: one per executor thread and two more for
 *     the poller and the housekeeper, so that no execution waits for a connection
 */
public record PeerSettings(Strategy strategy, int threads, Duration pollingInterval, int poolSize) {

  /** db-scheduler's two polling strategies. */
  public enum Strategy {
    /** {@code pollUsingFetchAndLockOnExecute(0.5, 3.0)}: fetch due rows, lock each on execute. */
    FETCH,
    /** {@code pollUsingLockAndFetch(0.5, 1.0)}: pick a batch in one statement, SKIP LOCKED. */
    LOCK_AND_FETCH;

    /** The name on the command line: {@code fetch} or {@code lock-and-fetch}. */
    public String cliName() {
      return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    static Strategy fromCliName(String name) {
      for (Strategy s : values()) {
        if (s.cliName().equals(name)) {
          return s;
        }
      }
      throw new IllegalArgumentException(
          "strategy must be fetch or lock-and-fetch, not '" + name + "'");
    }
  }

  public PeerSettings {
    if (threads < 1 || threads > 500) {
      throw new IllegalArgumentException("threads must be in 1..500: " + threads);
    }
    if (pollingInterval.isNegative() || pollingInterval.isZero()) {
      throw new IllegalArgumentException("pollingInterval must be positive: " + pollingInterval);
    }
    if (poolSize < 1) {
      throw new IllegalArgumentException("poolSize must be at least 1: " + poolSize);
    }
  }

  /** The settings for {@code threads} and {@code pollingInterval}, with a pool of threads + 2. */
  public static PeerSettings of(Strategy strategy, int threads, Duration pollingInterval) {
    return new PeerSettings(strategy, threads, pollingInterval, threads + 2);
  }

  /** Applies the strategy, threads and polling interval to a scheduler being built. */
  SchedulerBuilder applyTo(SchedulerBuilder builder) {
    builder.threads(threads).pollingInterval(pollingInterval);
    return switch (strategy) {
      case FETCH -> builder.pollUsingFetchAndLockOnExecute(0.5, 3.0);
      case LOCK_AND_FETCH -> builder.pollUsingLockAndFetch(0.5, 1.0);
    };
  }

  /** E.g. {@code lock-and-fetch, 20 threads, 10 ms polling, 22 connections}. */
  public String describe() {
    return String.format(
        Locale.ROOT,
        "%s, %d threads, %d ms polling, %d connections",
        strategy.cliName(),
        threads,
        pollingInterval.toMillis(),
        poolSize);
  }
}
