package dev.ax.embedded;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/**
 * A MySQL-protocol server reached through a server-level {@code jdbc:mysql://} URL, on which
 * databases are created. Immutable, thread-safe (each call opens its own connection).
 */
final class DatabaseServer {

  private final String serverJdbcUrl;
  private final String user;
  private final String password;

  DatabaseServer(String serverJdbcUrl, String user, String password) {
    this.serverJdbcUrl = JdbcUrls.requireMysqlUrl(serverJdbcUrl);
    this.user = user;
    this.password = password;
  }

  static DatabaseServer of(EmbeddedDatabase database) {
    return new DatabaseServer(database.serverJdbcUrl(), database.user(), database.password());
  }

  /**
   * {@code CREATE DATABASE IF NOT EXISTS `name`} and returns its coordinates.
   *
   * @throws IllegalArgumentException if {@code name} does not match {@code [a-z0-9_]{1,64}}
   * @throws IllegalStateException if the server refuses
   */
  DatabaseCoordinates createDatabase(String name) {
    JdbcUrls.requireDatabaseName(name);
    try (Connection connection = DriverManager.getConnection(serverJdbcUrl, user, password);
        Statement statement = connection.createStatement()) {
      // The name is validated above: it cannot break out of the back-quotes.
      statement.execute("CREATE DATABASE IF NOT EXISTS `" + name + "`");
    } catch (SQLException e) {
      throw new IllegalStateException(
          "cannot create database '" + name + "' on " + serverJdbcUrl + " as " + user, e);
    }
    return new DatabaseCoordinates(JdbcUrls.withDatabase(serverJdbcUrl, name), user, password);
  }

  /**
   * {@code DROP DATABASE IF EXISTS `name`}, waiting at most {@code lockWait} for a session that
   * still holds one of its tables.
   *
   * @throws IllegalArgumentException if {@code name} does not match {@code [a-z0-9_]{1,64}}
   * @throws IllegalStateException if the server refuses or the wait runs out
   */
  void dropDatabase(String name, Duration lockWait) {
    JdbcUrls.requireDatabaseName(name);
    try (Connection connection = DriverManager.getConnection(serverJdbcUrl, user, password);
        Statement statement = connection.createStatement()) {
      statement.execute("SET SESSION lock_wait_timeout = " + Math.max(1, lockWait.toSeconds()));
      statement.execute("DROP DATABASE IF EXISTS `" + name + "`");
    } catch (SQLException e) {
      throw new IllegalStateException("cannot drop database '" + name + "' on " + serverJdbcUrl, e);
    }
  }

  String serverJdbcUrl() {
    return serverJdbcUrl;
  }

  @Override
  public String toString() {
    return "DatabaseServer[" + serverJdbcUrl + ", user=" + user + "]";
  }
}
