package dev.ax.common.time;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The database's clock ({@code NOW(3)}), read through the local monotonic clock.
 *
 * <p>Every stage compares due times on one clock, the database's, so that nodes with skewed wall
 * clocks still agree. Asking the database for every reading would cost a round trip, so this clock
 * reads the database once (the anchor: database millis plus half the round trip, paired with {@link
 * System#nanoTime()}), then adds elapsed monotonic nanoseconds. It re-anchors periodically; a new
 * anchor never moves the clock backwards (it holds still instead until real time passes the last
 * reading).
 *
 * <p>Thread-safe: readings are lock-free; re-anchoring replaces one immutable anchor.
 */
public final class DatabaseClock implements Clock, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(DatabaseClock.class);
  private static final String NOW_SQL = "SELECT ROUND(UNIX_TIMESTAMP(NOW(3)) * 1000)";

  private record Anchor(long databaseMs, long nanos) {}

  private final DataSource dataSource;
  private volatile Anchor anchor;
  private final AtomicLong lastMs = new AtomicLong(Long.MIN_VALUE);
  private final ScheduledExecutorService reanchorer;

  private DatabaseClock(DataSource dataSource, Duration reanchorInterval) {
    this.dataSource = dataSource;
    this.anchor = readAnchor();
    this.reanchorer =
        Executors.newSingleThreadScheduledExecutor(
            runnable -> {
              Thread thread = new Thread(runnable, "ax-database-clock");
              thread.setDaemon(true);
              return thread;
            });
    long intervalMs = reanchorInterval.toMillis();
    reanchorer.scheduleWithFixedDelay(
        this::reanchor, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
  }

  /**
   * Anchors to the database now and re-anchors every {@code reanchorInterval}.
   *
   * @throws IllegalStateException if the database cannot be read (a stage cannot start without it)
   */
  public static DatabaseClock start(DataSource dataSource, Duration reanchorInterval) {
    if (reanchorInterval.isNegative() || reanchorInterval.isZero()) {
      throw new IllegalArgumentException("reanchorInterval must be positive: " + reanchorInterval);
    }
    return new DatabaseClock(dataSource, reanchorInterval);
  }

  @Override
  public long millis() {
    Anchor current = anchor;
    long readingMs = current.databaseMs + (System.nanoTime() - current.nanos) / 1_000_000L;
    return lastMs.accumulateAndGet(readingMs, Math::max);
  }

  /** The current local-minus-database offset, for logs and the skew metric. */
  public long localSkewMs() {
    return System.currentTimeMillis() - millis();
  }

  private void reanchor() {
    try {
      anchor = readAnchor();
    } catch (RuntimeException e) {
      // Keep the old anchor: the monotonic clock keeps running while the database is away.
      log.warn(
          "Could not re-anchor to the database clock, keeping the old anchor: {}", e.toString());
    }
  }

  private Anchor readAnchor() {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement()) {
      long beforeNanos = System.nanoTime();
      try (ResultSet rs = statement.executeQuery(NOW_SQL)) {
        rs.next();
        long databaseMs = rs.getLong(1);
        long afterNanos = System.nanoTime();
        long midpointNanos = beforeNanos + (afterNanos - beforeNanos) / 2;
        return new Anchor(databaseMs, midpointNanos);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot read the database clock: " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    reanchorer.shutdownNow();
  }
}
