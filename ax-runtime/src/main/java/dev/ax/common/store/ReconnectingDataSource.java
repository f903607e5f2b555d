package dev.ax.common.store;

import java.io.EOFException;
import java.io.PrintWriter;
import java.net.SocketException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.util.Properties;
import java.util.logging.Logger;
import javax.net.ssl.SSLHandshakeException;
import javax.sql.DataSource;

/**
 * The physical connections under a pool: each {@link #getConnection()} opens one with the driver,
 * and while the database does not answer (a connection-level failure, SQLState class 08) tries
 * again every {@link #RETRY_EVERY} for up to {@code patience} before it fails.
 *
 * <p>Why: HikariCP's connection adder sleeps between failed attempts with a backoff that grows to 5
 * s, so after a database restart of a few seconds a pool would come back up to 5 s after the
 * database answered, and every stage with it. Trying here, inside one attempt of the adder, a pool
 * gets its connection within {@link #RETRY_EVERY} of the database answering again. A failure that
 * is not the database being away (a wrong password, an unknown database, a failed TLS handshake)
 * fails at once.
 *
 * <p>Thread-safe: immutable but for the login timeout (volatile); the driver opens each connection
 * independently.
 */
final class ReconnectingDataSource implements DataSource {

  static final Duration RETRY_EVERY = Duration.ofMillis(100);

  /**
   * The server's error for a plain connection while it requires TLS (MySQL and MariaDB: {@code
   * ER_SECURE_TRANSPORT_REQUIRED}, SQLState 08004).
   */
  static final int SECURE_TRANSPORT_REQUIRED = 3159;

  private final String jdbcUrl;
  private final Properties properties;
  private final Duration patience;
  private volatile int loginTimeoutSeconds;

  /**
   * @param properties the driver's connection properties, with {@code user} and {@code password};
   *     copied
   */
  ReconnectingDataSource(String jdbcUrl, Properties properties, Duration patience) {
    this.jdbcUrl = jdbcUrl;
    this.properties = (Properties) properties.clone();
    this.patience = patience;
    this.loginTimeoutSeconds = (int) Math.max(1, patience.toSeconds());
  }

  @Override
  public Connection getConnection() throws SQLException {
    long deadlineNanos = System.nanoTime() + patience.toNanos();
    while (true) {
      try {
        return DriverManager.getConnection(jdbcUrl, properties);
      } catch (SQLException e) {
        if (!isAway(e) || System.nanoTime() - deadlineNanos >= 0) {
          throw e;
        }
      }
      try {
        Thread.sleep(RETRY_EVERY.toMillis()); // a pause between connection attempts
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new SQLException("interrupted while waiting for the database", "08000", e);
      }
    }
  }

  /**
   * Whether {@code failure} says the database is away (SQLState class 08), as opposed to refusing
   * this client: a TLS handshake that fails (an untrusted certificate, a protocol the server does
   * not offer) or a server that requires TLS of a plain connection fails the same way on every try,
   * so it is not waited out.
   */
  static boolean isAway(SQLException failure) {
    if (failure.getSQLState() == null
        || !failure.getSQLState().startsWith("08")
        || failure.getErrorCode() == SECURE_TRANSPORT_REQUIRED) {
      return false;
    }
    boolean refusedHandshake = false;
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof SocketException || cause instanceof EOFException) {
        return true; // the connection broke, during a handshake or not: the database is away
      }
      refusedHandshake |= cause instanceof SSLHandshakeException;
    }
    return !refusedHandshake;
  }

  @Override
  public Connection getConnection(String username, String password) throws SQLException {
    throw new SQLFeatureNotSupportedException("the user and password are fixed at construction");
  }

  @Override
  public PrintWriter getLogWriter() {
    return null;
  }

  @Override
  public void setLogWriter(PrintWriter out) {}

  /**
   * Not used to open connections ({@code patience} bounds that); a pool reads it as how long to
   * wait for a connection attempt in progress when it closes.
   */
  @Override
  public void setLoginTimeout(int seconds) {
    loginTimeoutSeconds = seconds;
  }

  @Override
  public int getLoginTimeout() {
    return loginTimeoutSeconds;
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    throw new SQLFeatureNotSupportedException();
  }

  @Override
  public <T> T unwrap(Class<T> type) throws SQLException {
    if (type.isInstance(this)) {
      return type.cast(this);
    }
    throw new SQLException("not a wrapper of " + type);
  }

  @Override
  public boolean isWrapperFor(Class<?> type) {
    return type.isInstance(this);
  }
}
