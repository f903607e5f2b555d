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
import java.util.function.LongSupplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The database's clock ({@code NOW(3)}), read through the local monotonic clock.
 *
 * <p>Every stage compares due times on one clock, the database's, so that nodes with skewed wall
 * clocks still agree. Asking the database for every reading would cost a round trip, so this clock
 * reads the database once (the anchor: database millis, paired with the monotonic nanos at the
 * midpoint of the round trip), then adds elapsed monotonic nanoseconds. A step of the local wall
 * clock therefore changes nothing: only {@link System#nanoTime()} is used locally.
 *
 * <p><b>Re-anchoring and the skew guard.</b> Every {@code reanchorInterval} the clock reads the
 * database again and compares the reading with its own prediction. Within {@code skewThreshold} it
 * adopts the new anchor silently. Beyond it (the database clock stepped, or the local oscillator
 * drifted) the clock becomes <em>unstable</em>: {@link #isStable()} turns false, which stops the
 * ticker from emitting, and the reading becomes a candidate anchor. The next reading that agrees
 * with the candidate within the threshold makes it the anchor and the clock stable again.
 *
 * <p><b>Never backwards.</b> Readings are clamped to the highest value ever returned: after a
 * backward step the clock holds still until real time passes the last reading, so nothing due is
 * ever seen as due earlier than it was.
 *
 * <p>Thread-safe: readings are lock-free over one immutable anchor; re-anchoring is synchronized.
 */
public final class DatabaseClock implements Clock, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(DatabaseClock.class);
  private static final String NOW_SQL =
      "SELECT CAST(ROUND(UNIX_TIMESTAMP(NOW(3)) * 1000) AS SIGNED)";
  public static final Duration DEFAULT_SKEW_THRESHOLD = Duration.ofMillis(500);

  /** Reads the database's now in epoch milliseconds; throws when it cannot. */
  @FunctionalInterface
  public interface DatabaseTime {
    long readMs() throws SQLException;
  }

  private record Anchor(long databaseMs, long nanos) {
    long at(long nowNanos) {
      return databaseMs + (nowNanos - nanos) / 1_000_000L;
    }
  }

  private final DatabaseTime databaseTime;
  private final LongSupplier nanoTime;
  private final long skewThresholdMs;
  private final AtomicLong lastMs = new AtomicLong(Long.MIN_VALUE);
  private volatile Anchor anchor;
  private volatile boolean stable = true;
  private volatile long lastSkewMs;
  private Anchor candidate;
  private ScheduledExecutorService reanchorer;

  /**
   * A clock over any time source, re-anchored only when {@link #reanchor()} is called (tests).
   *
   * @throws IllegalStateException if the first reading fails
   */
  public DatabaseClock(DatabaseTime databaseTime, LongSupplier nanoTime, Duration skewThreshold) {
    if (skewThreshold.isNegative() || skewThreshold.isZero()) {
      throw new IllegalArgumentException("skewThreshold must be positive: " + skewThreshold);
    }
    this.databaseTime = databaseTime;
    this.nanoTime = nanoTime;
    this.skewThresholdMs = skewThreshold.toMillis();
    this.anchor = read();
  }

  /**
   * Anchors to the database now and re-anchors every {@code reanchorInterval} on a daemon thread.
   *
   * @throws IllegalStateException if the database cannot be read (a stage cannot start without it)
   */
  public static DatabaseClock start(
      DataSource dataSource, Duration reanchorInterval, Duration skewThreshold) {
    if (reanchorInterval.isNegative() || reanchorInterval.isZero()) {
      throw new IllegalArgumentException("reanchorInterval must be positive: " + reanchorInterval);
    }
    DatabaseClock clock = new DatabaseClock(sqlTime(dataSource), System::nanoTime, skewThreshold);
    clock.reanchorer =
        Executors.newSingleThreadScheduledExecutor(
            runnable -> {
              Thread thread = new Thread(runnable, "ax-database-clock");
              thread.setDaemon(true);
              return thread;
            });
    long intervalMs = reanchorInterval.toMillis();
    clock.reanchorer.scheduleWithFixedDelay(
        clock::reanchorQuietly, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
    return clock;
  }

  public static DatabaseClock start(DataSource dataSource, Duration reanchorInterval) {
    return start(dataSource, reanchorInterval, DEFAULT_SKEW_THRESHOLD);
  }

  @Override
  public long millis() {
    return lastMs.accumulateAndGet(anchor.at(nanoTime.getAsLong()), Math::max);
  }

  /** False while the skew to the database is beyond the threshold: emit nothing then. */
  @Override
  public boolean isStable() {
    return stable;
  }

  /** The database reading minus this clock's prediction at the last re-anchor. */
  public long lastSkewMs() {
    return lastSkewMs;
  }

  /** Reads the database and applies the skew rules in the class comment. */
  public synchronized void reanchor() {
    Anchor reading = read();
    long skewMs = reading.databaseMs - anchor.at(reading.nanos);
    lastSkewMs = skewMs;
    if (Math.abs(skewMs) <= skewThresholdMs) {
      anchor = reading;
      candidate = null;
      if (!stable) {
        stable = true;
        log.info("Database clock stable again (skew {} ms)", skewMs);
      }
      return;
    }
    if (candidate != null
        && Math.abs(reading.databaseMs - candidate.at(reading.nanos)) <= skewThresholdMs) {
      anchor = reading;
      candidate = null;
      stable = true;
      log.warn("Database clock stable again at a new offset: adopted a step of {} ms", skewMs);
      return;
    }
    candidate = reading;
    if (stable) {
      stable = false;
      log.warn(
          "Database clock skew {} ms exceeds {} ms: the ticker stops emitting until it is stable",
          skewMs,
          skewThresholdMs);
    }
  }

  private void reanchorQuietly() {
    try {
      reanchor();
    } catch (RuntimeException e) {
      // Keep the old anchor: the monotonic clock keeps running while the database is away.
      log.warn(
          "Could not re-anchor to the database clock, keeping the old anchor: {}", e.toString());
    }
  }

  private Anchor read() {
    long beforeNanos = nanoTime.getAsLong();
    long databaseMs;
    try {
      databaseMs = databaseTime.readMs();
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot read the database clock: " + e.getMessage(), e);
    }
    long afterNanos = nanoTime.getAsLong();
    return new Anchor(databaseMs, beforeNanos + (afterNanos - beforeNanos) / 2);
  }

  private static DatabaseTime sqlTime(DataSource dataSource) {
    return () -> {
      try (Connection connection = dataSource.getConnection();
          Statement statement = connection.createStatement();
          ResultSet rs = statement.executeQuery(NOW_SQL)) {
        rs.next();
        return rs.getLong(1);
      }
    };
  }

  /** The local wall clock minus this clock, for logs (AX itself never uses the wall clock). */
  public long localSkewMs() {
    return System.currentTimeMillis() - millis();
  }

  @Override
  public void close() {
    if (reanchorer != null) {
      reanchorer.shutdownNow();
    }
  }
}
