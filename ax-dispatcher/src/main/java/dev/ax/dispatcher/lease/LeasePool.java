package dev.ax.dispatcher.lease;

import dev.ax.common.config.CommonConfig;
import dev.ax.common.stage.StageContext;
import dev.ax.common.store.Database;
import dev.ax.common.store.DatabaseTls;
import javax.sql.DataSource;

/**
 * The connections the {@link LeaseRenewer} renews leases on: a small pool of its own with short
 * timeouts ({@link Database#openControl}: two connections; a borrow, a connect and a read each give
 * up after a second), so a renewal neither waits behind the stage's work for a connection nor hangs
 * on a database that is away, and is tried again a second later. Without a JDBC URL in the
 * configuration (a test's context, whose pools are handed over ready-made) it is the context's
 * control pool, which has the same timeouts.
 *
 * <p>Thread-safety: the pool is thread-safe; {@link #close()} once, at the stage's stop.
 */
public final class LeasePool implements AutoCloseable {

  private final DataSource dataSource;

  /** Closes the pool if it is this one's own; does nothing for the context's. */
  private final Runnable closer;

  private LeasePool(DataSource dataSource, Runnable closer) {
    this.dataSource = dataSource;
    this.closer = closer;
  }

  /** The dispatcher's own lease pool for {@code context}, named after its node. */
  public static LeasePool open(StageContext context) {
    CommonConfig common = context.common();
    if (common.jdbcUrl() == null || common.jdbcUrl().isBlank()) {
      return new LeasePool(context.controlDataSource(), () -> {});
    }
    var pool =
        Database.openControl(
            common.jdbcUrl(),
            common.jdbcUser(),
            common.jdbcPassword(),
            context.nodeId() + "-dispatcher-leases",
            DatabaseTls.of(common));
    return new LeasePool(pool, pool::close);
  }

  public DataSource dataSource() {
    return dataSource;
  }

  @Override
  public void close() {
    closer.run();
  }
}
