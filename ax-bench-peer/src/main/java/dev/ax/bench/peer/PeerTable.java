package dev.ax.bench.peer;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * db-scheduler's one table, under a name of the bench's own ({@value #NAME}) in the database AX
 * uses: created empty before the peer's rounds and dropped after them. The columns are those of
 * db-scheduler's MySQL/MariaDB schema. Stateless.
 */
final class PeerTable {

  static final String NAME = "ax_bench_peer_tasks";

  private PeerTable() {}

  /** Drops a table an earlier, interrupted bench left, and creates it empty. */
  static void create(DataSource dataSource) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute("DROP TABLE IF EXISTS " + NAME);
      statement.execute(
          "CREATE TABLE "
              + NAME
              + " (task_name VARCHAR(100) NOT NULL, task_instance VARCHAR(100) NOT NULL,"
              + " task_data BLOB, execution_time TIMESTAMP(6) NOT NULL, picked BOOLEAN NOT NULL,"
              + " picked_by VARCHAR(50), last_success TIMESTAMP(6) NULL,"
              + " last_failure TIMESTAMP(6) NULL, consecutive_failures INT,"
              + " last_heartbeat TIMESTAMP(6) NULL, version BIGINT NOT NULL, priority SMALLINT,"
              + " PRIMARY KEY (task_name, task_instance),"
              + " INDEX execution_time_idx (execution_time),"
              + " INDEX last_heartbeat_idx (last_heartbeat),"
              + " INDEX priority_execution_time_idx (priority DESC, execution_time ASC))");
    }
  }

  static void drop(DataSource dataSource) throws SQLException {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute("DROP TABLE IF EXISTS " + NAME);
    }
  }
}
