package dev.ax.embedded;

import java.util.Objects;

/**
 * Coordinates of a MySQL-protocol database: a {@code jdbc:mysql://} URL naming the database, and
 * the user and password to connect with. {@link #toString()} never shows the password. Immutable,
 * thread-safe.
 *
 * @param jdbcUrl {@code jdbc:mysql://host:port/database[?params]}
 * @param user user name
 * @param password password, possibly empty
 */
public record DatabaseCoordinates(String jdbcUrl, String user, String password) {

  /**
   * @throws NullPointerException if any component is null
   * @throws IllegalArgumentException if {@code jdbcUrl} is not a {@code jdbc:mysql://} URL
   */
  public DatabaseCoordinates {
    Objects.requireNonNull(jdbcUrl, "jdbcUrl");
    Objects.requireNonNull(user, "user");
    Objects.requireNonNull(password, "password");
    JdbcUrls.requireMysqlUrl(jdbcUrl);
  }

  @Override
  public String toString() {
    return "DatabaseCoordinates[jdbcUrl="
        + jdbcUrl
        + ", user="
        + user
        + ", password="
        + (password.isEmpty() ? "(empty)" : "****")
        + "]";
  }
}
