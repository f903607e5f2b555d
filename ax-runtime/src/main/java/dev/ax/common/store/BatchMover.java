package dev.ax.common.store;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.StatusTransitions;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Runs {@link BatchMove}s: per chunk of keys, one UPDATE that stamps a fresh {@code batch_token} on
 * the rows it wins, the INSERT of exactly those rows' audit rows and the SELECT that reads them
 * back, sent as one packet (with the transaction's start, and its commit where it is the last): a
 * move is one round trip when its keys fit one chunk. A row that did not match (another status, a
 * lapsed fence) is a lost race, left out of the result, never thrown.
 *
 * <p>Stateless; thread-safe.
 */
public final class BatchMover {

  private BatchMover() {}

  /**
   * Moves every row keyed by {@code keys} (in {@code keyColumn}) that is in {@code move.from} with
   * one UPDATE per chunk that stamps a fresh batch token, writes the audit rows of exactly the
   * stamped rows, and reads them back, all in one transaction: one round trip when the keys fit one
   * chunk.
   */
  public static <T> List<T> move(
      DataSource dataSource, String keyColumn, List<?> keys, BatchMove<T> move, long nowMs) {
    StatusTransitions.require(move.from, move.to);
    if (keys.isEmpty()) {
      return List.of();
    }
    return Transactions.inPacketTransaction(
        dataSource,
        move.reason + " of " + keys.size() + " instance(s)",
        transaction -> moveIn(transaction, keyColumn, keys, move, nowMs, true));
  }

  /**
   * Forces the key's own index. Without it the optimizer may pick the (status, due) index, since
   * the UPDATE also says {@code status = ?}: it then walks every row in that status (the whole
   * backlog under load) for each batch, and buffers them because it changes the column it scans by.
   * Each batch would then cost time in proportion to the backlog.
   */
  private static String keyIndexHint(String keyColumn) {
    return switch (keyColumn) {
      case "instance_id" -> "FORCE INDEX (PRIMARY)";
      case "seq" -> "FORCE INDEX (seq)";
      default ->
          throw new IllegalArgumentException("not a key column of ax_instance: " + keyColumn);
    };
  }

  /**
   * {@link #move} inside the caller's transaction: per chunk of keys, one packet with the UPDATE,
   * the INSERT of its audit rows and the SELECT that reads the won rows back (after {@code START
   * TRANSACTION} if the transaction has not begun, and before {@code COMMIT} for the last chunk if
   * {@code commits}). One round trip per chunk, where separate statements took three.
   */
  static <T> List<T> moveIn(
      Transaction transaction,
      String keyColumn,
      List<?> keys,
      BatchMove<T> move,
      long nowMs,
      boolean commits)
      throws SQLException {
    StatusTransitions.require(move.from, move.to);
    List<T> won = new ArrayList<>(keys.size());
    List<? extends List<?>> chunks = Sql.chunks(new ArrayList<Object>(keys));
    for (int c = 0; c < chunks.size(); c++) {
      List<?> chunk = chunks.get(c);
      String token = UUID.randomUUID().toString();
      String in = "(" + Sql.placeholders(chunk.size()) + ")";
      String begin = transaction.begin();
      String commit = commits && c == chunks.size() - 1 ? transaction.commit() : "";
      // A move to a terminal status may end one-shot tasks: in the same packet (OneShotEnd).
      boolean endsOneShots = move.to.isTerminal();
      String sql =
          begin
              + "UPDATE ax_instance "
              + keyIndexHint(keyColumn)
              + " SET status = ?, "
              + move.setClause
              + ", batch_token = ?, updated_at_ms = ? WHERE "
              + keyColumn
              + " IN "
              + in
              + " AND status = ?"
              + move.extraWhere
              + (move.fence == null ? "" : " AND " + LeaseFence.CONDITION)
              + auditAndReadBack(keyColumn, in, move.readColumns, move.auditedAttempt)
              + (endsOneShots ? OneShotEnd.afterMoveSql(keyColumn, in) : "")
              + commit;
      try (PreparedStatement packet = transaction.connection().prepareStatement(sql)) {
        int index = 1;
        packet.setString(index++, move.to.name());
        for (Object value : move.setValues) {
          packet.setObject(index++, value);
        }
        packet.setString(index++, token);
        packet.setLong(index++, nowMs);
        index = bindKeys(packet, index, chunk);
        packet.setString(index++, move.from.name());
        for (Object value : move.extraWhereValues) {
          packet.setObject(index++, value);
        }
        if (move.fence != null) {
          packet.setString(index++, move.fence.leaseName());
          packet.setString(index++, move.fence.holder());
          packet.setLong(index++, move.fence.epoch());
        }
        index =
            bindAuditAndReadBack(
                packet, index, move.from, move.to, move.actor, move.reason, nowMs, chunk, token);
        if (endsOneShots) {
          index = bindKeys(packet, index, chunk);
          packet.setString(index++, token);
          packet.setLong(index, nowMs);
        }
        won.addAll(
            sendMovePacket(
                packet,
                !begin.isEmpty(),
                endsOneShots,
                !commit.isEmpty(),
                move.reader,
                move.reason));
      }
    }
    return won;
  }

  static int bindKeys(PreparedStatement statement, int firstIndex, List<?> keys)
      throws SQLException {
    int index = firstIndex;
    for (Object key : keys) {
      statement.setObject(index++, key);
    }
    return index;
  }

  /**
   * What every batch move's packet sends after its UPDATE stamped the rows it won with a token: the
   * audit INSERT of exactly those rows, and the SELECT of {@code readColumns} that reads them back.
   * {@code in} is the IN list of the keys, in {@code keyColumn}; {@code auditedAttempt} the
   * expression each audit row's attempt is read from.
   */
  static String auditAndReadBack(
      String keyColumn, String in, String readColumns, String auditedAttempt) {
    String stamped = " FROM ax_instance WHERE " + keyColumn + " IN " + in + " AND batch_token = ?";
    return ";INSERT INTO ax_instance_log (instance_id, task_id, attempt, from_status, to_status,"
        + " actor, reason, at_ms) SELECT instance_id, task_id, "
        + auditedAttempt
        + ", ?, ?, ?, ?, ?"
        + stamped
        + ";SELECT "
        + readColumns
        + stamped;
  }

  /**
   * Binds the parameters of {@link #auditAndReadBack} from {@code index} on.
   *
   * @return the index of the next parameter
   */
  static int bindAuditAndReadBack(
      PreparedStatement packet,
      int index,
      InstanceStatus from,
      InstanceStatus to,
      String actor,
      String reason,
      long nowMs,
      List<?> keys,
      String token)
      throws SQLException {
    packet.setString(index++, from.name());
    packet.setString(index++, to.name());
    packet.setString(index++, actor);
    packet.setString(index++, reason);
    packet.setLong(index++, nowMs);
    index = bindKeys(packet, index, keys);
    packet.setString(index++, token);
    index = bindKeys(packet, index, keys);
    packet.setString(index++, token);
    return index;
  }

  /**
   * Sends a batch move's packet ({@code START TRANSACTION} first if {@code begins}, the UPDATE,
   * {@link #auditAndReadBack}, the end of one-shot tasks if {@code endsOneShots}, {@code COMMIT}
   * last if {@code commits}) and returns the rows read back, after checking that the UPDATE, the
   * audit and the read-back counted the same rows.
   */
  static <T> List<T> sendMovePacket(
      PreparedStatement packet,
      boolean begins,
      boolean endsOneShots,
      boolean commits,
      BatchMove.RowReader<T> reader,
      String what)
      throws SQLException {
    PacketResults results = PacketResults.execute(packet);
    if (begins) {
      results.nextUpdateCount();
    }
    int updated = results.nextUpdateCount();
    int audited = results.nextUpdateCount();
    List<T> won = new ArrayList<>(updated);
    try (ResultSet rs = results.nextResultSet()) {
      while (rs.next()) {
        won.add(reader.read(rs));
      }
    }
    if (endsOneShots) {
      results.nextUpdateCount();
    }
    if (commits) {
      results.nextUpdateCount();
    }
    if (won.size() != updated || audited != updated) {
      throw new IllegalStateException(
          what
              + " updated "
              + updated
              + " rows, audited "
              + audited
              + " and read back "
              + won.size()
              + " with its token");
    }
    return won;
  }
}
