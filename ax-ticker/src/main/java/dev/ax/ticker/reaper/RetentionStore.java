package dev.ax.ticker.reaper;

import static dev.ax.common.store.Jdbc.Binder.values;

import dev.ax.common.model.TriggerType;
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
 * <p>Then the task rows of DELETED tasks with no instance left go too ({@link
 * #deleteRemovedTasksBefore}): nothing gives a DELETED task an instance again (it takes no command,
 * a TRIGGER for it is refused, and the ticker makes successors only of instances it fires), so once
 * retention took its history, its row is all that is left of it.
 *
 * <p>Thread-safe (stateless over a pool).
 */
final class RetentionStore {

  /** What one pass over instances deleted. */
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
    return deleteSelected(
        "deleting finished instances older than " + cutoffMs,
        "SELECT instance_id FROM ax_instance"
            + " WHERE status IN ('SUCCESS', 'CANCELLED', 'SKIPPED', 'DEAD')"
            + " AND due_at_ms < ? AND updated_at_ms < ?"
            // A scalar subquery, one lookup by the letter's unique key: MariaDB turns an EXISTS
            // here into a materialized read of every dead letter.
            + " AND (status <> 'DEAD' OR (SELECT d.state FROM ax_dead_letter d"
            + " WHERE d.instance_id = ax_instance.instance_id) = 'DISCARDED')"
            + " LIMIT ? FOR UPDATE",
        List.of(cutoffMs, cutoffMs, limit),
        new Deleted(0, 0, 0),
        (tx, ids) -> {
          int audit = deleteIn(tx, "ax_instance_log", "instance_id", ids);
          int letters = deleteIn(tx, "ax_dead_letter", "instance_id", ids);
          int instances = deleteIn(tx, "ax_instance", "instance_id", ids);
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

  /**
   * Deletes up to {@code limit} DELETED tasks last changed before {@code cutoffMs} that have no
   * instance left, with the commands applied to them and their own dependency edges (edges naming
   * one as an upstream are their downstream task's, and stay), in one transaction. The candidates
   * are read by the {@code (trigger_type, state)} index, one range per trigger type, {@code FOR
   * UPDATE}: the lock covers only DELETED tasks, which no command changes.
   *
   * @return how many tasks were deleted
   */
  int deleteRemovedTasksBefore(long cutoffMs, int limit) {
    List<Object> bound = new ArrayList<>();
    for (TriggerType type : TriggerType.values()) {
      bound.add(type.name());
    }
    bound.add(cutoffMs);
    bound.add(limit);
    return deleteSelected(
        "deleting removed tasks older than " + cutoffMs,
        "SELECT t.task_id FROM ax_task t WHERE t.trigger_type IN ("
            + Sql.placeholders(TriggerType.values().length)
            + ") AND t.state = 'DELETED' AND t.updated_at_ms < ?"
            + " AND NOT EXISTS (SELECT 1 FROM ax_instance i WHERE i.task_id = t.task_id)"
            + " LIMIT ? FOR UPDATE",
        bound,
        0,
        (tx, ids) -> {
          deleteIn(tx, "ax_task_command", "task_id", ids);
          deleteIn(tx, "ax_task_dependency", "task_id", ids);
          return deleteIn(tx, "ax_task", "task_id", ids);
        });
  }

  /** Deletes rows by the ids a {@code SELECT ... FOR UPDATE} read, in its transaction. */
  @FunctionalInterface
  private interface IdsDelete<T> {
    T delete(JdbcTransaction tx, List<String> ids) throws SQLException;
  }

  /**
   * In one transaction: reads (and locks) the ids {@code select} finds, bound to {@code bound}, and
   * hands them to {@code delete}; {@code none} when it finds none.
   */
  private <T> T deleteSelected(
      String what, String select, List<Object> bound, T none, IdsDelete<T> delete) {
    return jdbc.inTransaction(
        what,
        tx -> {
          List<String> ids = tx.query(select, values(bound.toArray()), rs -> rs.getString(1));
          return ids.isEmpty() ? none : delete.delete(tx, ids);
        });
  }

  private static int deleteIn(JdbcTransaction tx, String table, String keyColumn, List<String> ids)
      throws SQLException {
    int deleted = 0;
    for (List<?> chunk : Sql.chunks(new ArrayList<Object>(ids))) {
      deleted +=
          tx.update(
              "DELETE FROM "
                  + table
                  + " WHERE "
                  + keyColumn
                  + " IN ("
                  + Sql.placeholders(chunk.size())
                  + ")",
              values(chunk.toArray()));
    }
    return deleted;
  }
}
