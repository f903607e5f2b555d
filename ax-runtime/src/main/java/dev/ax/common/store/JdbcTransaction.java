package dev.ax.common.store;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.Jdbc.Binder;
import dev.ax.common.store.Jdbc.RowMapper;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * The statements of one unit of work on one connection, as {@link Jdbc#inTransaction} (one
 * transaction) and {@link Jdbc#read} (autocommit, each statement its own) hand it to a role store:
 * queries with a binder and a row mapper, updates, and audit rows, each written once here instead
 * of in every store. The store says what SQL and which values; this class owns each statement's
 * life.
 *
 * <p>Not thread-safe: confined to the thread running the work, and valid only during it.
 */
public final class JdbcTransaction {

  private final Connection connection;

  JdbcTransaction(Connection connection) {
    this.connection = connection;
  }

  /** Every row of {@code sql} bound by {@code binder}, read by {@code mapper}. */
  public <T> List<T> query(String sql, Binder binder, RowMapper<T> mapper) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      binder.bind(statement);
      List<T> rows = new ArrayList<>();
      try (ResultSet rs = statement.executeQuery()) {
        while (rs.next()) {
          rows.add(mapper.map(rs));
        }
      }
      return rows;
    }
  }

  /**
   * The rows of a query with an IN list of {@code keys}, run once per chunk of at most {@link
   * Sql#MAX_IN_LIST} keys, in chunk order.
   *
   * @param sql the statement for one chunk, given that chunk's placeholders ({@code ?,?,...})
   * @param trailing values bound after the chunk's keys, for the parameters after the IN list
   */
  public <K, T> List<T> queryIn(
      Collection<K> keys, Function<String, String> sql, List<?> trailing, RowMapper<T> mapper)
      throws SQLException {
    List<T> rows = new ArrayList<>();
    for (List<K> chunk : Sql.chunks(keys)) {
      List<Object> bound = new ArrayList<>(chunk);
      bound.addAll(trailing);
      rows.addAll(
          query(sql.apply(Sql.placeholders(chunk.size())), Binder.values(bound.toArray()), mapper));
    }
    return rows;
  }

  /** The first row of {@code sql}, if any (e.g. a lookup by key, or a {@code FOR UPDATE} lock). */
  public <T> Optional<T> queryFirst(String sql, Binder binder, RowMapper<T> mapper)
      throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      binder.bind(statement);
      try (ResultSet rs = statement.executeQuery()) {
        return rs.next() ? Optional.of(mapper.map(rs)) : Optional.empty();
      }
    }
  }

  /** Runs an INSERT, UPDATE or DELETE and returns the rows it changed. */
  public int update(String sql, Binder binder) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      binder.bind(statement);
      return statement.executeUpdate();
    }
  }

  /**
   * Appends one {@code ax_instance_log} row for a transition of one instance, in this transaction:
   * the audit row commits or rolls back with the change it records.
   */
  public void audit(
      String instanceId,
      String taskId,
      int attempt,
      InstanceStatus from,
      InstanceStatus to,
      String reason,
      String actor,
      long atMs)
      throws SQLException {
    AuditLog.append(
        connection,
        List.of(new AuditLog.Entry(instanceId, taskId, attempt, from, to, reason)),
        actor,
        atMs);
  }
}
