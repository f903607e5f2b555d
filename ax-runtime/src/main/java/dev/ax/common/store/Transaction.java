package dev.ax.common.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * One transaction on one connection (in autocommit mode) whose {@code START TRANSACTION} and {@code
 * COMMIT} can travel in the same packet as its statements: the work puts {@link #begin()} before
 * its first statement and, when it knows that statement is its last, {@link #commit()} after it. A
 * transaction that is a single packet then costs one round trip instead of four (start, update,
 * audit, commit): three network round trips fewer per claim where the database is on another host
 * (docs/BENCHMARKS.md, "One packet per batch move", has what it changed on loopback). {@link
 * Transactions#inPacketTransaction} commits whatever the work left open and rolls back on failure.
 *
 * <p>A packet of several statements needs the connection's {@code allowMultiQueries}; {@link
 * Database#open} sets it. Not thread-safe: confined to the thread running the work.
 */
final class Transaction {

  private static final String BEGIN = "START TRANSACTION;";
  private static final String COMMIT = ";COMMIT";

  private final Connection connection;
  private boolean begun;
  private boolean committed;

  Transaction(Connection connection) {
    this.connection = connection;
  }

  Connection connection() {
    return connection;
  }

  /**
   * The text to put before the next statement sent: {@code START TRANSACTION;} the first time,
   * empty after. Whoever takes it skips one more result (the start's) when reading the packet's.
   */
  String begin() {
    if (begun) {
      return "";
    }
    begun = true;
    return BEGIN;
  }

  /**
   * Sends {@code START TRANSACTION} on its own if no packet has carried it yet: for work that sends
   * statements not built with {@link #begin()}.
   */
  void ensureBegun() throws SQLException {
    if (!begun) {
      try (Statement control = connection.createStatement()) {
        control.execute("START TRANSACTION");
      }
      begun = true;
    }
  }

  /**
   * The text to put after the last statement of the work: {@code ;COMMIT}. The packet's results
   * must then be read to the end, since the commit's failure arrives last.
   */
  String commit() {
    if (!begun) {
      throw new IllegalStateException("commit before the transaction began");
    }
    committed = true;
    return COMMIT;
  }

  /** Commits unless the work committed in its last packet or never began. */
  void finish() throws SQLException {
    if (begun && !committed) {
      try (Statement control = connection.createStatement()) {
        control.execute("COMMIT");
      }
    }
  }

  /**
   * Rolls back after {@code cause}, recording a failure to do so as suppressed. Harmless if a
   * packet's commit went through before the failure surfaced.
   */
  void rollbackQuietly(Exception cause) {
    if (!begun) {
      return;
    }
    try (Statement control = connection.createStatement()) {
      control.execute("ROLLBACK");
    } catch (SQLException rollbackFailure) {
      cause.addSuppressed(rollbackFailure);
    }
  }
}
