package dev.ax.common.store;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.TaskState;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

/**
 * The end of a one-shot task: a ONCE task in state ACTIVE whose last live instance has just become
 * terminal (SUCCESS, DEAD, CANCELLED, SKIPPED: {@link InstanceStatus#isTerminal}) moves to {@code
 * ENDED}, in the same transaction as that move. An ENDED task holds no live instance and fires
 * nothing more; it no longer counts against its group's limit, and retention may remove it.
 *
 * <p>Who calls it: every batch move to a terminal status ({@link BatchMover} appends {@link
 * #afterMoveSql} to the move's packet, so the end costs no round trip), the follow-ups that make a
 * failed attempt DEAD ({@link FailureFollowUps}), the outcomes recorded one by one, and a RESUME or
 * UPDATE that leaves a ONCE task without a live instance. The statement itself checks the task's
 * type and state and that no live instance is left, so a caller may name any task: one that still
 * has a live instance, or is not ONCE, or is PAUSED (a pause stays visible until RESUME), is left
 * as it is.
 *
 * <p>The way back: a dead-letter replay, a RUN_NOW or an UPDATE that gives an ENDED task a new live
 * instance makes it ACTIVE again ({@link #reactivate}) in the transaction of that instance, under
 * the task's lock ({@link TaskGate}).
 *
 * <p>Locks: the UPDATE takes the task's row exclusively after the instance rows the caller moved,
 * the reverse of a lifecycle command's order; a deadlock between the two is broken by the database
 * and the loser's transaction is tried again by its caller, as for any lost transaction.
 *
 * <p>Stateless; each call works in the caller's transaction, on the caller's thread.
 */
public final class OneShotEnd {

  /** The task state of a ONCE task whose every instance is terminal. */
  public static final String ENDED = TaskState.ENDED.name();

  /** The moves this class writes, checked against the table once. */
  static {
    TaskState.require(TaskState.ACTIVE, TaskState.ENDED);
    TaskState.require(TaskState.ENDED, TaskState.ACTIVE);
  }

  /** The instance statuses that keep a task live, as an SQL list of literals. */
  static final String LIVE_STATUSES = liveStatuses();

  /**
   * The anti-join that finds a task's live instances by the task's own index ({@code
   * ax_instance_task}), and the conditions that end the task when it finds none. A join, not {@code
   * NOT EXISTS}: MariaDB rewrites such a subquery into a materialized scan of every live instance
   * when it thinks that cheaper, and the plan must not depend on table statistics.
   */
  private static final String LIVE_JOIN =
      " LEFT JOIN ax_instance l FORCE INDEX (ax_instance_task) ON l.task_id = t.task_id"
          + " AND l.status IN ("
          + LIVE_STATUSES
          + ") SET t.state = '"
          + ENDED
          + "', t.updated_at_ms = ? WHERE t.trigger_type = 'ONCE' AND t.state = "
          + Sql.literals(TaskState.ACTIVE)
          + " AND l.task_id IS NULL";

  private OneShotEnd() {}

  /**
   * Ends those of {@code taskIds} that are ACTIVE ONCE tasks without a live instance, in the
   * caller's open transaction on {@code connection}, one UPDATE per chunk of {@link
   * Sql#MAX_IN_LIST} ids (ascending, as every multi-task lock is taken).
   *
   * @return how many tasks ended
   */
  public static int endIfDone(Connection connection, Collection<String> taskIds, long nowMs)
      throws SQLException {
    int ended = 0;
    for (List<String> chunk : Sql.chunks(new TreeSet<>(taskIds))) {
      try (PreparedStatement update =
          connection.prepareStatement(
              "UPDATE ax_task t"
                  + LIVE_JOIN
                  + " AND t.task_id IN ("
                  + Sql.placeholders(chunk.size())
                  + ")")) {
        update.setLong(1, nowMs);
        BatchMover.bindKeys(update, 2, chunk);
        ended += update.executeUpdate();
      }
    }
    return ended;
  }

  /**
   * The statement a batch move to a terminal status appends to its packet, after its read-back:
   * ends the tasks of the rows the move stamped with its token ({@code keyColumn IN in AND
   * batch_token = ?}). A join with the stamped rows rather than {@code task_id IN (SELECT ...)}: a
   * single-table UPDATE with an IN subquery is read as a dependent subquery per task row by MySQL
   * before 8.0.21, a scan of the whole task table. Parameters: the keys, the token, then now.
   */
  static String afterMoveSql(String keyColumn, String in) {
    return ";UPDATE ax_task t JOIN (SELECT DISTINCT task_id FROM ax_instance WHERE "
        + keyColumn
        + " IN "
        + in
        + " AND batch_token = ?) m ON m.task_id = t.task_id"
        + LIVE_JOIN;
  }

  /**
   * ENDED → ACTIVE for {@code taskId}, in the caller's transaction, which has just given the task a
   * new live instance (or is about to) under the task's lock.
   *
   * @return true if the task was ENDED
   */
  public static boolean reactivate(JdbcTransaction tx, String taskId, long nowMs)
      throws SQLException {
    return tx.update(
            "UPDATE ax_task SET state = "
                + Sql.literals(TaskState.ACTIVE)
                + ", updated_at_ms = ? WHERE task_id = ?"
                + " AND state = '"
                + ENDED
                + "'",
            Jdbc.Binder.values(nowMs, taskId))
        == 1;
  }

  private static String liveStatuses() {
    List<String> live = new ArrayList<>();
    for (InstanceStatus status : InstanceStatus.values()) {
      if (!status.isTerminal()) {
        live.add("'" + status.name() + "'");
      }
    }
    return String.join(", ", live);
  }
}
