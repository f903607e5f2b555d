package dev.ax.ticker.reaper;

import static dev.ax.common.model.InstanceStatus.DEAD;

import dev.ax.common.model.DeadLetterState;
import dev.ax.common.store.Sql;

/**
 * The statements of {@link RetentionStore}: each batch's read of an index range (without locks),
 * its locking re-read of the candidates by primary key, and the overdue gauge's reads of the first
 * entry of each range. {@code RetentionRoundIT} runs {@code EXPLAIN} on each.
 */
final class RetentionSql {

  /**
   * No instance of task {@code t}: a scalar subquery with LIMIT 1, one lookup of {@code
   * ax_instance_task} per candidate. Not {@code NOT EXISTS}: MariaDB (exists-to-in) and MySQL 8
   * (anti-join) may turn that into a materialized read of the whole index when statistics promise
   * many candidates, and did: on the 2,000/s soak's database (a million instances) one batch of 500
   * tasks took 15 s that way and 0.5 s in this form. Neither rewrites a scalar subquery with a
   * LIMIT.
   */
  private static final String NO_INSTANCE_OF_TASK =
      " (SELECT i.task_id FROM ax_instance i WHERE i.task_id = t.task_id LIMIT 1) IS NULL";

  /** No instance of version {@code v} (see {@link #NO_INSTANCE_OF_TASK} for the form). */
  private static final String NO_INSTANCE_OF_VERSION =
      " AND (SELECT i.task_id FROM ax_instance i"
          + " WHERE i.task_id = v.task_id AND i.task_version = v.version LIMIT 1) IS NULL";

  private static final String AFTER_CURSOR = " AND (%1$s > ? OR (%1$s = ? AND %2$s > ?))";

  /** The first finished instance of a status (bound) due and changed before the cutoff (twice). */
  static final String OLDEST_INSTANCE_SQL =
      "SELECT GREATEST(due_at_ms, updated_at_ms) FROM ax_instance"
          + " WHERE status = ? AND due_at_ms < ? AND updated_at_ms < ?"
          + " ORDER BY due_at_ms LIMIT 1";

  /** How many of a state's oldest terminal tasks the overdue gauge looks at. */
  static final int OLDEST_TASK_PROBE = 1_000;

  /**
   * The first terminal task of a state (bound) changed before the cutoff with no instance left,
   * among the {@link #OLDEST_TASK_PROBE} oldest of that state changed before the cutoff. Bounded
   * because a task whose instance is still there is not deletable yet, and behind a backlog every
   * one-shot task past the cutoff is such a task: an unbounded walk read them all (seconds per read
   * at two thousand tasks a second, on retention's own thread). A task held by its instance is
   * overdue as that instance; a deletable task behind more held ones than the probe is seen once
   * they go.
   */
  static final String OLDEST_TASK_SQL =
      "SELECT t.updated_at_ms FROM (SELECT task_id, updated_at_ms FROM ax_task"
          + " WHERE state = ? AND updated_at_ms < ? ORDER BY updated_at_ms LIMIT "
          + OLDEST_TASK_PROBE
          + ") t WHERE"
          + NO_INSTANCE_OF_TASK
          + " ORDER BY t.updated_at_ms LIMIT 1";

  static final String OLDEST_OPERATOR_LOG_SQL =
      "SELECT at_ms FROM ax_operator_log WHERE at_ms < ? ORDER BY at_ms LIMIT 1";

  static final String OLDEST_COMMAND_SQL =
      "SELECT applied_at_ms FROM ax_task_command WHERE applied_at_ms < ?"
          + " ORDER BY applied_at_ms LIMIT 1";

  /** A batch of finished instances of a status: bound status, cutoff, cursor (3), cutoff, limit. */
  static String instancesSql(String status) {
    return "SELECT instance_id, due_at_ms, EXISTS (SELECT 1 FROM ax_dead_letter l"
        + " WHERE l.instance_id = ax_instance.instance_id)"
        + " FROM ax_instance WHERE status = ? AND due_at_ms < ?"
        + AFTER_CURSOR.formatted("due_at_ms", "instance_id")
        + " AND updated_at_ms < ?"
        + (status.equals(DEAD.name()) ? DISCARDED_LETTER : "")
        + " ORDER BY due_at_ms, instance_id LIMIT ?";
  }

  /**
   * Locks the candidate instances (the IN list's {@code placeholders}) still deletable: bound the
   * ids, then status, cutoff, cutoff.
   */
  static String lockInstancesSql(String status, String placeholders) {
    return "SELECT instance_id FROM ax_instance WHERE instance_id IN ("
        + placeholders
        + ") AND status = ? AND due_at_ms < ? AND updated_at_ms < ?"
        + (status.equals(DEAD.name()) ? DISCARDED_LETTER : "")
        + " FOR UPDATE";
  }

  /**
   * A DEAD instance goes only with a DISCARDED letter. A scalar subquery, one lookup by the
   * letter's unique key: MariaDB turns an EXISTS here into a read and sort of every dead letter.
   */
  private static final String DISCARDED_LETTER =
      " AND (SELECT d.state FROM ax_dead_letter d"
          + " WHERE d.instance_id = ax_instance.instance_id) = "
          + Sql.literals(DeadLetterState.DISCARDED);

  /** A batch of terminal tasks: bound state, cutoff, cursor (3), limit. */
  static String tasksSql() {
    return "SELECT t.task_id, t.updated_at_ms FROM ax_task t WHERE t.state = ?"
        + " AND t.updated_at_ms < ?"
        + AFTER_CURSOR.formatted("t.updated_at_ms", "t.task_id")
        + TASK_UNUSED
        + " ORDER BY t.updated_at_ms, t.task_id LIMIT ?";
  }

  /**
   * A task with no instance left, that no dependency edge names as its upstream: such a task stays
   * until that downstream is gone, since once its id is freed a new task of that id would trigger
   * the old downstream.
   */
  private static final String TASK_UNUSED =
      " AND"
          + NO_INSTANCE_OF_TASK
          + " AND (SELECT d.upstream_task_id FROM ax_task_dependency d"
          + " WHERE d.upstream_task_id = t.task_id LIMIT 1) IS NULL";

  /**
   * Locks the candidate tasks (the IN list's {@code placeholders}) still deletable: bound the ids,
   * then state and cutoff.
   */
  static String lockTasksSql(String placeholders) {
    return "SELECT t.task_id FROM ax_task t WHERE t.task_id IN ("
        + placeholders
        + ") AND t.state = ? AND t.updated_at_ms < ?"
        + TASK_UNUSED
        + " FOR UPDATE";
  }

  /** A batch of superseded versions: bound cutoff, cursor (5), limit. */
  static String versionsSql() {
    return "SELECT v.task_id, v.version, v.superseded_at_ms FROM ax_task_version v"
        + " WHERE v.superseded_at_ms < ? AND (v.superseded_at_ms > ?"
        + " OR (v.superseded_at_ms = ? AND (v.task_id > ? OR (v.task_id = ? AND v.version > ?))))"
        + NO_INSTANCE_OF_VERSION
        + " ORDER BY v.superseded_at_ms, v.task_id, v.version LIMIT ?";
  }

  /** Locks the candidate versions ({@code pairs} of task id and version, bound) still unused. */
  static String lockVersionsSql(String pairs) {
    return "SELECT v.task_id, v.version FROM ax_task_version v WHERE ("
        + pairs
        + ") AND v.superseded_at_ms < ?"
        + NO_INSTANCE_OF_VERSION
        + " FOR UPDATE";
  }

  /**
   * Deletes the rows of a batch's keys (the IN list's {@code placeholders}, bound) from {@code
   * table}, whose {@code keyColumn} leads an index (an instance's audit rows, run output and dead
   * letter; a task's commands, edges and versions). Table and column are constants of the caller.
   */
  static String deleteInSql(String table, String keyColumn, String placeholders) {
    return "DELETE FROM " + table + " WHERE " + keyColumn + " IN (" + placeholders + ")";
  }

  /** A batch of applied commands or operator log rows: bound cutoff, limit. */
  static String olderRowsSql(RetentionKind kind) {
    String table = kind == RetentionKind.OPERATOR_LOG ? "ax_operator_log" : "ax_task_command";
    String time = kind == RetentionKind.OPERATOR_LOG ? "at_ms" : "applied_at_ms";
    return "DELETE FROM " + table + " WHERE " + time + " < ? ORDER BY " + time + " LIMIT ?";
  }

  private RetentionSql() {}
}
