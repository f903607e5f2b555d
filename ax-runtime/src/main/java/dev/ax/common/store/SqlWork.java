package dev.ax.common.store;

import java.sql.SQLException;

/**
 * A unit of store work given what it runs on: a {@link java.sql.Connection}, a {@link
 * JdbcTransaction} or a {@link PacketTransaction}. Whoever hands it over owns the connection's life
 * and turns a failure into a {@link StoreException}.
 *
 * @param <C> what the work runs on, valid only while it runs
 * @param <T> what it returns
 */
@FunctionalInterface
public interface SqlWork<C, T> {
  T run(C on) throws SQLException;
}
