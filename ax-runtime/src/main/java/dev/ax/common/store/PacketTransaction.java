package dev.ax.common.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

/**
 * One transaction whose {@code START TRANSACTION} and {@code COMMIT} may travel in the packets of
 * its batch moves (see {@link Transaction}), as {@link Jdbc#inPacketTransaction} hands it to a role
 * store: batch moves, plain statements on its connection, audit rows and outbox rows, all committed
 * or rolled back together.
 *
 * <p>Not thread-safe: confined to the thread running the work, and valid only during it.
 */
public final class PacketTransaction {

  private final Transaction transaction;

  PacketTransaction(Transaction transaction) {
    this.transaction = transaction;
  }

  /**
   * Runs {@code move} in this transaction, one packet per chunk of keys (see {@link BatchMover});
   * the first packet of the transaction carries its start, and with {@code commits} the last chunk
   * carries its commit, so nothing may follow it.
   */
  public <T> List<T> move(
      String keyColumn, List<?> keys, BatchMove<T> move, long nowMs, boolean commits)
      throws SQLException {
    return BatchMover.moveIn(transaction, keyColumn, keys, move, nowMs, commits);
  }

  /** The connection, the transaction begun on it: for statements that are not batch moves. */
  public Connection connection() throws SQLException {
    transaction.ensureBegun();
    return transaction.connection();
  }

  /** Plain statements (queries, updates) in this transaction, the transaction begun. */
  public JdbcTransaction statements() throws SQLException {
    return new JdbcTransaction(connection());
  }

  /**
   * Creates SCHEDULED instances that do not exist yet, with their audit rows, in this transaction.
   *
   * @return the numeric key of each instance created, by instance id
   */
  public Map<String, Long> create(List<NewInstance> instances, String actor, long nowMs)
      throws SQLException {
    return InstanceInserts.insert(connection(), instances, actor, nowMs);
  }

  /** Appends audit rows, in this transaction, in multi-row INSERTs. */
  public void audit(List<AuditLog.Entry> entries, String actor, long atMs) throws SQLException {
    AuditLog.append(connection(), entries, actor, atMs);
  }

  /** Puts {@code messages} into the outbox under {@code token} (see {@link OutboxStore}). */
  public void outbox(List<OutboxMessage> messages, String token, long nowMs) throws SQLException {
    OutboxStore.insert(connection(), messages, token, nowMs);
  }
}
