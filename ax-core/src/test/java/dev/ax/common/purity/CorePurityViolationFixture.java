package dev.ax.common.purity;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * Test code only: a domain-package class that uses JDBC, which {@link CorePurityTest}'s rule must
 * refuse. Never called.
 */
final class CorePurityViolationFixture {

  private CorePurityViolationFixture() {}

  static Connection open(DataSource dataSource) throws SQLException {
    return dataSource.getConnection();
  }
}
