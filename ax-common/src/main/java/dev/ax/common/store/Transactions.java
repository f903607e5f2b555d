package dev.ax.common.store;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/** Runs a unit of work in one transaction, rolling back on any failure. */
final class Transactions {

  @FunctionalInterface
  interface Work<T> {
    T run(Connection connection) throws SQLException;
  }

  private Transactions() {}

  static <T> T inTransaction(DataSource dataSource, String what, Work<T> work) {
    try (Connection connection = dataSource.getConnection()) {
      connection.setAutoCommit(false);
      try {
        T result = work.run(connection);
        connection.commit();
        return result;
      } catch (SQLException | RuntimeException e) {
        rollbackQuietly(connection, e);
        throw e;
      } finally {
        connection.setAutoCommit(true);
      }
    } catch (SQLException e) {
      throw new StoreException(what + " failed: " + e.getMessage(), e);
    }
  }

  static <T> T read(DataSource dataSource, String what, Work<T> work) {
    try (Connection connection = dataSource.getConnection()) {
      return work.run(connection);
    } catch (SQLException e) {
      throw new StoreException(what + " failed: " + e.getMessage(), e);
    }
  }

  private static void rollbackQuietly(Connection connection, Exception cause) {
    try {
      connection.rollback();
    } catch (SQLException rollbackFailure) {
      cause.addSuppressed(rollbackFailure);
    }
  }
}
