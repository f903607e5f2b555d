package dev.ax.common.testing;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * One statement run behind the stores' back, on a connection of its own: how a test puts the
 * database in a state only another party makes (the reaper's take-back, a row changed by hand, a
 * trigger that refuses an insert). Stateless and thread-safe.
 */
public final class RawSql {

  private RawSql() {}

  /** Runs {@code sql}, an update or DDL, in auto-commit mode (the connection's as borrowed). */
  public static void execute(DataSource dataSource, String sql) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }
}
