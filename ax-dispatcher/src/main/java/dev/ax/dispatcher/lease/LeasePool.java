package dev.ax.dispatcher.lease;

import dev.ax.common.config.CommonConfig;
import dev.ax.common.store.Database;
import dev.ax.common.store.DatabaseTls;
import javax.sql.DataSource;

/**
 * The connections the {@link LeaseRenewer} renews leases on: a small pool of its own with short
 * timeouts ({@link Database#openControl}: two connections; a borrow, a connect and a read each give
 * up after a second), so a renewal neither waits behind the stage's work for a connection nor hangs
 * on a database that is away, and is tried again a second later. Without a JDBC URL in the
 * configuration (a test's context, whose pools are handed over ready-made) it is the stage's
 * control pool, which has the same timeouts.
 *
 * <p>Thread-safety: the pool is thread-safe; {@link #close()} once, at the stage's stop.
 *
 * @param closer closes the pool if it is this one's own; does nothing for the stage's
 */
public record LeasePool(DataSource dataSource, Runnable closer) implements AutoCloseable {

  /**
   * The dispatcher's own lease pool, or {@code controlPool} when {@code common} names no database.
   *
   * @param poolName the pool's name, after the node ({@code <node>-dispatcher-leases})
   * @param controlPool the stage's control pool: the lease pool of a context handed over ready-made
   */
  public static LeasePool open(CommonConfig common, String poolName, DataSource controlPool) {
    if (common.jdbcUrl() == null || common.jdbcUrl().isBlank()) {
      return new LeasePool(controlPool, () -> {});
    }
    var pool =
        Database.openControl(
            common.jdbcUrl(),
            common.jdbcUser(),
            common.jdbcPassword(),
            poolName,
            DatabaseTls.of(common));
    return new LeasePool(pool, pool::close);
  }

  @Override
  public void close() {
    closer.run();
  }
}
