package dev.ax.common.store;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Reads, in order, the results of a packet of several statements sent as one prepared statement:
 * one update count per change, one result set per query. A statement that failed on the server
 * surfaces as the {@link SQLException} of the read that reaches it; the statements after it did not
 * run. Not thread-safe: one per execution.
 */
final class PacketResults {

  private final PreparedStatement statement;
  private boolean atFirst = true;
  private boolean currentIsResultSet;

  private PacketResults(PreparedStatement statement, boolean firstIsResultSet) {
    this.statement = statement;
    this.currentIsResultSet = firstIsResultSet;
  }

  /** Sends the packet. */
  static PacketResults execute(PreparedStatement statement) throws SQLException {
    return new PacketResults(statement, statement.execute());
  }

  /** The next statement's update count (0 for {@code START TRANSACTION} and {@code COMMIT}). */
  int nextUpdateCount() throws SQLException {
    advance();
    if (currentIsResultSet) {
      throw new IllegalStateException("expected an update count, the packet returned rows");
    }
    int count = statement.getUpdateCount();
    if (count < 0) {
      throw new IllegalStateException("expected an update count, the packet has no more results");
    }
    return count;
  }

  /** The next statement's rows; read them before asking for the next result. */
  ResultSet nextResultSet() throws SQLException {
    advance();
    if (!currentIsResultSet) {
      throw new IllegalStateException("expected rows, the packet returned an update count");
    }
    return statement.getResultSet();
  }

  private void advance() throws SQLException {
    if (atFirst) {
      atFirst = false;
    } else {
      currentIsResultSet = statement.getMoreResults();
    }
  }
}
