package dev.ax.ticker.reaper;

import static dev.ax.common.store.Jdbc.Binder.values;

import dev.ax.common.store.Jdbc;
import dev.ax.common.store.JdbcTransaction;
import dev.ax.common.store.Sql;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * The SQL of retention: deletes finished instances older than a cutoff with their audit rows and
 * dead letters, a small batch per transaction. Finished means SUCCESS, CANCELLED or SKIPPED, or
 * DEAD with its dead letter DISCARDED: a DEAD instance whose letter is open (or missing, for the
 * dead-letter stage's sweep to find) is an operator's to handle and is never deleted, nor is any
 * instance that can still move. The candidates are read {@code FOR UPDATE} in the transaction that
 * deletes them, so a row that moved meanwhile (a replay) is not among them.
 *
 * <p>Thread-safe (stateless over a pool).
 */
final class RetentionStore {

  /** What one pass deleted. */
  record Deleted(int instances, int auditRows, int deadLetters) {}

  private final Jdbc jdbc;

  RetentionStore(DataSource dataSource) {
    this.jdbc = new Jdbc(dataSource);
  }

  /**
   * Deletes up to {@code limit} finished instances last changed before {@code cutoffMs} (and due
   * before it, so the {@code (status, due_at_ms)} index bounds the read), their audit rows and
   * their dead letters, in one transaction.
   */
  Deleted deleteFinishedBefore(long cutoffMs, int limit) {
    return jdbc.inTransaction(
        "deleting finished instances older than " + cutoffMs,
        tx -> {
          List<String> ids =
              tx.query(
                  "SELECT instance_id FROM ax_instance"
                      + " WHERE status IN ('SUCCESS', 'CANCELLED', 'SKIPPED', 'DEAD')"
                      + " AND due_at_ms < ? AND updated_at_ms < ?"
                      + " AND (status <> 'DEAD' OR EXISTS (SELECT 1 FROM ax_dead_letter d"
                      + " WHERE d.instance_id = ax_instance.instance_id"
                      + " AND d.state = 'DISCARDED'))"
                      + " LIMIT ? FOR UPDATE",
                  values(cutoffMs, cutoffMs, limit),
                  rs -> rs.getString(1));
          if (ids.isEmpty()) {
            return new Deleted(0, 0, 0);
          }
          int audit = deleteIn(tx, "ax_instance_log", ids);
          int letters = deleteIn(tx, "ax_dead_letter", ids);
          int instances = deleteIn(tx, "ax_instance", ids);
          return new Deleted(instances, audit, letters);
        });
  }

  /**
   * Deletes the records of stages that applied an older version of a switch than its current one
   * and did so before {@code cutoffMs}: stages long gone (a node id per deployment). A live stage
   * rewrites its record at each change, so it never has a superseded one that old.
   */
  int deleteSupersededSwitchRecords(long cutoffMs) {
    return jdbc.inTransaction(
        "deleting superseded switch records older than " + cutoffMs,
        tx ->
            tx.update(
                "DELETE a FROM ax_switch_applied a JOIN ax_switch s"
                    + " ON s.switch_name = a.switch_name"
                    + " WHERE a.version < s.version AND a.applied_at_ms < ?",
                values(cutoffMs)));
  }

  private static int deleteIn(JdbcTransaction tx, String table, List<String> ids)
      throws SQLException {
    int deleted = 0;
    for (List<?> chunk : Sql.chunks(new ArrayList<Object>(ids))) {
      deleted +=
          tx.update(
              "DELETE FROM "
                  + table
                  + " WHERE instance_id IN ("
                  + Sql.placeholders(chunk.size())
                  + ")",
              values(chunk.toArray()));
    }
    return deleted;
  }
}
