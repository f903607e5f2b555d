package dev.ax.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedDatabaseIT {

  @TempDir Path dir;

  @Test
  void servesMysqlProtocolOnLoopbackAndLeavesNoProcessBehind() throws SQLException {
    EmbeddedDatabase database = EmbeddedDatabase.start(dir);
    try {
      assertThat(database.serverJdbcUrl())
          .isEqualTo("jdbc:mysql://127.0.0.1:" + database.port() + "/");
      assertThat(database.jdbcUrl("ax_x")).isEqualTo(database.serverJdbcUrl() + "ax_x");
      assertThat(mariadbdProcessesIn(dir)).hasSize(1);

      try (Connection connection =
              DriverManager.getConnection(
                  database.serverJdbcUrl(), database.user(), database.password());
          Statement statement = connection.createStatement();
          ResultSet rows =
              statement.executeQuery(
                  "SELECT VERSION(), @@bind_address, @@character_set_server, @@max_connections")) {
        assertThat(rows.next()).isTrue();
        assertThat(rows.getString(1)).contains("MariaDB");
        assertThat(rows.getString(2)).isEqualTo("127.0.0.1");
        assertThat(rows.getString(3)).isEqualTo("utf8mb4");
        assertThat(rows.getInt(4)).isEqualTo(500);
      }
    } finally {
      database.close();
    }

    assertThat(mariadbdProcessesIn(dir)).isEmpty();
    database.close(); // idempotent
  }

  @Test
  void startsWithTheBufferPoolItIsGivenAndRefusesOneOutOfRange() throws SQLException {
    System.setProperty(EmbeddedDatabase.BUFFER_POOL_MB, "256");
    try {
      EmbeddedDatabase database = EmbeddedDatabase.start(dir);
      try (database;
          Connection connection =
              DriverManager.getConnection(
                  database.serverJdbcUrl(), database.user(), database.password());
          Statement statement = connection.createStatement();
          ResultSet rows = statement.executeQuery("SELECT @@innodb_buffer_pool_size")) {
        assertThat(rows.next()).isTrue();
        assertThat(rows.getLong(1)).isEqualTo(256L * 1024 * 1024);
      }
      System.setProperty(EmbeddedDatabase.BUFFER_POOL_MB, "0");
      assertThatThrownBy(() -> EmbeddedDatabase.start(dir.resolve("other")))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining(EmbeddedDatabase.BUFFER_POOL_MB + " must be a whole number of MiB");
    } finally {
      System.clearProperty(EmbeddedDatabase.BUFFER_POOL_MB);
    }
  }

  /** Live {@code mariadbd} descendants of this JVM whose arguments mention {@code dir}. */
  private static List<ProcessHandle> mariadbdProcessesIn(Path dir) {
    String path = dir.toAbsolutePath().toString();
    return ProcessHandle.current()
        .descendants()
        .filter(ProcessHandle::isAlive)
        .filter(p -> p.info().command().map(c -> c.endsWith("mariadbd")).orElse(false))
        .filter(
            p ->
                p.info()
                    .arguments()
                    .map(args -> List.of(args).stream().anyMatch(a -> a.contains(path)))
                    .orElse(false))
        .toList();
  }
}
