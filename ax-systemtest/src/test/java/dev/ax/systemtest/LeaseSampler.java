package dev.ax.systemtest;

import com.zaxxer.hikari.HikariDataSource;
import dev.ax.common.store.Database;
import dev.ax.common.thread.DaemonThreads;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Reads the ticker's leader lease ({@code ax_leader_lease}) every 50 ms on a thread of its own and
 * keeps every reading, so that a test can tell afterwards who led when, and when a lease was lost
 * or handed over. A reading that fails (the database away) is kept as such.
 *
 * <p>Thread-safe: the readings are guarded by {@code this}.
 */
final class LeaseSampler implements AutoCloseable {

  /** Holder, epoch, lease end, and whether the lease is valid now by the database's clock. */
  static final String QUERY =
      "SELECT holder, epoch, lease_until_ms,"
          + " lease_until_ms > CAST(ROUND(UNIX_TIMESTAMP(NOW(3)) * 1000) AS SIGNED)"
          + " FROM ax_leader_lease WHERE lease_name = 'ticker'";

  private static final Duration EVERY = Duration.ofMillis(50);

  /**
   * One reading at {@code atMs} (this JVM's wall clock, when the answer came).
   *
   * @param holder null when nobody ever held it, or the reading failed
   * @param valid whether {@code holder} held an unexpired lease
   * @param failed whether the database did not answer
   * @param rttMs how long the borrow and the read took (how the database answered then)
   */
  record Sample(long atMs, String holder, long epoch, boolean valid, boolean failed, long rttMs) {}

  private final HikariDataSource dataSource;
  private final List<Sample> samples = new ArrayList<>();
  private final Thread thread;
  private volatile boolean closed;

  private LeaseSampler(HikariDataSource dataSource) {
    this.dataSource = dataSource;
    this.thread = DaemonThreads.thread("lease-sampler", this::run);
  }

  static LeaseSampler start(String jdbcUrl, String user, String password) {
    LeaseSampler sampler = new LeaseSampler(probePool(jdbcUrl, user, password, "lease-sampler"));
    sampler.thread.start();
    return sampler;
  }

  private void run() {
    while (!closed) {
      Sample sample;
      long startNs = System.nanoTime();
      try (Connection connection = dataSource.getConnection();
          Statement statement = connection.createStatement();
          ResultSet rows = statement.executeQuery(QUERY)) {
        rows.next();
        sample =
            new Sample(
                System.currentTimeMillis(),
                rows.getString(1),
                rows.getLong(2),
                rows.getBoolean(4),
                false,
                elapsedMs(startNs));
      } catch (Exception e) {
        sample = new Sample(System.currentTimeMillis(), null, -1, false, true, elapsedMs(startNs));
      }
      synchronized (this) {
        samples.add(sample);
      }
      try {
        Thread.sleep(EVERY.toMillis()); // the sampling period
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /**
   * A one-connection pool for a probe of the database, with short timeouts: a reading during an
   * outage fails fast instead of stalling the samples.
   */
  static HikariDataSource probePool(String jdbcUrl, String user, String password, String name) {
    return Database.open(
        jdbcUrl + "?connectTimeout=500&socketTimeout=2000",
        user,
        password,
        Database.Pool.of(1, name).withConnectionTimeout(Duration.ofMillis(500)));
  }

  private static long elapsedMs(long startNs) {
    return java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
  }

  synchronized List<Sample> samples() {
    return List.copyOf(samples);
  }

  /** The first valid holder other than {@code holder} read after {@code afterMs}. */
  Optional<String> validHolderOtherThan(String holder, long afterMs) {
    return firstValidOtherThan(holder, afterMs).map(Sample::holder);
  }

  /** When a valid holder other than {@code holder} was first read after {@code afterMs}. */
  Optional<Long> validHolderOtherThanAt(String holder, long afterMs) {
    return firstValidOtherThan(holder, afterMs).map(Sample::atMs);
  }

  private Optional<Sample> firstValidOtherThan(String holder, long afterMs) {
    return samples().stream()
        .filter(s -> s.atMs() > afterMs && s.valid() && !Objects.equals(s.holder(), holder))
        .findFirst();
  }

  /**
   * The lease across an outage from {@code downAtMs} to {@code upAtMs}: who held it before, who
   * holds it first after, how long after {@code upAtMs}, and whether the epoch moved (the lease was
   * lost and taken again).
   */
  String describeAfter(long downAtMs, long upAtMs) {
    List<Sample> all = samples();
    Optional<Sample> before =
        all.stream().filter(s -> s.atMs() < downAtMs && s.valid()).reduce((a, b) -> b);
    Optional<Sample> after = all.stream().filter(s -> s.atMs() >= upAtMs && s.valid()).findFirst();
    List<String> invalidStretches = new ArrayList<>();
    long invalidSince = -1;
    for (Sample s : all) {
      if (s.atMs() < downAtMs - 10_000) {
        continue;
      }
      if (!s.valid() && !s.failed() && invalidSince < 0) {
        invalidSince = s.atMs();
      } else if (s.valid() && invalidSince >= 0) {
        invalidStretches.add((s.atMs() - invalidSince) + " ms");
        invalidSince = -1;
      }
    }
    return "before "
        + before.map(s -> s.holder() + "/epoch " + s.epoch()).orElse("none")
        + ", after "
        + after
            .map(
                s ->
                    s.holder()
                        + "/epoch "
                        + s.epoch()
                        + " valid "
                        + (s.atMs() - upAtMs)
                        + " ms after answering")
            .orElse("none")
        + (before.isPresent() && after.isPresent() && before.get().epoch() != after.get().epoch()
            ? " (lease lost and re-acquired)"
            : " (lease kept)")
        + ", unexpired-lease gaps seen while answering: "
        + invalidStretches;
  }

  @Override
  public void close() {
    closed = true;
    thread.interrupt();
    dataSource.close();
  }
}
