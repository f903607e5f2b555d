package dev.ax.common.time;

import dev.ax.common.thread.DaemonThreads;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
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
 * <p><b>Never backwards, never frozen.</b> Readings are clamped to the highest value ever returned.
 * A backward step of the database clock (a failover to a server whose clock is behind), once
 * confirmed, is not followed: following it would hold this clock still for the step's length, and
 * nothing would fire or be claimed meanwhile. The clock keeps its time line and from then on runs
 * {@link #heldMs()} ahead of the database's {@code NOW()} (said at ERROR, and exported as a gauge);
 * a later forward step of the database takes the held amount back first. Due times are written and
 * compared on this clock, so nothing fires early and nothing waits for the step. The leader lease
 * is the one thing computed on the database's own {@code NOW()}, in SQL, where it is
 * self-consistent.
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

    /**
     * Reads, with the monotonic nanos just before and after the read itself. A source that must
     * first borrow a connection starts timing once it has one: a wait for the connection is not
     * part of the round trip.
     */
    default Sample sample(LongSupplier nanoTime) throws SQLException {
      long beforeNanos = nanoTime.getAsLong();
      long databaseMs = readMs();
      return new Sample(databaseMs, beforeNanos, nanoTime.getAsLong());
    }
  }

  /** One reading of the database clock, bracketed by the monotonic nanos of its round trip. */
  public record Sample(long databaseMs, long beforeNanos, long afterNanos) {
    long roundTripMs() {
      return (afterNanos - beforeNanos) / 1_000_000L;
    }
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
  private volatile long heldMs;
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
    clock.reanchorer = DaemonThreads.scheduler("ax-database-clock");
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

  /**
   * Reads the database and applies the skew rules in the class comment. A reading whose own round
   * trip took longer than the skew threshold proves nothing either way (the database's now lies
   * somewhere in it) and changes nothing.
   */
  public synchronized void reanchor() {
    Sample sample = sample();
    if (sample.roundTripMs() > skewThresholdMs) {
      log.debug(
          "Database clock reading took {} ms, more than the {} ms threshold: not used",
          sample.roundTripMs(),
          skewThresholdMs);
      return;
    }
    Anchor raw = anchorOf(sample);
    // The database's reading on this clock's time line: ahead of it by what a backward step held.
    Anchor reading = new Anchor(raw.databaseMs + heldMs, raw.nanos);
    long predictedMs = anchor.at(reading.nanos);
    long skewMs = reading.databaseMs - predictedMs;
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
      candidate = null;
      stable = true;
      if (skewMs < 0) {
        // Adopting it would hold this clock still for the step's length (it never goes back):
        // nothing would fire or be claimed meanwhile. Keep the time line instead.
        heldMs += -skewMs;
        anchor = new Anchor(predictedMs, reading.nanos);
        log.error(
            "Database clock stepped back {} ms (a failover to a server whose clock is behind?):"
                + " AX keeps its own time line, now {} ms ahead of the database's NOW(); nothing"
                + " fires early and nothing waits for the step",
            -skewMs,
            heldMs);
      } else {
        long absorbed = Math.min(heldMs, skewMs);
        heldMs -= absorbed;
        anchor = new Anchor(reading.databaseMs - absorbed, reading.nanos);
        log.warn(
            "Database clock stable again at a new offset: a step of {} ms, {} ms of it taking back"
                + " an earlier backward step ({} ms still held)",
            skewMs,
            absorbed,
            heldMs);
      }
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

  /**
   * How far this clock runs ahead of the database's {@code NOW()} because of backward steps of the
   * database clock it did not follow (see the class comment); 0 normally.
   */
  public long heldMs() {
    return heldMs;
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
    return anchorOf(sample());
  }

  private Sample sample() {
    try {
      return databaseTime.sample(nanoTime);
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot read the database clock: " + e.getMessage(), e);
    }
  }

  private static Anchor anchorOf(Sample sample) {
    return new Anchor(
        sample.databaseMs(),
        sample.beforeNanos() + (sample.afterNanos() - sample.beforeNanos()) / 2);
  }

  private static DatabaseTime sqlTime(DataSource dataSource) {
    return new DatabaseTime() {
      @Override
      public long readMs() throws SQLException {
        return sample(System::nanoTime).databaseMs();
      }

      @Override
      public Sample sample(LongSupplier nanoTime) throws SQLException {
        try (Connection connection = dataSource.getConnection();
            Statement statement = connection.createStatement()) {
          long beforeNanos = nanoTime.getAsLong(); // the connection is in hand: time the read only
          try (ResultSet rs = statement.executeQuery(NOW_SQL)) {
            rs.next();
            return new Sample(rs.getLong(1), beforeNanos, nanoTime.getAsLong());
          }
        }
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
