package dev.ax.common.store;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * Runs a unit of work in one transaction, rolling back on any failure; or a read on a connection of
 * the pool. Each failure is a {@link StoreException} that names what was being done. Public for
 * role stores whose writes are not a {@link BatchMove} (several statements batched per row in one
 * transaction). Stateless; thread-safe.
 */
public final class Transactions {

  private Transactions() {}

  /**
   * Runs {@code work} between {@code START TRANSACTION} and {@code COMMIT} sent as statements, with
   * the connection left in autocommit mode: two control round trips per transaction instead of the
   * three of {@code setAutoCommit(false)}, {@code commit()}, {@code setAutoCommit(true)}. On the
   * ticker's and dispatchers' serial paths, under load, each round trip costs milliseconds.
   */
  public static <T> T inTransaction(
      DataSource dataSource, String what, SqlWork<Connection, T> work) {
    return inPacketTransaction(
        dataSource,
        what,
        transaction -> {
          transaction.ensureBegun();
          return work.run(transaction.connection());
        });
  }

  /**
   * Runs {@code work} in one transaction that the work begins in its first packet and may commit in
   * its last (see {@link Transaction}); commits whatever it left open, rolls back on any failure.
   */
  static <T> T inPacketTransaction(
      DataSource dataSource, String what, SqlWork<Transaction, T> work) {
    try (Connection connection = dataSource.getConnection()) {
      Transaction transaction = new Transaction(connection);
      try {
        T result = work.run(transaction);
        transaction.finish();
        return result;
      } catch (SQLException | RuntimeException e) {
        transaction.rollbackQuietly(e);
        throw e;
      }
    } catch (SQLException e) {
      throw new StoreException(what + " failed: " + e.getMessage(), e);
    }
  }

  /**
   * Runs {@code work} on a connection of the pool in autocommit mode, each statement its own
   * transaction: for reads.
   */
  public static <T> T read(DataSource dataSource, String what, SqlWork<Connection, T> work) {
    try (Connection connection = dataSource.getConnection()) {
      return work.run(connection);
    } catch (SQLException e) {
      throw new StoreException(what + " failed: " + e.getMessage(), e);
    }
  }
}
