package dev.ax.common.store;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * The small JDBC helper the role stores are written with: a query with a binder and a row mapper, a
 * single number, a transaction of such statements ({@link JdbcTransaction}), and a {@link
 * BatchMove}, each on a connection of the pool and each failure a {@link StoreException} that names
 * what was being done. (After db-scheduler's {@code JdbcRunner}: the store says what SQL and which
 * values; the helper owns the statement's life.)
 *
 * <p>Thread-safe (stateless over a pool).
 */
public final class Jdbc {

  /** Binds a statement's parameters. */
  @FunctionalInterface
  public interface Binder {
    void bind(PreparedStatement statement) throws SQLException;

    /** Binds {@code values} to the parameters in order ({@code setObject}). */
    static Binder values(Object... values) {
      return statement -> {
        for (int i = 0; i < values.length; i++) {
          statement.setObject(i + 1, values[i]);
        }
      };
    }
  }

  /** Reads one row of a result. */
  @FunctionalInterface
  public interface RowMapper<T> {
    T map(ResultSet rs) throws SQLException;
  }

  private final DataSource dataSource;

  public Jdbc(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /**
   * Every row of {@code sql} bound by {@code binder}, read by {@code mapper}.
   *
   * @param what names the read in a failure, e.g. {@code "reading pending retries"}
   */
  public <T> List<T> query(String what, String sql, Binder binder, RowMapper<T> mapper) {
    return read(what, tx -> tx.query(sql, binder, mapper));
  }

  /** The first row of {@code sql}, if any, read by {@code mapper}: a lookup by key. */
  public <T> Optional<T> queryFirst(String what, String sql, Binder binder, RowMapper<T> mapper) {
    return read(what, tx -> tx.queryFirst(sql, binder, mapper));
  }

  /**
   * Runs {@code work} on one connection of the pool in autocommit mode, each statement its own
   * transaction: for a read of several statements (e.g. one per chunk of an IN list) that need not
   * see one snapshot, without the round trips of a transaction.
   *
   * @param what names the read in a failure
   */
  public <T> T read(String what, SqlWork<JdbcTransaction, T> work) {
    return Transactions.read(
        dataSource, what, connection -> work.run(new JdbcTransaction(connection)));
  }

  /**
   * The rows of a query with an IN list of {@code keys}, one statement per chunk on one connection
   * (see {@link JdbcTransaction#queryIn}); no statement at all for no keys.
   */
  public <K, T> List<T> queryIn(
      String what,
      Collection<K> keys,
      Function<String, String> sql,
      List<?> trailing,
      RowMapper<T> mapper) {
    if (keys.isEmpty()) {
      return List.of();
    }
    return read(what, tx -> tx.queryIn(keys, sql, trailing, mapper));
  }

  /** The first column of the one row {@code sql} returns, e.g. a count. */
  public long queryLong(String what, String sql, Binder binder) {
    List<Long> rows = query(what, sql, binder, rs -> rs.getLong(1));
    if (rows.size() != 1) {
      throw new IllegalStateException(what + " returned " + rows.size() + " rows, not one");
    }
    return rows.get(0);
  }

  /**
   * Runs {@code work} in one transaction (START TRANSACTION ... COMMIT sent as statements on a
   * connection left in autocommit mode), rolling back on any failure.
   *
   * @param what names the work in a failure, e.g. {@code "replaying dead letter 7"}
   */
  public <T> T inTransaction(String what, SqlWork<JdbcTransaction, T> work) {
    return Transactions.inTransaction(
        dataSource, what, connection -> work.run(new JdbcTransaction(connection)));
  }

  /**
   * Runs {@code work} in one transaction that its batch moves begin (and may commit) in their own
   * packets ({@link PacketTransaction}); commits what the work left open, rolls back on any
   * failure.
   */
  public <T> T inPacketTransaction(String what, SqlWork<PacketTransaction, T> work) {
    return Transactions.inPacketTransaction(
        dataSource, what, transaction -> work.run(new PacketTransaction(transaction)));
  }

  /**
   * Runs {@code move} over the rows keyed by {@code keys} in {@code keyColumn} (see BatchMover).
   */
  public <T> List<T> move(String keyColumn, Collection<?> keys, BatchMove<T> move, long nowMs) {
    return BatchMover.move(dataSource, keyColumn, new ArrayList<>(keys), move, nowMs);
  }
}
